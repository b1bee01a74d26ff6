"""The outbox: a change that tells someone writes its Tell row with its audit event (a correction: in the statement
that records its outcome, recovery included), never for a change that did not happen; and what each teller says."""

from __future__ import annotations

import pytest

from claims.selectors import claims as claims_selectors
from corrections.services import evidence as evidence_services
from tests.corrections.conftest import World
from workspaces import registry
from workspaces.models import AuditEvent, Tell
from workspaces.services.audit import record_event, record_events

pytestmark = pytest.mark.django_db


def told(verb: str) -> list[AuditEvent]:
    return [tell.event for tell in Tell.objects.select_related("event").filter(event__verb=verb)]


def telling(event: AuditEvent) -> registry.Telling:
    return registry.TELLERS[event.verb].tell(event)


class CorrectionTests:
    def test_an_applied_correction_is_told_once_with_what_it_did(self, world: World) -> None:
        launch = world.decision("Launch in June", [world.june])
        announce = world.action("Send the launch announcement", launch)
        applied = world.apply(world.june, world.preview(world.june).json()["revision"])
        assert applied.status_code == 201
        (event,) = told("correction.applied")
        said = telling(event)
        kinds = dict(said.events)
        assert set(kinds) == {"correction.applied", "decision.needs_review", "action.held"}
        assert kinds["correction.applied"]["replacement_claim_id"] == applied.json()["replacement_claim_id"]
        assert kinds["decision.needs_review"]["decision_ids"] == [launch]
        assert kinds["action.held"]["action_ids"] == [announce]
        # Webhook data is ids and links, never text.
        assert all(isinstance(v, (str, list)) and "June" not in str(v) for d in kinds.values() for v in d.values())
        assert "“The launch is in June.” was corrected to “The launch is in July.”" in said.text
        assert "1 decision needs review" in said.text and said.url.endswith("/review/")
        # Whoever recorded the decision is told why; the claim, the decision and the action are watched for.
        assert said.people == {world.trio.reviewer.username: "you recorded the decision “Launch in June”"}
        assert {world.june, launch, announce} <= set(said.about)

    def test_a_stale_apply_tells_nothing(self, world: World) -> None:
        revision = world.preview(world.june).json()["revision"]
        world.decision("Launch in June", [world.june])  # moves the revision
        assert world.apply(world.june, revision).status_code == 409
        assert not Tell.objects.exists()

    def test_a_replayed_key_tells_nothing_again(self, world: World) -> None:
        revision = world.preview(world.june).json()["revision"]
        assert world.apply(world.june, revision).status_code == 201
        assert world.apply(world.june, revision).status_code == 200
        assert len(told("correction.applied")) == 1


class EvidenceTests:
    def test_a_retraction_tells_the_claims_it_retracted(self, world: World) -> None:
        launch = world.decision("Launch in June", [world.northwind])
        found = claims_selectors.claim_get(workspace=world.trio.workspace, claim_id=world.northwind)
        assert found is not None and found.source_id is not None
        evidence_services.source_retract(
            workspace=world.trio.workspace, source_id=found.source_id, actor=world.trio.owner
        )
        (event,) = told("source.retracted")
        kinds = dict(telling(event).events)
        assert kinds["claim.retracted"]["claim_ids"] == [world.northwind]
        assert kinds["decision.needs_review"]["decision_ids"] == [launch]
        assert world.trio.reviewer.username in telling(event).people


class VerbTests:
    def test_only_verbs_with_a_teller_are_told(self, world: World) -> None:
        record_event(actor=world.trio.reviewer, workspace=world.trio.workspace, verb="decision.created", target="x")
        assert not Tell.objects.exists()

    def test_many_events_of_a_told_verb_are_each_told(self, world: World) -> None:
        record_events(
            actor=None, workspace=world.trio.workspace, verb="suggestion.found",
            events=[("1 contradiction", {"found": []}), ("2 contradictions", {"found": []})],
        )  # fmt: skip
        assert len(told("suggestion.found")) == 2
