"""An auditor looks at the past: on a claim's page they pick a moment before the correction, see the claim as it
was (current, no way to change it), and follow the because-chain to its decision while staying at that moment."""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime
from typing import Any

import pytest

from afterhack.as_of import words
from claims.graph import search as search_graph
from tests.e2e.conftest import screenshot
from tests.e2e.test_attention import correct_june_in_the_browser
from workspaces.models import Workspace

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

BANNER = "You are looking at the memory as it was"


def read_only_in_the_past(page: Any, *, status: str, write_link: str, name: str) -> None:
    """The page shows `status` then, without the link `write_link` nor any form that writes; screenshots at 1280
    and 800 pixels wide."""
    assert page.locator("p.meta .badge").first.inner_text() == status
    assert page.get_by_role("link", name=write_link).count() == 0
    assert page.locator("main form[method='post']").count() == 0
    screenshot(page, f"{name}-1280")
    page.set_viewport_size({"width": 800, "height": 900})
    screenshot(page, f"{name}-800")
    page.set_viewport_size({"width": 1280, "height": 800})


class AsOfTests:
    def test_picking_a_moment_on_the_claim_page_and_following_the_chain_in_the_past(
        self, page: Any, demo_workspace: Workspace
    ) -> None:
        workspace = demo_workspace
        june = search_graph.claim_search_phrase(workspace=workspace, phrase="the product launch is in june", limit=1)[0]
        # A whole second after the story was loaded, and a whole second before the correction: the picker's moment.
        # These sleeps are the scenario, not waits for something: the picker reads whole seconds, so time must pass.
        time.sleep(1.1)
        moment = datetime.now(UTC).replace(microsecond=0)
        time.sleep(1.1)
        correct_june_in_the_browser(page, workspace)

        page.goto(f"/w/{workspace.id}/claims/{june.id}/")
        assert page.locator("p.meta .badge").first.inner_text() == "superseded"
        page.get_by_label("As of (UTC)").fill(moment.strftime("%Y-%m-%dT%H:%M:%S"))
        page.get_by_role("button", name="Show").click()
        page.wait_for_url(re.compile(r"\?as_of="))
        banner = page.get_by_role("status", name="Viewing the past")
        assert BANNER in banner.inner_text() and "Nothing can be changed here" in banner.inner_text()
        assert f"as it was on {words(moment.isoformat())}." in banner.inner_text()  # "30 November 2026, 23:51:07 UTC"
        read_only_in_the_past(page, status="current", write_link="Correct this claim", name="as-of-claim")

        # Following the chain keeps the moment: the decision resting on it (through the derived claim), as it was then.
        page.locator("ul.dependents").get_by_role("link", name="Book the May campaign slots").click()
        page.wait_for_url(re.compile(r"/decisions/[^/]+/\?as_of="))
        assert BANNER in page.get_by_role("status", name="Viewing the past").inner_text()
        read_only_in_the_past(page, status="supported", write_link="Re-justify or revise it", name="as-of-decision")

        # ...and on to its action, still at that moment: pending then, held now.
        page.get_by_role("table").get_by_role("link", name="Pay the ad agency deposit").click()
        page.wait_for_url(re.compile(r"/actions/[^/]+/\?as_of="))
        read_only_in_the_past(page, status="pending", write_link="Review it", name="as-of-action")
        assert page.get_by_role("button", name="Mark done").count() == 0
        page.go_back()
        page.wait_for_url(re.compile(r"/decisions/[^/]+/\?as_of="))

        # Back to now: the decision as it is, needing review, with its review.
        page.get_by_role("link", name="Back to now").click()
        page.wait_for_url(re.compile(r"/decisions/[^/?]+/$"))
        assert page.get_by_role("status", name="Viewing the past").count() == 0
        assert page.locator("p.meta .badge").first.inner_text() == "needs review"
        assert page.get_by_role("link", name="Re-justify or revise it").count() == 1
        screenshot(page, "as-of-decision-now-1280")

    def test_the_dashboard_and_a_claim_before_the_workspace_began(self, page: Any, demo_workspace: Workspace) -> None:
        page.goto(f"/w/{demo_workspace.id}/?as_of=2020-01-01")
        assert "at the end of 1 January 2020 (UTC)" in page.get_by_role("status", name="Viewing the past").inner_text()
        screenshot(page, "as-of-dashboard-1280")
        june = search_graph.claim_search_phrase(
            workspace=demo_workspace, phrase="the product launch is in june", limit=1
        )
        answer = page.goto(f"/w/{demo_workspace.id}/claims/{june[0].id}/?as_of=2020-01-01")
        assert answer is not None and answer.status == 404
        assert page.get_by_role("heading", name="This claim did not exist yet").is_visible()
        screenshot(page, "as-of-claim-not-yet-1280")
        page.get_by_role("link", name="See it as it was when added").click()
        page.wait_for_url(re.compile(r"\?as_of="))
        assert page.locator("p.meta .badge").first.inner_text() == "current"
