"""History that is never lost (docs/history.md): each status change is recorded by the write that makes it,
with when, what caused it and who — on the real stores."""

from __future__ import annotations

import pytest

from afterhack.clock import now_iso
from claims import selectors as claims_selectors
from corrections import selectors
from corrections import services as corrections_services
from corrections.models import CorrectionIntent
from tests.conftest import api_for
from tests.corrections.conftest import PLAN, World

pytestmark = pytest.mark.django_db


def recorded(world: World, start: str = "", end: str = "") -> list[tuple[str, str, str | None, str]]:
    return [
        (c.kind, c.id, c.from_status, c.to_status)
        for c in selectors.changes_between(workspace=world.trio.workspace, start=start, end=end)
    ]


class JuneToJulyHistoryTests:
    def test_the_correction_records_each_change_with_its_cause_and_reviewer(self, world: World) -> None:
        launch = world.decision("Launch in June", [world.june])
        announce = world.action("Send the launch announcement", launch)
        june_time = now_iso()
        assert recorded(world) == []  # creations are not changes: created_at says when a thing began

        body = world.preview(world.june).json()
        applied = world.apply(world.june, body["revision"])
        assert applied.status_code == 201, applied.content
        july_time = now_iso()
        correction_id = CorrectionIntent.objects.get().correction_id

        changes = selectors.changes_between(workspace=world.trio.workspace, start=june_time, end=july_time)
        assert sorted((c.kind, c.id, c.from_status, c.to_status) for c in changes) == [
            ("action", announce, "pending", "held"),
            ("claim", world.june, "current", "superseded"),
            ("decision", launch, "supported", "needs_review"),
        ]
        assert {c.cause["kind"] for c in changes} == {"correction"}
        assert {c.cause["id"] for c in changes} == {str(correction_id)}
        assert {c.actor for c in changes} == {"rita"}
        applied_at = api_for(world.trio.viewer).get(f"/workspaces/{world.ws}/corrections").json()["results"][0]
        assert {c.at for c in changes} == {applied_at["applied_at"]}  # one write, one moment
        assert changes[0].record().keys() == {"at", "kind", "id", "from_status", "to_status", "cause", "actor"}

        # The window is [start, end): nothing before June's moment, nothing after July's.
        assert recorded(world, end=june_time) == [] and recorded(world, start=july_time) == []

    def test_a_refused_apply_records_nothing(self, world: World) -> None:
        world.decision("Launch in June", [world.june])
        body = world.preview(world.june).json()
        stale = world.apply(world.june, body["revision"] + 1)
        assert stale.status_code == 409 and recorded(world) == []


class EvidenceGoneHistoryTests:
    def test_a_retraction_records_the_retracted_claims_and_their_propagation(self, world: World) -> None:
        launch = world.decision("Launch in June", [world.june])
        announce = world.action("Send the launch announcement", launch)
        plan_id = claims_selectors.claim_get(workspace=world.trio.workspace, claim_id=world.june).source_id
        corrections_services.source_retract(
            workspace=world.trio.workspace, source_id=plan_id, actor=world.trio.reviewer
        )
        changes = selectors.changes_between(workspace=world.trio.workspace)
        assert sorted((c.kind, c.id, c.from_status, c.to_status) for c in changes) == sorted(
            [
                ("claim", world.june, "current", "retracted"),
                ("claim", world.ana, "current", "retracted"),
                ("claim", world.may, "current", "retracted"),
                ("decision", launch, "supported", "needs_review"),
                ("action", announce, "pending", "held"),
            ]
        )
        assert {(c.cause["kind"], c.cause["id"], c.actor) for c in changes} == {("retraction", plan_id, "rita")}

    def test_a_new_version_records_the_claims_whose_quote_vanished(self, world: World) -> None:
        plan_id = claims_selectors.claim_get(workspace=world.trio.workspace, claim_id=world.june).source_id
        text = PLAN.replace("Marketing starts in May.", "Marketing starts later.")
        corrections_services.source_new_version(
            workspace=world.trio.workspace, source_id=plan_id, text=text, actor=world.trio.reviewer
        )
        changes = selectors.changes_between(workspace=world.trio.workspace)
        assert [(c.kind, c.id, c.from_status, c.to_status, c.cause["kind"]) for c in changes] == [
            ("claim", world.may, "current", "retracted", "new_version")
        ]
