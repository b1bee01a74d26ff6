"""An idempotency key sent again: the same request answers the first outcome, any other is refused
(idempotency_key_reused) and changes nothing, the reason included."""

from __future__ import annotations

from typing import Any

import pytest

from corrections.models import CorrectionIntent
from tests.conftest import api_for
from tests.corrections.conftest import World
from workspaces.models import AuditEvent

pytestmark = pytest.mark.django_db

JULY = "The launch is in July."


def apply(world: World, revision: int, *, reason: str, statement: str = JULY, key: str = "replayed") -> Any:
    body = {"statement": statement, "reason": reason, "revision": revision, "idempotency_key": key}
    return api_for(world.trio.reviewer).post(f"/workspaces/{world.ws}/claims/{world.june}/corrections", body)


class ReplayTests:
    def test_a_replay_with_another_reason_is_refused_and_the_first_reason_stays(self, world: World) -> None:
        revision = world.preview(world.june).json()["revision"]
        first = apply(world, revision, reason="The board moved it.")
        assert first.status_code == 201
        replayed = apply(world, revision, reason="Marketing asked for it.")
        assert replayed.status_code == 422
        assert replayed.json() == {
            "error": "idempotency_key_reused",
            "detail": "This idempotency key was already used for a different correction (its reason differs); "
            "use a new key.",
        }
        assert CorrectionIntent.objects.get(idempotency_key="replayed").reason == "The board moved it."
        (event,) = AuditEvent.objects.filter(verb="correction.applied")
        assert event.payload["reason"] == "The board moved it."
        (correction,) = api_for(world.trio.viewer).get(f"/workspaces/{world.ws}/corrections").json()["results"]
        assert correction["reason"] == "The board moved it."

    def test_the_same_request_again_answers_the_first_outcome_its_spacing_aside(self, world: World) -> None:
        revision = world.preview(world.june).json()["revision"]
        first = apply(world, revision, reason="The board moved it.")
        again = apply(world, revision, reason="  The board\n moved it. ")
        assert (first.status_code, again.status_code, again.json()["status"]) == (201, 200, "already_applied")
        assert again.json()["replacement_claim_id"] == first.json()["replacement_claim_id"]
        assert AuditEvent.objects.filter(verb="correction.applied").count() == 1

    def test_every_difference_is_named(self, world: World) -> None:
        revision = world.preview(world.june).json()["revision"]
        assert apply(world, revision, reason="The board moved it.").status_code == 201
        replayed = apply(world, revision, reason="Marketing asked.", statement="The launch is in August.")
        assert replayed.status_code == 422 and replayed.json()["error"] == "idempotency_key_reused"
        assert "(its statement and reason differ)" in replayed.json()["detail"]

    def test_a_request_refused_as_stale_is_sent_again_with_its_key_at_a_new_revision(self, world: World) -> None:
        stale = world.preview(world.june).json()["revision"]
        world.decision("Launch in June", [world.june])
        refused = apply(world, stale, reason="The board moved it.")
        assert refused.status_code == 409 and refused.json()["error"] == "stale_correction_preview"
        applied = apply(world, refused.json()["revision"], reason="The board moved it.")
        assert applied.status_code == 201 and applied.json()["status"] == "applied"
        # Refused for what it asked, not for when: another reason with the same key is still another correction.
        assert apply(world, refused.json()["revision"], reason="Other.").json()["error"] == "idempotency_key_reused"
