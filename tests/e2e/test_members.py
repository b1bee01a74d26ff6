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
        page.get_by_role("button", name="Add").click()
        page.get_by_text("newcomer added as viewer").wait_for()
        settled(page)

        page.get_by_label("Role of newcomer").select_option("reviewer")
        page.get_by_text("newcomer is now reviewer").wait_for()
        settled(page)
        assert Membership.objects.get(user__username="newcomer").role == "reviewer"

        page.get_by_label("Username").fill("nobody")
        page.get_by_role("button", name="Add").click()
        page.get_by_text("There is no active user called 'nobody'.").wait_for()
        settled(page)
        screenshot(page, "members")

        page.on("dialog", lambda dialog: dialog.accept())
        page.locator("tr", has_text="newcomer").get_by_role("button", name="Remove").click()
        page.get_by_text("newcomer removed from Launch planning.").wait_for()
        assert not Membership.objects.filter(user__username="newcomer").exists()
        # Everything happened over HTMX: the page itself was never reloaded.
        assert page.evaluate("window.__sameDocument") is True
        verbs = list(AuditEvent.objects.filter(target="newcomer").values_list("verb", flat=True).order_by("id"))
        assert verbs == ["member.added", "member.role_changed", "member.removed"]
