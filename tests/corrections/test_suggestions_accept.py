"""Accepting a suggested correction over the API on real stores: its preview, the correction that cites the
suggestion's passage and sets it accepted in the same write, correcting the other claim instead, the PROV export
naming it; every refusal in words and nothing stored."""

from __future__ import annotations

from typing import Any

import pytest

from afterhack import graph
from corrections.models import CorrectionIntent
from corrections.services import accept as accept_services
from corrections.services import suggestions as suggestions_services
from tests.conftest import api_for
from tests.corrections.test_suggestions_watch import EMAIL, PLAN, Launch, committed, launch
from tests.corrections.test_suggestions_watch import found as found  # the fixture: the suggestion July made
from workspaces.models import AuditEvent
from workspaces.services import workspaces as workspace_services

pytestmark = pytest.mark.django_db

__all__ = ["committed", "launch"]  # fixtures

JULY = "The launch is in July."
JUNE = "The launch is in June."


def preview(launch: Launch, suggestion_id: str, **body: Any) -> Any:
    return api_for(launch.trio.reviewer).post(f"/workspaces/{launch.ws}/suggestions/{suggestion_id}/preview", body)


def apply(launch: Launch, claim_id: str, committed: Any, **body: Any) -> Any:
    with committed(execute=True):
        return api_for(launch.trio.reviewer).post(f"/workspaces/{launch.ws}/claims/{claim_id}/corrections", body)


def body_from(previewed: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"statement": previewed["statement"], "reason": "The email says July.", "revision": previewed["revision"],
            "idempotency_key": "accept-1", "suggestion_id": previewed["suggestion_id"], **extra}  # fmt: skip


def nothing_stored(launch: Launch, found: dict[str, Any]) -> None:
    assert launch.suggestions("open") == [found] or [s["id"] for s in launch.suggestions("open")] == [found["id"]]
    assert graph.ro_query(launch.trio.workspace, "MATCH (c:Correction) RETURN count(c)")[0][0] == 0
    assert not CorrectionIntent.objects.exists()
    assert not AuditEvent.objects.filter(verb="correction.applied").exists()


class AcceptTests:
    def test_correct_it_end_to_end(self, launch: Launch, found: dict[str, Any], committed: Any) -> None:
        previewed = preview(launch, found["id"])
        assert previewed.status_code == 200, previewed.content
        plan = previewed.json()
        start = EMAIL.index(JULY)
        assert plan["claim_id"] == launch.june and plan["statement"] == JULY and plan["suggestion_id"] == found["id"]
        assert plan["evidence"] == {"source_id": launch.email, "quote": JULY, "start": start, "end": start + len(JULY)}
        assert set(plan["affected"]) == {"decisions_needing_review", "decisions_still_supported", "actions_held",
                                         "claims_unsupported", "actions_already_done"}  # fmt: skip
        applied = apply(launch, launch.june, committed, **body_from(plan))
        assert applied.status_code == 201, applied.content
        outcome = applied.json()
        client = api_for(launch.trio.viewer)
        old = client.get(f"/workspaces/{launch.ws}/claims/{launch.june}").json()
        assert old["status"] == "superseded"
        replacement = client.get(f"/workspaces/{launch.ws}/claims/{outcome['replacement_claim_id']}").json()
        assert replacement["statement"] == JULY
        cited = replacement["cited_passage"]
        assert cited["source_id"] == launch.email and cited["quote"] == JULY and cited["start"] == start
        [accepted] = launch.suggestions("accepted")
        assert accepted["id"] == found["id"] and accepted["correction_id"] == outcome["correction_id"]
        assert accepted["decided_by"] == "rita" and accepted["decided_at"]
        assert launch.suggestions("obsolete") == [] and launch.suggestions("open") == []
        event = AuditEvent.objects.get(verb="correction.applied")
        assert event.payload["suggestion_id"] == found["id"] and event.payload["evidence"]["quote"] == JULY
        # The same key and suggestion replay; another suggestion with that key is another correction.
        again = apply(launch, launch.june, committed, **body_from(plan))
        assert again.status_code == 200 and again.json()["status"] == "already_applied"
        prov = client.get(f"/workspaces/{launch.ws}/prov?root={outcome['replacement_claim_id']}&format=json")
        assert prov.status_code == 200, prov.content
        text = prov.content.decode()
        assert found["id"] in text and "ah:Suggestion" in text and found["by_claim_id"] in text

    def test_a_key_used_with_another_suggestion_is_refused(
        self, launch: Launch, found: dict[str, Any], committed: Any
    ) -> None:
        flagged = api_for(launch.trio.reviewer).post(
            f"/workspaces/{launch.ws}/claims/{launch.june}/contradictions",
            {"source_id": launch.email, "quote": JULY, "statement": "The launch is on 3 July."},
        )
        assert flagged.status_code == 201, flagged.content
        plan = preview(launch, found["id"]).json()
        assert apply(launch, launch.june, committed, **body_from(plan)).status_code == 201
        reused = apply(launch, launch.june, committed, **body_from(plan, suggestion_id=flagged.json()["id"]))
        assert reused.status_code == 422 and reused.json()["error"] == "idempotency_key_reused"
        without = apply(launch, launch.june, committed, **{**body_from(plan), "suggestion_id": None})
        assert without.status_code == 422 and "suggestion" in without.json()["detail"]

    def test_correct_the_other_one(self, launch: Launch, found: dict[str, Any], committed: Any) -> None:
        previewed = preview(launch, found["id"], other=True)
        assert previewed.status_code == 200, previewed.content
        plan = previewed.json()
        start = PLAN.index(JUNE)
        assert plan["claim_id"] == found["by_claim_id"] and plan["statement"] == JUNE
        assert plan["evidence"]["source_id"] == launch.plan and plan["evidence"]["start"] == start
        applied = apply(launch, found["by_claim_id"], committed, **body_from(plan, reason="The plan stands."))
        assert applied.status_code == 201, applied.content
        [accepted] = launch.suggestions("accepted")
        assert accepted["correction_id"] == applied.json()["correction_id"]
        client = api_for(launch.trio.viewer)
        assert client.get(f"/workspaces/{launch.ws}/claims/{launch.june}").json()["status"] == "current"
        july = client.get(f"/workspaces/{launch.ws}/claims/{found['by_claim_id']}").json()
        assert july["status"] == "superseded"
        replacement = client.get(f"/workspaces/{launch.ws}/claims/{applied.json()['replacement_claim_id']}").json()
        assert (
            replacement["cited_passage"]["quote"] == JUNE and replacement["cited_passage"]["source_id"] == launch.plan
        )

    def test_a_given_statement_is_previewed_instead(self, launch: Launch, found: dict[str, Any]) -> None:
        plan = preview(launch, found["id"], statement="The launch is on 3 July.").json()
        assert plan["statement"] == "The launch is on 3 July." and plan["evidence"]["quote"] == JULY


class RefusalTests:
    def test_every_refusal_is_in_words_and_stores_nothing(
        self, launch: Launch, found: dict[str, Any], committed: Any
    ) -> None:
        plan = preview(launch, found["id"]).json()
        unknown = apply(launch, launch.june, committed, **body_from(plan, suggestion_id=launch.plan))
        assert unknown.status_code == 404 and "suggestion" in unknown.json()["detail"]
        malformed = apply(launch, launch.june, committed, **body_from(plan, suggestion_id="nope"))
        assert malformed.status_code == 422 and "suggestion_id" in malformed.json()["detail"]
        elsewhere = apply(launch, launch.budget, committed, **body_from(plan, statement="The launch budget is 9k."))
        assert elsewhere.status_code == 422 and "another claim" in elsewhere.json()["detail"]
        plan_quote = {"source_id": launch.plan, "quote": JUNE}
        differs = apply(launch, launch.june, committed, **body_from(plan, evidence=plan_quote))
        assert differs.status_code == 422 and "differs" in differs.json()["detail"]
        nothing_stored(launch, found)
        ws = launch.trio.workspace
        other_ws = workspace_services.workspace_create(name="Elsewhere", creator=launch.trio.owner)
        foreign = api_for(launch.trio.owner).post(f"/workspaces/{other_ws.id}/suggestions/{found['id']}/preview", {})
        assert foreign.status_code == 404
        assert (
            api_for(launch.trio.viewer).post(f"/workspaces/{ws.id}/suggestions/{found['id']}/preview", {}).status_code
            == 403
        )
        bad = preview(launch, found["id"], other="yes")
        assert bad.status_code == 422 and "other" in bad.json()["detail"]

    def test_a_suggestion_not_open_is_refused(self, launch: Launch, found: dict[str, Any], committed: Any) -> None:
        plan = preview(launch, found["id"]).json()
        rejected = api_for(launch.trio.reviewer).post(f"/workspaces/{launch.ws}/suggestions/{found['id']}/reject", {})
        assert rejected.status_code == 200
        again = preview(launch, found["id"])
        assert again.status_code == 409 and again.json()["error"] == "conflict"
        assert "already turned down" in again.json()["detail"]
        refused = apply(launch, launch.june, committed, **body_from(plan))
        assert refused.status_code == 409 and "only an open suggestion can be accepted" in refused.json()["detail"]
        assert graph.ro_query(launch.trio.workspace, "MATCH (c:Correction) RETURN count(c)")[0][0] == 0
        assert not CorrectionIntent.objects.exists()
        assert launch.suggestions("rejected")[0]["correction_id"] is None

    def test_a_flag_has_no_other_claim_to_correct(self, launch: Launch) -> None:
        flagged = (
            api_for(launch.trio.reviewer)
            .post(
                f"/workspaces/{launch.ws}/claims/{launch.june}/contradictions",
                {"source_id": launch.email, "quote": JULY, "statement": JULY},
            )
            .json()
        )
        refused = preview(launch, flagged["id"], other=True)
        assert refused.status_code == 422 and "no other claim" in refused.json()["detail"]


class SameWriteTests:
    def test_a_suggestion_turned_down_after_the_check_stops_the_write(
        self, launch: Launch, found: dict[str, Any], committed: Any, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """The graph write itself requires the suggestion open: turned down between Apply's check and its write
        (another reviewer, at that moment), nothing is written and the refusal says why."""
        plan = preview(launch, found["id"]).json()
        checks: list[str] = []
        real = accept_services.require_open

        def turned_down_meanwhile(*, workspace: Any, suggestion_id: str, by: str) -> None:
            checks.append(suggestion_id)
            if len(checks) == 1:  # Apply's check passes; then another reviewer turns it down
                suggestions_services.suggestion_reject(
                    workspace=workspace, suggestion_id=suggestion_id, actor=launch.trio.owner
                )
                return
            real(workspace=workspace, suggestion_id=suggestion_id, by=by)

        monkeypatch.setattr(accept_services, "require_open", turned_down_meanwhile)
        refused = apply(launch, launch.june, committed, **body_from(plan))
        assert refused.status_code == 409 and "already turned down" in refused.json()["detail"]
        assert len(checks) == 2
        assert graph.ro_query(launch.trio.workspace, "MATCH (c:Correction) RETURN count(c)")[0][0] == 0
        assert api_for(launch.trio.viewer).get(f"/workspaces/{launch.ws}/claims/{launch.june}").json()["status"] == (
            "current"
        )
        assert CorrectionIntent.objects.get().state == "refused"
