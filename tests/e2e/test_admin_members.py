"""The Django admin's workspace page, in a browser: admin handed over in one save, whatever order the rows are in,
and a deactivated person refused in words where they are picked."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import MakeUser, Trio
from tests.e2e.conftest import log_in, screenshot
from workspaces.models import AuditEvent, Membership

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def root(page: Any, live_server: Any, make_user: MakeUser) -> Any:
    root = make_user("root", is_staff=True, is_superuser=True)
    log_in(page, live_server, root)
    return root


def row_of(page: Any, username: str) -> Any:
    return page.locator("tr.form-row", has_text=username)


def pick(page: Any, username: str) -> None:
    """Picks a person in the empty row's autocomplete (select2), as an admin types a name."""
    page.locator("tr.form-row:not(.has_original) .select2-selection").first.click()
    page.locator(".select2-search__field").fill(username)
    page.locator(".select2-results__option", has_text=username).click()


class AdminMembersTests:
    def test_admin_is_handed_over_in_one_save(self, page: Any, root: Any, trio: Trio) -> None:
        page.goto(f"/admin/workspaces/workspace/{trio.workspace.id}/change/")
        # olivia's row comes first: she is demoted on the page before rita is made admin.
        row_of(page, "olivia").locator("select[name$='-role']").select_option("viewer")
        row_of(page, "rita").locator("select[name$='-role']").select_option("admin")
        page.get_by_role("button", name="Save and continue editing").click()
        page.get_by_text("was changed successfully").wait_for()
        screenshot(page, "admin-workspace-handed-over")
        roles = dict(Membership.objects.filter(workspace=trio.workspace).values_list("user__username", "role"))
        assert roles == {"olivia": "viewer", "rita": "admin", "victor": "viewer"}
        changes = AuditEvent.objects.filter(verb="member.role_changed").order_by("id")
        assert [(e.target, e.payload["to"]) for e in changes] == [("rita", "admin"), ("olivia", "viewer")]

    def test_a_deactivated_person_is_refused_where_they_are_picked(
        self, page: Any, root: Any, trio: Trio, make_user: MakeUser
    ) -> None:
        make_user("gone", is_active=False)
        page.goto(f"/admin/workspaces/workspace/{trio.workspace.id}/change/")
        pick(page, "gone")
        page.get_by_role("button", name="Save and continue editing").click()
        refusal = page.get_by_text("gone's account is deactivated, so they cannot sign in")
        refusal.wait_for()
        refusal.scroll_into_view_if_needed()
        screenshot(page, "admin-workspace-deactivated-refused")
        assert not Membership.objects.filter(user__username="gone").exists()
