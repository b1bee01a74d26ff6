"""A reviewer's day starts at the dashboard: after a correction it says what needs attention, each count opens the
list of exactly those, the menu carries the same counts, and a held action's page says why it is held."""

from __future__ import annotations

import re
from typing import Any

import pytest

from claims.graph import search as search_graph
from tests.e2e.conftest import preview_correction, screenshot, settled
from workspaces.models import Workspace

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

DEPOSIT = "Pay the ad agency deposit"
BOOKING = "Book the May campaign slots"
ANNOUNCING = "Announce the June launch"
ANNOUNCEMENT = "Send the launch announcement"


def correct_june_in_the_browser(page: Any, workspace: Workspace) -> None:
    june = search_graph.claim_search_phrase(workspace=workspace, phrase="the product launch is in june", limit=1)[0]
    page.goto(f"/w/{workspace.id}/claims/{june.id}/")
    page.get_by_role("link", name="Correct this claim").click()
    preview_correction(page, "The product launch is in July.", "The board moved the launch.", wait_for="#impact")
    page.get_by_role("button", name="Apply the correction").click()
    page.wait_for_url("**/corrections/*/")


def opens_exactly(page: Any, attention: Any, count: str, address: str, items: str, *titles: str) -> None:
    """Follows the dashboard's `count` link to `address`, whose list of `items` shows exactly those titled `titles`."""
    attention.get_by_role("link", name=count).click()
    page.wait_for_url(re.compile(address))
    shown = page.locator(items)
    shown.first.wait_for()
    assert shown.count() == len(titles)
    assert all(shown.filter(has_text=title).count() == 1 for title in titles)


class DashboardAttentionTests:
    def test_after_a_correction_the_dashboard_counts_link_to_exactly_what_needs_attention(
        self, page: Any, demo_workspace: Workspace
    ) -> None:
        workspace = demo_workspace
        page.goto(f"/w/{workspace.id}/")
        attention = page.get_by_role("region", name="Needs attention")
        attention.get_by_role("link", name="0 decisions that lost support").wait_for()
        menu = page.get_by_role("navigation", name="Workspace")
        assert menu.get_by_role("link", name="Review").count() == 1
        screenshot(page, "dashboard-calm")

        correct_june_in_the_browser(page, workspace)
        page.goto(f"/w/{workspace.id}/")
        attention.get_by_role("link", name="2 decisions that lost support").wait_for()
        assert attention.get_by_role("link", name="1 held action").is_visible()
        assert attention.get_by_role("link", name="1 done action needs a follow-up").is_visible()
        assert attention.get_by_role("link", name="1 correction in the last 7 days").is_visible()
        # The menu says it too, in words a screen reader reads out.
        assert menu.get_by_role("link", name="Review, 3 need attention").is_visible()
        assert menu.get_by_role("link", name="Actions, 1 held").is_visible()
        assert page.get_by_text(re.compile(r"revision", re.I)).count() == 0
        screenshot(page, "dashboard-needs-attention")

        opens_exactly(page, attention, "1 held action", r"/actions/\?status=held$", "#actions-list tbody tr", DEPOSIT)
        screenshot(page, "dashboard-held-actions")
        page.go_back()
        opens_exactly(
            page, attention, "2 decisions that lost support", r"/review/#lost-support$",
            ".review-item:not(.acted-on)", BOOKING, ANNOUNCING,
        )  # fmt: skip
        screenshot(page, "dashboard-lost-support")
        page.go_back()
        opens_exactly(
            page, attention, "1 done action needs a follow-up", r"/review/#acted-on$", ".acted-on", ANNOUNCEMENT
        )
        screenshot(page, "dashboard-acted-on")

    def test_a_held_actions_page_says_why_and_links_its_decision_and_the_correction(
        self, page: Any, demo_workspace: Workspace
    ) -> None:
        workspace = demo_workspace
        correct_june_in_the_browser(page, workspace)
        page.goto(f"/w/{workspace.id}/actions/")
        page.get_by_role("link", name=DEPOSIT).click()
        page.get_by_role("heading", name=DEPOSIT, level=1).wait_for()
        why = page.get_by_role("region", name="Where it stands")
        assert "Held: it waits until every decision it depends on is supported again." in why.inner_text()
        assert why.get_by_role("link", name=BOOKING).is_visible()
        screenshot(page, "action-page-held")

        why.get_by_role("link", name=re.compile(r"^correction by admin on ")).click()
        page.wait_for_url("**/corrections/*/")
        page.get_by_role("link", name=DEPOSIT).click()
        page.get_by_role("heading", name=DEPOSIT, level=1).wait_for()

        # Cancelling it from its own page asks first, then comes back to the page with the new status.
        page.get_by_role("button", name="Cancel").click()
        page.get_by_role("button", name="Yes, cancel it").click()
        page.get_by_role("heading", name=DEPOSIT, level=1).wait_for()
        settled(page)
        assert page.locator(".meta .badge").first.inner_text() == "cancelled"
        # Its decision still needs review, so the page says when it can be reopened instead of offering it.
        stands = page.get_by_role("region", name="Where it stands").inner_text()
        assert "reopened once every decision it depends on is supported again" in stands and "Reopen" not in stands
        screenshot(page, "action-page-cancelled")
