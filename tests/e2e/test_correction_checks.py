"""What a reviewer is shown around a correction: a remaining support that restates the corrected fact, and a
second tab that opened the correction before another one was applied (issue cases 3 and 5)."""

from __future__ import annotations

from typing import Any

import pytest

from claims.graph import search as search_graph
from tests.e2e.conftest import preview_correction, screenshot
from workspaces.models import Workspace

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


class CorrectionChecksTests:
    def test_restating_support_flagged_and_second_tab_told_what_happened(
        self, page: Any, demo_workspace: Workspace
    ) -> None:
        workspace = demo_workspace
        june = search_graph.claim_search_phrase(workspace=workspace, phrase="the product launch is in june", limit=1)[0]
        correct_url = f"/w/{workspace.id}/claims/{june.id}/correct"
        second_tab = page.context.new_page()
        second_tab.goto(correct_url)

        page.goto(correct_url)
        check = preview_correction(
            page, "The product launch is in July.", "The board moved the launch on 2 April.", wait_for="#restating"
        )
        words = check.inner_text()
        assert "Still supported — but check" in words
        assert "Launch in June" in words and "Northwind expects the launch in June" in words
        assert "Confirm the launch date with Northwind" in words and "pending" in words
        check.scroll_into_view_if_needed()
        screenshot(page, "correction-restating-check")
        page.get_by_role("button", name="Apply the correction").click()
        page.wait_for_url("**/corrections/*/")

        # The second tab still shows the form it opened with; its preview is refused and says what happened.
        preview_correction(second_tab, "The product launch is in August.", "Other tab.", wait_for="#claim-fate")
        told = second_tab.locator("main").inner_text()
        assert "already superseded" in told and "Corrected" in told and "by admin" in told
        assert "The board moved the launch on 2 April." in told and "The product launch is in July." in told
        assert second_tab.get_by_role("button", name="Preview the impact").count() == 0
        screenshot(second_tab, "correction-second-tab")
        second_tab.get_by_role("link", name="Open the claim that replaced it").click()
        second_tab.wait_for_url("**/claims/*/")
        assert "The product launch is in July." in second_tab.locator("h1").inner_text()

        page.goto(f"/w/{workspace.id}/claims/{june.id}/")
        assert page.locator("#claim-fate").is_visible()
        assert page.get_by_role("link", name="Correct this claim").count() == 0
        screenshot(page, "claim-superseded")
