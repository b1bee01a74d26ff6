"""The suggestions' JSON API on real stores: the list (open by default, by status and kind, paged), one, turning
one down (reviewers only, audited, 409 once decided) and flagging a contradiction with an exact quote; every refusal
is in words and leaves nothing stored."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Trio, api_for
from tests.corrections.test_suggestions_watch import EMAIL, JULY, Launch, committed, launch, suggestions_stored
from tests.corrections.test_suggestions_watch import found as found  # the fixture: the suggestion July made
from workspaces.models import AuditEvent
from workspaces.services import workspaces as workspace_services

pytestmark = pytest.mark.django_db

__all__ = ["committed", "launch"]  # fixtures


def flag(launch: Launch, claim_id: str, user: Any = None, **body: Any) -> Any:
    payload = {"source_id": launch.email, "quote": JULY, "statement": JULY, **body}
    return api_for(user or launch.trio.reviewer).post(
        f"/workspaces/{launch.ws}/claims/{claim_id}/contradictions", payload
    )


class ListAndGetTests:
    def test_the_list_is_open_by_default_and_filters_by_status_and_kind(
        self, launch: Launch, found: dict[str, Any]
    ) -> None:
        client = api_for(launch.trio.viewer)
        base = f"/workspaces/{launch.ws}/suggestions"
        page = client.get(base).json()
        assert page["count"] == 1 and page["next"] is None and page["results"][0]["id"] == found["id"]
        assert client.get(base + "?status=open&kind=contradiction").json()["count"] == 1
        assert client.get(base + "?kind=agent_claim").json()["count"] == 0
        assert client.get(base + "?status=rejected").json()["count"] == 0
        refused = client.get(base + "?status=maybe")
        assert refused.status_code == 422 and "open" in refused.json()["detail"]

    def test_pages_follow_on_newest_first(self, launch: Launch, found: dict[str, Any]) -> None:
        other = launch.claim(launch.plan, "The launch budget is 40k.")  # the same claim again: no new one
        assert other == launch.budget
        flagged = flag(launch, launch.budget, quote="The launch is in July.", statement="The launch budget is 50k.")
        assert flagged.status_code == 201, flagged.content
        client = api_for(launch.trio.viewer)
        first = client.get(f"/workspaces/{launch.ws}/suggestions?limit=1").json()
        assert first["count"] == 2 and first["results"][0]["id"] == flagged.json()["id"]
        second = client.get(f"/workspaces/{launch.ws}/suggestions?limit=1&cursor={first['next']}").json()
        assert [s["id"] for s in second["results"]] == [found["id"]] and second["next"] is None

    def test_one_suggestion_and_a_404_for_another_workspaces(self, launch: Launch, found: dict[str, Any]) -> None:
        got = api_for(launch.trio.viewer).get(f"/workspaces/{launch.ws}/suggestions/{found['id']}")
        assert got.status_code == 200 and got.json() == found
        elsewhere = workspace_services.workspace_create(name="Elsewhere", creator=launch.trio.owner)
        missing = api_for(launch.trio.owner).get(f"/workspaces/{elsewhere.id}/suggestions/{found['id']}")
        assert missing.status_code == 404 and "suggestion" in missing.json()["detail"]
        assert api_for(launch.trio.outsider).get(f"/workspaces/{launch.ws}/suggestions").status_code == 404


class RejectTests:
    def test_a_reviewer_turns_it_down_once_with_a_reason(self, launch: Launch, found: dict[str, Any]) -> None:
        path = f"/workspaces/{launch.ws}/suggestions/{found['id']}/reject"
        assert api_for(launch.trio.viewer).post(path, {}).status_code == 403
        rejected = api_for(launch.trio.reviewer).post(path, {"reason": "Two launches.", "both_hold": True})
        assert rejected.status_code == 200, rejected.content
        body = rejected.json()
        assert body["status"] == "rejected" and body["both_hold"] is True and body["decision_reason"] == "Two launches."
        assert body["decided_by"] == "rita" and body["decided_at"]
        event = AuditEvent.objects.get(verb="suggestion.rejected")
        assert event.payload["suggestion_id"] == found["id"] and event.payload["claim_id"] == launch.june
        again = api_for(launch.trio.reviewer).post(path, {})
        assert again.status_code == 409 and again.json()["error"] == "conflict"
        assert "already turned down" in again.json()["detail"]
        assert AuditEvent.objects.filter(verb="suggestion.rejected").count() == 1

    def test_an_obsolete_suggestion_cannot_be_turned_down(self, launch: Launch, found: dict[str, Any]) -> None:
        retracted = api_for(launch.trio.reviewer).post(f"/workspaces/{launch.ws}/sources/{launch.email}/retract")
        assert retracted.status_code == 200
        refused = api_for(launch.trio.reviewer).post(f"/workspaces/{launch.ws}/suggestions/{found['id']}/reject", {})
        assert refused.status_code == 409 and "obsolete" in refused.json()["detail"]
        assert not AuditEvent.objects.filter(verb="suggestion.rejected").exists()

    def test_a_bad_body_is_refused_in_words(self, launch: Launch, found: dict[str, Any]) -> None:
        path = f"/workspaces/{launch.ws}/suggestions/{found['id']}/reject"
        refused = api_for(launch.trio.reviewer).post(path, {"both_hold": "yes"})
        assert refused.status_code == 422 and "both_hold" in refused.json()["detail"]
        assert launch.suggestions()[0]["status"] == "open"


class FlagTests:
    def test_a_person_flags_a_contradiction_with_an_exact_quote(self, launch: Launch) -> None:
        flagged = flag(launch, launch.june)
        assert flagged.status_code == 201, flagged.content
        body, start = flagged.json(), EMAIL.index(JULY)
        assert body["claim_id"] == launch.june and body["by_claim_id"] is None and body["status"] == "open"
        assert body["found_by"] == "person" and body["statement"] == JULY
        assert body["evidence"] == {"source_id": launch.email, "quote": JULY, "start": start, "end": start + len(JULY)}
        assert AuditEvent.objects.get(verb="suggestion.flagged").payload["suggestion_id"] == body["id"]
        again = flag(launch, launch.june)
        assert again.status_code == 200 and again.json()["id"] == body["id"]
        assert suggestions_stored(launch.trio) == 1

    def test_every_refusal_is_in_words_and_stores_nothing(self, launch: Launch, trio: Trio, committed: Any) -> None:
        paraphrased = flag(launch, launch.june, quote="The launch moved to July.")
        assert paraphrased.status_code == 422 and paraphrased.json()["error"] == "evidence_not_found"
        assert paraphrased.json()["reason"] == "not_found"
        elsewhere = workspace_services.workspace_create(name="Elsewhere", creator=trio.owner)
        foreign = api_for(trio.owner).post(
            f"/workspaces/{elsewhere.id}/claims/{launch.june}/contradictions",
            {"source_id": launch.email, "quote": JULY, "statement": JULY},
        )
        assert foreign.status_code == 404 and "claim" in foreign.json()["detail"]
        unchanged = flag(launch, launch.june, quote="The launch is in June.", source_id=launch.plan,
                         statement="the launch is in june")  # fmt: skip
        assert unchanged.status_code == 422 and "says the same" in unchanged.json()["detail"]
        assert flag(launch, launch.june, user=trio.viewer).status_code == 403
        assert flag(launch, launch.june, statement="").status_code == 422
        launch.correct(launch.june, "The launch is in August.", committed)
        superseded = flag(launch, launch.june)
        assert superseded.status_code == 409 and superseded.json()["error"] == "claim_not_current"
        assert suggestions_stored(trio) == 0
        assert not AuditEvent.objects.filter(verb="suggestion.flagged").exists()
