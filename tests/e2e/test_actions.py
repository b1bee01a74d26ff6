"""A reviewer cancels an action in the browser: the row asks first, Keep leaves it, Yes cancels, Reopen undoes it."""

from __future__ import annotations

from typing import Any

import pytest

from agents.graph import actions as actions_graph
from tests.e2e.conftest import screenshot, settled
from workspaces.models import AuditEvent, Workspace

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

CONFIRM = "Confirm the launch date with Northwind"


def status_of(workspace: Workspace, title: str) -> str:
    return next(a.status for a in actions_graph.action_list(workspace=workspace) if a.title == title)


class ActionUndoFlowTests:
    def test_cancel_asks_in_place_keep_leaves_it_yes_cancels_and_reopen_brings_it_back(
        self, page: Any, demo_workspace: Workspace
    ) -> None:
        workspace = demo_workspace
        page.goto(f"/w/{workspace.id}/actions/")
        page.evaluate("window.__sameDocument = true")
        row = page.locator("tr", has_text=CONFIRM)

        row.get_by_role("button", name="Cancel").click()
        question = page.get_by_role("alertdialog")
        question.get_by_text(f"Cancel “{CONFIRM}”?").wait_for()
        settled(page)
        assert "you can reopen it while its decisions hold" in question.inner_text()
        # The question takes the focus, on its harmless answer: Enter right away keeps the action.
        assert page.evaluate("() => document.activeElement.textContent") == "Keep it"
        screenshot(page, "action-cancel-asks")
        assert status_of(workspace, CONFIRM) == "pending"

        question.get_by_role("link", name="Keep it").click()
        row.get_by_role("button", name="Cancel").wait_for()
        settled(page)
        assert page.get_by_role("alertdialog").count() == 0
        assert row.locator(".badge").inner_text() == "pending"
        assert status_of(workspace, CONFIRM) == "pending"

        row.get_by_role("button", name="Cancel").click()
        page.get_by_role("button", name="Yes, cancel it").click()
        row.get_by_text(f"“{CONFIRM}” is cancelled.").wait_for()
        settled(page)
        assert row.locator(".badge").inner_text() == "cancelled"
        assert status_of(workspace, CONFIRM) == "cancelled"
        screenshot(page, "action-cancelled")

        row.get_by_role("button", name="Reopen").click()
        row.get_by_text(f"“{CONFIRM}” is reopened: it is pending again.").wait_for()
        settled(page)
        assert row.locator(".badge").inner_text() == "pending"
        assert row.get_by_role("button", name="Mark done").is_visible()
        screenshot(page, "action-reopened")
        assert status_of(workspace, CONFIRM) == "pending"
        # All of it in place, over HTMX: the page itself was never reloaded.
        assert page.evaluate("window.__sameDocument") is True
        verbs = AuditEvent.objects.filter(target=CONFIRM).order_by("id").values_list("verb", flat=True)
        assert list(verbs)[-2:] == ["action.cancelled", "action.reopened"]

    def test_mark_done_on_the_decision_page_asks_first(self, page: Any, demo_workspace: Workspace) -> None:
        workspace = demo_workspace
        page.goto(f"/w/{workspace.id}/decisions/")
        page.get_by_role("link", name="Launch in June").click()
        row = page.locator("tr", has_text=CONFIRM)
        row.get_by_role("button", name="Mark done").click()
        page.get_by_text(f"Mark “{CONFIRM}” done?").wait_for()
        settled(page)
        screenshot(page, "action-done-asks")
        page.get_by_role("link", name="Keep it").click()
        row.get_by_role("button", name="Mark done").wait_for()
        settled(page)
        assert status_of(workspace, CONFIRM) == "pending"

        row.get_by_role("button", name="Mark done").click()
        page.get_by_role("button", name="Yes, mark it done").click()
        row.get_by_text(f"“{CONFIRM}” is done.").wait_for()
        assert row.locator(".badge").inner_text() == "done" and row.get_by_role("button").count() == 0
        assert status_of(workspace, CONFIRM) == "done"
