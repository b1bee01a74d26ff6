"""The Django admin's people, in a browser: deactivating a workspace's last admin is refused in words, and giving
someone the Auditors group is one tick that the audit page then shows, by the person it gave access to."""

from __future__ import annotations

import importlib
from typing import Any

import pytest
from django.apps import apps as installed_apps

from tests.conftest import MakeUser, Trio
from tests.e2e.conftest import log_in, screenshot, settled
from workspaces.models import AuditEvent

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def root(page: Any, live_server: Any, make_user: MakeUser) -> Any:
    """A superuser in the browser, with the ready groups (a transactional test's database is emptied between
    tests, the migration's rows with it: they are made again as the migration makes them)."""
    importlib.import_module("workspaces.migrations.0006_ready_groups").make_groups(installed_apps, None)
    root = make_user("root", is_staff=True, is_superuser=True)
    log_in(page, live_server, root)
    return root


class AdminPeopleTests:
    def test_deactivating_the_last_admin_is_refused_in_the_form_and_the_list(
        self, page: Any, root: Any, trio: Trio
    ) -> None:
        page.goto(f"/admin/auth/user/{trio.owner.pk}/change/")
        page.get_by_text("Member of “Launch planning” (admin).").wait_for()
        page.get_by_label("Active").uncheck()
        page.get_by_role("button", name="Save", exact=True).click()
        refusal = page.get_by_text("Deactivating olivia would leave “Launch planning” without an active admin")
        refusal.wait_for()
        refusal.scroll_into_view_if_needed()
        screenshot(page, "admin-deactivate-last-admin")
        trio.owner.refresh_from_db()
        assert trio.owner.is_active

        page.goto("/admin/auth/user/")
        page.locator("tr", has_text="olivia").locator("input.action-select").check()
        page.locator("tr", has_text="oscar").locator("input.action-select").check()
        page.locator("select[name=action]").select_option(
            label="Deactivate the selected people (they can no longer sign in)"
        )
        page.get_by_role("button", name="Run").click()
        page.get_by_text("Nobody was deactivated.").wait_for()
        screenshot(page, "admin-deactivate-list-refused")
        assert not AuditEvent.objects.filter(verb="user.deactivated").exists()

    def test_the_auditors_group_is_one_tick_and_the_audit_page_shows_who_gave_it(
        self, page: Any, root: Any, make_user: MakeUser, trio: Trio
    ) -> None:
        ada = make_user("ada", is_staff=True, first_name="Ada", last_name="Byron")
        page.goto(f"/admin/auth/user/{ada.pk}/change/")
        page.get_by_text("Reads only the workspaces they are a member of.").wait_for()
        page.get_by_label("Auditors — Can view audit event; Can read every workspace as a viewer, to audit it").check()
        screenshot(page, "admin-person-groups")
        page.get_by_role("button", name="Save and continue editing").click()
        page.get_by_text("Reads every workspace as a viewer, through the group “Auditors”.").wait_for()
        screenshot(page, "admin-person-auditor")

        page.goto("/audit/")
        page.get_by_label("Person affected").fill("Byron")
        page.get_by_role("button", name="Filter").click()
        page.get_by_text("events match person affected “Byron”").wait_for()
        settled(page)
        row = page.locator("table.events tr", has_text="Added to a group")
        assert "root" in row.inner_text()
        assert "added ada to the group “Auditors”; ada now reads every workspace" in row.inner_text()
        screenshot(page, "audit-person-affected")
        row.get_by_role("link").first.click()
        page.get_by_text("Everything the event recorded").click()
        page.get_by_text('"via": "the Django admin"').wait_for()
        screenshot(page, "audit-event-group-added")


class MembersMarkTests:
    def test_members_marks_a_deactivated_person_and_says_why_one_cannot_be_added(
        self, page: Any, live_server: Any, trio: Trio, make_user: MakeUser
    ) -> None:
        trio.viewer.is_active = False
        trio.viewer.save()
        make_user("gone", is_active=False)
        log_in(page, live_server, trio.owner)
        page.goto(f"/w/{trio.workspace.id}/members/")
        assert "deactivated" in page.locator("tr", has_text="victor").inner_text()
        assert "deactivated" not in page.locator("tr", has_text="rita").inner_text()
        page.get_by_label("Username").fill("gone")
        page.get_by_role("button", name="Add", exact=True).click()
        page.get_by_text("gone's account is deactivated, so they cannot sign in").wait_for()
        settled(page)
        assert "does not exist" not in page.locator("#member-section").inner_text()
        screenshot(page, "members-deactivated")
