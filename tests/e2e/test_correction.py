"""A reviewer corrects June to July in the demo: preview (the announcement already sent is named), apply, the
flagged decision in the queue, re-justify."""

from __future__ import annotations

from typing import Any

import pytest

from claims.graph import search as search_graph
from tests.e2e.conftest import preview_correction, screenshot, settled
from workspaces.models import Workspace

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


class CorrectionFlowTests:
    def test_correct_preview_apply_review_and_rejustify(self, page: Any, demo_workspace: Workspace) -> None:
        workspace = demo_workspace
        june = search_graph.claim_search_phrase(workspace=workspace, phrase="the product launch is in june", limit=1)[0]

        page.goto(f"/w/{workspace.id}/claims/{june.id}/")
        page.get_by_role("link", name="Correct this claim").click()
        impact = preview_correction(
            page, "The product launch is in July.", "The board moved the launch on 2 April.", wait_for="#impact"
        )
        needing = impact.locator("div", has_text="Will need review").first.inner_text()
        assert "Book the May campaign slots" in needing and "Announce the June launch" in needing
        still = impact.locator("div", has_text="Still supported").first.inner_text()
        assert "Launch in June" in still and "Northwind expects the launch in June." in still
        assert "Pay the ad agency deposit" in impact.inner_text()
        # The announcement already went out on June: Apply marks it as needing a follow-up.
        assert "Already acted on: Send the launch announcement — done on " in page.locator("#already-done").inner_text()
        screenshot(page, "correction-preview")

        # An edit after the preview disables Apply until the edited correction is previewed.
        page.get_by_label("Corrected statement").fill("The product launch is on 2 July.")
        apply = page.get_by_role("button", name="Apply the correction")
        assert apply.is_disabled()
        assert "preview it again to apply it" in impact.inner_text()
        screenshot(page, "correction-edited-after-preview")
        preview_correction(page, "The product launch is in July.", None, wait_for="#impact")
        assert page.get_by_role("button", name="Apply the correction").is_enabled()

        page.get_by_role("button", name="Apply the correction").click()
        page.wait_for_url("**/corrections/*/")
        assert "The product launch is in July." in page.locator("h1").inner_text()
        screenshot(page, "correction-detail")

        page.goto(f"/w/{workspace.id}/review/")
        item = page.locator(".review-item", has_text="Book the May campaign slots")
        item.wait_for()
        assert "held" in item.inner_text()
        screenshot(page, "review-queue")
        # Nothing is chosen for the reviewer: the claim it rests on now is picked through the search.
        item.get_by_label("Find the claims it rests on now").press_sequentially("campaign starts", delay=30)
        item.locator(".pick-caption", has_text="Claims matching").wait_for()
        item.locator(".pick-results li", has_text="The marketing campaign starts in May.").get_by_role(
            "button", name="Add"
        ).click()
        item.locator("ul.chosen li.chosen-item").wait_for()
        settled(page)
        item.get_by_role("button", name="Re-justify with the chosen claims").click()
        page.get_by_text("is supported again").wait_for()

        page.goto(f"/w/{workspace.id}/actions/")
        row = page.locator("tr", has_text="Pay the ad agency deposit")
        assert "pending" in row.inner_text()
