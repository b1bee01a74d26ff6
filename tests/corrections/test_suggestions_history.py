"""Suggestions in a claim's history, on real stores: the claim page lists the suggestions about the claim and by it
(who or what found it, when, its status, who decided it and how: accepted into a correction, turned down with the
reason, closed by itself, an agent's claim approved), each as it stood at the page's moment (open before it was
decided, absent before it was found); the timeline says a correction came from a suggestion."""

from __future__ import annotations

from typing import Any

import pytest

from afterhack.clock import now_iso
from corrections.selectors import suggestion_history
from tests.conftest import api_for, client_for
from tests.corrections.test_agent_claims import agent_claim, agent_suggestions, approve, need_approval
from tests.corrections.test_suggestions_accept import apply, body_from, preview
from tests.corrections.test_suggestions_pages import text
from tests.corrections.test_suggestions_watch import JULY, Launch, committed, found, launch

pytestmark = pytest.mark.django_db

__all__ = ["committed", "found", "launch"]  # fixtures

HEADING = "Suggestions about it or by it"


def claim_page(launch: Launch, claim_id: str, as_of: str = "") -> tuple[str, str]:
    """The claim page (as of the moment, if one is given): its HTML, and its section of suggestions as read."""
    response = client_for(launch.trio.viewer).get(
        f"/w/{launch.ws}/claims/{claim_id}/", {"as_of": as_of} if as_of else {}
    )
    assert response.status_code == 200, response.content[:2000]
    body = response.content.decode()
    read = text(body)
    if HEADING not in read:
        return body, ""
    section = read[read.index(HEADING) :]
    return body, section[: section.index("Changes of its status")]


def accept(launch: Launch, found: dict[str, Any], committed: Any) -> dict[str, Any]:
    """Correct it: the correction that accepts the suggestion, over the API."""
    previewed = preview(launch, found["id"])
    assert previewed.status_code == 200, previewed.content
    applied = apply(launch, launch.june, committed, **body_from(previewed.json()))
    assert applied.status_code == 201, applied.content
    return dict(applied.json())


class ClaimHistoryTests:
    def test_a_suggestion_found_shows_on_the_claim_it_would_correct_and_on_the_one_that_says_otherwise(
        self, launch: Launch, found: dict[str, Any]
    ) -> None:
        body, about = claim_page(launch, launch.june)
        assert (
            f"suggested correcting it to “{JULY}” ( the claim that says otherwise ), found by the contradiction"
            in about
        )
        assert f"found by the contradiction rule (a different date): {found['reason']}" in about
        assert "open waiting for a reviewer" in about
        assert f'href="/w/{launch.ws}/claims/{found["by_claim_id"]}/"' in body
        assert f'href="/w/{launch.ws}/review/#suggested"' in body
        body, by = claim_page(launch, found["by_claim_id"])
        assert (
            "it says otherwise than “The launch is in June.” , and correcting that claim was suggested, found by" in by
        )
        assert f'href="/w/{launch.ws}/claims/{launch.june}/"' in body
        # A claim the suggestion does not name has no such section.
        assert claim_page(launch, launch.budget)[1] == ""

    def test_accepted_it_links_the_correction_and_as_of_before_it_was_decided_it_was_open(
        self, launch: Launch, committed: Any
    ) -> None:
        before = now_iso()
        with committed(execute=True):
            launch.claim(launch.email, JULY)
        [found] = launch.suggestions()
        between = now_iso()
        outcome = accept(launch, found, committed)
        body, now = claim_page(launch, launch.june)
        assert "accepted" in now and "by rita: made into a correction" in now
        assert f'href="/w/{launch.ws}/corrections/{outcome["correction_id"]}/"' in body
        body, then = claim_page(launch, launch.june, as_of=between)
        assert f"suggested correcting it to “{JULY}”" in then and "open then: no reviewer had answered it yet" in then
        listed = body[body.index('id="suggestions"') : body.index("Changes of its status")]
        assert "made into a correction" not in then and "/corrections/" not in listed
        # Its link to the claim that says otherwise stays in the past.
        assert f"/claims/{found['by_claim_id']}/?as_of=" in listed
        assert claim_page(launch, launch.june, as_of=before)[1] == ""
        # The timeline's row of the correction says where it came from.
        timeline = text(client_for(launch.trio.viewer).get(f"/w/{launch.ws}/timeline/").content.decode())
        assert f"correction: “{JULY}”, from a suggested correction found by the contradiction rule" in timeline

    def test_turned_down_it_says_by_whom_how_and_why(self, launch: Launch, found: dict[str, Any]) -> None:
        found_at = now_iso()
        client_for(launch.trio.reviewer).post(
            f"/w/{launch.ws}/suggestions/{found['id']}/reject", {"verdict": "both_hold", "reason": "Two launches."}
        )
        _, now = claim_page(launch, launch.june)
        assert "rejected" in now and "by rita: both hold (“Two launches.”); that pair is never suggested again" in now
        _, then = claim_page(launch, launch.june, as_of=found_at)
        assert "open then" in then and "Two launches." not in then and "rejected" not in then

    def test_closed_by_itself_when_a_claim_stopped_being_current(self, launch: Launch, found: dict[str, Any]) -> None:
        response = api_for(launch.trio.reviewer).post(f"/workspaces/{launch.ws}/sources/{launch.email}/retract")
        assert response.status_code == 200, response.content
        _, now = claim_page(launch, launch.june)
        assert "obsolete" in now and "closed by itself when one of its claims stopped being current" in now

    def test_an_agents_claim_waiting_then_approved(self, launch: Launch, committed: Any) -> None:
        need_approval(launch)
        july = agent_claim(launch)
        body, waiting = claim_page(launch, july)
        assert "proposed by an agent" in waiting and "open waiting for a reviewer" in waiting
        assert f'href="/w/{launch.ws}/review/#proposed"' in body
        proposed_at = now_iso()
        [suggestion] = agent_suggestions(launch)
        with committed(execute=True):
            assert approve(launch, suggestion["id"]).status_code == 200
        _, approved = claim_page(launch, july)
        assert "approved" in approved and "by rita: the claim became current" in approved
        _, then = claim_page(launch, july, as_of=proposed_at)
        assert "open then" in then and "the claim became current" not in then

    def test_a_claim_lists_its_newest_suggestions_only(self, launch: Launch, found: dict[str, Any]) -> None:
        read = suggestion_history.claim_suggestions(workspace=launch.trio.workspace, claim_id=launch.june, limit=0)
        assert read.items == [] and read.more
        read = suggestion_history.claim_suggestions(workspace=launch.trio.workspace, claim_id=launch.june)
        assert [item.suggestion.id for item in read.items] == [found["id"]] and not read.more
        assert suggestion_history.claim_suggestions(workspace=launch.trio.workspace, claim_id="not an id").items == []
