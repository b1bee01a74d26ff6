"""Suggestions in the history, in a browser: the dashboard counts the suggested correction and the agent's claim
waiting for approval (the Review badge both); the old claim's page lists the suggestion open, then accepted into the
correction, and as of a moment before the decision open again; the timeline's correction names the suggestion.
Screenshots at the desktop width and at 390 px."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from afterhack.clock import now_iso
from claims.services import claims as claims_services
from tests.conftest import api_for
from tests.e2e.test_suggestions import JULY, july_suggested, snap

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def both_widths(page: Any, tmp_path: Path, name: str) -> None:
    snap(page, tmp_path, name)
    page.set_viewport_size({"width": 390, "height": 844})
    snap(page, tmp_path, f"{name}-390")
    page.set_viewport_size({"width": 1280, "height": 800})


class SuggestionHistoryTests:
    def test_the_claim_page_tells_the_suggestions_story_now_and_then(
        self, page: Any, demo_workspace: Any, tmp_path: Path
    ) -> None:
        workspace = demo_workspace
        workspace.agent_claims_need_approval = True
        workspace.save(update_fields=["agent_claims_need_approval"])
        admin, email, suggestion = july_suggested(workspace)
        claims_services.claim_add(
            workspace=workspace, source_id=email, statement="The certification slipped.",
            evidence_quote="the certification slipped", actor=admin, by_agent=True,
        )  # fmt: skip
        page.goto(f"/w/{workspace.id}/")
        attention = " ".join(page.locator("ul.counts.attention").inner_text().split())
        assert "1 suggested correction" in attention and "1 claim awaits approval" in attention
        assert page.get_by_role("link", name="Review, 2 need attention").is_visible()
        both_widths(page, tmp_path, "history-dashboard-awaiting")
        page.locator("main a", has_text="claim awaits approval").click()
        page.wait_for_url("**/review/#proposed")

        page.goto(f"/w/{workspace.id}/claims/{suggestion.claim_id}/")
        listed = page.locator(f"#suggestion-{suggestion.id}")
        said = listed.inner_text()
        assert "suggested correcting it to “" + JULY + "”" in said
        assert "found by the contradiction rule" in said and "waiting for a reviewer" in said
        both_widths(page, tmp_path, "history-claim-open")

        decided_before = now_iso()
        api = api_for(admin)
        previewed = api.post(f"/workspaces/{workspace.id}/suggestions/{suggestion.id}/preview", {})
        assert previewed.status_code == 200, previewed.content
        plan = previewed.json()
        body = {"statement": plan["statement"], "reason": "Ana's email says July.", "revision": plan["revision"],
                "idempotency_key": "history-1", "suggestion_id": suggestion.id}  # fmt: skip
        applied = api.post(f"/workspaces/{workspace.id}/claims/{suggestion.claim_id}/corrections", body)
        assert applied.status_code == 201, applied.content

        page.goto(f"/w/{workspace.id}/claims/{suggestion.claim_id}/")
        listed = page.locator(f"#suggestion-{suggestion.id}")
        assert "made into a correction" in listed.inner_text()
        both_widths(page, tmp_path, "history-claim-accepted")
        listed.get_by_role("link", name="a correction").click()
        page.wait_for_url("**/corrections/*/")
        assert "It accepted a suggested correction" in page.locator("main").inner_text()

        page.goto(f"/w/{workspace.id}/claims/{suggestion.claim_id}/?as_of={decided_before}")
        listed = page.locator(f"#suggestion-{suggestion.id}")
        assert "no reviewer had answered it yet" in listed.inner_text()
        assert listed.get_by_role("link", name="a correction").count() == 0
        both_widths(page, tmp_path, "history-claim-as-of-open")

        page.goto(f"/w/{workspace.id}/timeline/")
        row = page.locator("table.timeline tr", has_text="from a suggested correction").first
        assert "found by the contradiction rule" in row.inner_text()
        both_widths(page, tmp_path, "history-timeline-suggested")
