"""A workspace admin manages members in the browser, over HTMX, without a page reload."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import MakeUser, Trio
from tests.e2e.conftest import log_in, screenshot, settled
from workspaces.models import AuditEvent, Membership

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


class MembersFlowTests:
    def test_it_adds_changes_and_removes_a_member_in_place(
        self, page: Any, live_server: Any, trio: Trio, make_user: MakeUser
    ) -> None:
        make_user("newcomer")
        log_in(page, live_server, trio.owner)
        page.goto(f"/w/{trio.workspace.id}/members/")
        page.evaluate("window.__sameDocument = true")

        page.get_by_label("Username").fill("newcomer")
        page.locator("#member-section form.row select[name=role]").select_option("viewer")
        page.get_by_role("button", name="Add", exact=True).click()
        page.get_by_text("newcomer added as viewer").wait_for()
        settled(page)

        # What each role may do is on the page, beside the controls.
        assert "also manages members" in page.locator("#role-help").inner_text()
        # Choosing a role changes nothing until its button is pressed.
        page.get_by_label("Role of newcomer").select_option("reviewer")
        settled(page)
        assert Membership.objects.get(user__username="newcomer").role == "viewer"
        row = page.locator("tr", has_text="newcomer")
        row.get_by_role("button", name="Change role").click()
        page.get_by_text("newcomer is now reviewer").wait_for()
        settled(page)
        assert Membership.objects.get(user__username="newcomer").role == "reviewer"

        # To admin, it asks first, in the row; "Keep it" leaves everything as it was.
        page.get_by_label("Role of newcomer").select_option("admin")
        row.get_by_role("button", name="Change role").click()
        page.get_by_text("Make newcomer an admin of Launch planning?").wait_for()
        settled(page)
        screenshot(page, "members-confirm-admin")
        page.get_by_role("link", name="Keep it").click()
        page.get_by_label("Role of newcomer").wait_for()
        settled(page)
        assert Membership.objects.get(user__username="newcomer").role == "reviewer"
        page.get_by_label("Role of newcomer").select_option("admin")
        page.locator("tr", has_text="newcomer").get_by_role("button", name="Change role").click()
        page.get_by_role("button", name="Make newcomer admin").click()
        page.get_by_text("newcomer is now admin").wait_for()
        settled(page)
        assert Membership.objects.get(user__username="newcomer").role == "admin"

        page.get_by_label("Username").fill("nobody")
        page.get_by_role("button", name="Add", exact=True).click()
        page.get_by_text("There is no user called 'nobody'.").wait_for()
        assert "an administrator creates it in the Django admin first" in page.locator("#member-section").inner_text()
        settled(page)
        screenshot(page, "members")
        page.set_viewport_size({"width": 800, "height": 800})
        screenshot(page, "members-800")

        page.locator("tr", has_text="newcomer").get_by_role("button", name="Remove").click()
        page.get_by_role("button", name="Remove newcomer").click()
        page.get_by_text("newcomer removed from Launch planning.").wait_for()
        assert not Membership.objects.filter(user__username="newcomer").exists()
        # Everything happened over HTMX: the page itself was never reloaded.
        assert page.evaluate("window.__sameDocument") is True
        verbs = list(
            AuditEvent.objects.filter(target="newcomer", verb__startswith="member.")
            .values_list("verb", flat=True)
            .order_by("id")
        )
        assert verbs == ["member.added", "member.role_changed", "member.role_changed", "member.removed"]
