"""A suggestion's passage after its source changes, on real stores: one found between two claims is accepted citing
the newer claim as it is now (a new version moved its quote); a flag moves with its quote to a new version, or
becomes obsolete when the new text lacks it or the source is retracted."""

from __future__ import annotations

from typing import Any

import pytest

from afterhack import graph
from tests.conftest import api_for
from tests.corrections.test_suggestions_watch import EMAIL, JULY, Launch, committed, launch
from tests.corrections.test_suggestions_watch import found as found  # the fixture: the suggestion July made

pytestmark = pytest.mark.django_db

__all__ = ["committed", "launch"]  # fixtures

# The email again, with a line before it: every quote of it moves.
FORWARDED = "Fwd: launch news\n" + EMAIL
NO_JULY = "From Ana, on Monday: the date has not moved after all.\n"


def new_version(launch: Launch, text: str) -> None:
    added = api_for(launch.trio.reviewer).post(f"/workspaces/{launch.ws}/sources/{launch.email}/versions",
                                               {"text": text})  # fmt: skip
    assert added.status_code == 201, added.content


def flag(launch: Launch) -> dict[str, Any]:
    """Rita flags June's claim with the email's July sentence (no claim of July exists)."""
    flagged = api_for(launch.trio.reviewer).post(
        f"/workspaces/{launch.ws}/claims/{launch.june}/contradictions",
        {"source_id": launch.email, "quote": JULY, "statement": JULY},
    )
    assert flagged.status_code == 201, flagged.content
    return dict(flagged.json())


def now(launch: Launch, suggestion_id: str) -> dict[str, Any]:
    return dict(api_for(launch.trio.viewer).get(f"/workspaces/{launch.ws}/suggestions/{suggestion_id}").json())


def accept(launch: Launch, suggestion_id: str, claim_id: str, committed: Any) -> dict[str, Any]:
    """Olivia previews and applies the suggestion (the flags here are rita's); the replacement's cited passage."""
    client = api_for(launch.trio.owner)
    plan = client.post(f"/workspaces/{launch.ws}/suggestions/{suggestion_id}/preview", {})
    assert plan.status_code == 200, plan.content
    body = {"statement": plan.json()["statement"], "reason": "The email says July.",
            "revision": plan.json()["revision"], "idempotency_key": "accept", "suggestion_id": suggestion_id}  # fmt: skip
    with committed(execute=True):
        applied = client.post(f"/workspaces/{launch.ws}/claims/{claim_id}/corrections", body)
    assert applied.status_code == 201, applied.content
    replacement = client.get(f"/workspaces/{launch.ws}/claims/{applied.json()['replacement_claim_id']}").json()
    assert now(launch, suggestion_id)["status"] == "accepted"
    return {"previewed": plan.json()["evidence"], "cited": replacement["cited_passage"]}


class FoundTests:
    def test_a_new_version_that_moves_the_newer_claims_quote_is_accepted_citing_where_it_is_now(
        self, launch: Launch, found: dict[str, Any], committed: Any
    ) -> None:
        new_version(launch, FORWARDED)
        assert now(launch, found["id"])["status"] == "open"  # the newer claim moved: still current
        start = FORWARDED.index(JULY)
        assert start != found["evidence"]["start"]
        accepted = accept(launch, found["id"], launch.june, committed)
        assert accepted["previewed"] == {"source_id": launch.email, "quote": JULY, "start": start,
                                         "end": start + len(JULY)}  # fmt: skip
        cited = accepted["cited"]
        assert (cited["source_id"], cited["quote"], cited["start"], cited["version"]) == (launch.email, JULY, start, 2)


class FlagTests:
    def test_a_new_version_that_still_holds_the_quote_moves_the_flag(self, launch: Launch, committed: Any) -> None:
        flagged = flag(launch)
        new_version(launch, FORWARDED)
        start = FORWARDED.index(JULY)
        moved = now(launch, flagged["id"])
        assert moved["status"] == "open"
        assert moved["evidence"] == {"source_id": launch.email, "quote": JULY, "start": start, "end": start + len(JULY)}
        [[version_id]] = graph.ro_query(
            launch.trio.workspace, "MATCH (x:Suggestion {id: $id}) RETURN x.evidence_version_id", {"id": flagged["id"]}
        )
        [[current]] = graph.ro_query(
            launch.trio.workspace, "MATCH (:Source {id: $id})-[:HAS_VERSION]->(v {current: true}) RETURN v.id",
            {"id": launch.email},
        )  # fmt: skip
        assert version_id == current
        cited = accept(launch, flagged["id"], launch.june, committed)["cited"]
        assert (cited["quote"], cited["start"], cited["version"]) == (JULY, start, 2)

    def test_a_new_version_without_the_quote_makes_the_flag_obsolete(self, launch: Launch) -> None:
        flagged = flag(launch)
        new_version(launch, NO_JULY)
        gone = now(launch, flagged["id"])
        assert gone["status"] == "obsolete" and gone["decided_at"]
        preview = api_for(launch.trio.owner).post(f"/workspaces/{launch.ws}/suggestions/{flagged['id']}/preview", {})
        assert preview.status_code == 409 and "obsolete" in preview.json()["detail"]

    def test_retracting_the_source_makes_the_flag_obsolete(self, launch: Launch) -> None:
        flagged = flag(launch)
        # A flag citing another source is left as it was.
        other = api_for(launch.trio.reviewer).post(
            f"/workspaces/{launch.ws}/claims/{launch.budget}/contradictions",
            {"source_id": launch.plan, "quote": "The launch is in June.", "statement": "The launch budget is 50k."},
        )
        assert other.status_code == 201, other.content
        retracted = api_for(launch.trio.reviewer).post(f"/workspaces/{launch.ws}/sources/{launch.email}/retract")
        assert retracted.status_code == 200, retracted.content
        assert now(launch, flagged["id"])["status"] == "obsolete"
        assert now(launch, other.json()["id"])["status"] == "open"
