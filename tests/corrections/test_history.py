"""History that is never lost (docs/history.md): each status change is recorded by the write that makes it,
with when, what caused it and who — on the real stores."""

from __future__ import annotations

import pytest

from afterhack import graph, history_graph
from afterhack.clock import now_iso
from afterhack.history_graph import Change
from agents.services import decisions as agents_services
from claims.selectors import claims as claims_selectors
from corrections import review
from corrections.models import CorrectionIntent
from corrections.selectors import changes as changes_selectors
from corrections.services import evidence as evidence_services
from tests.conftest import api_for
from tests.corrections.conftest import PLAN, World
from workspaces.services import workspaces as workspace_services

pytestmark = pytest.mark.django_db


def recorded(world: World, start: str = "", end: str = "") -> list[tuple[str, str, str | None, str]]:
    return [
        (c.kind, c.id, c.from_status, c.to_status)
        for c in changes_selectors.changes_between(workspace=world.trio.workspace, start=start, end=end)
    ]


def source_of(world: World, claim_id: str) -> str:
    claim = claims_selectors.claim_get(workspace=world.trio.workspace, claim_id=claim_id)
    assert claim is not None and claim.source_id
    return str(claim.source_id)


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

        changes = changes_selectors.changes_between(workspace=world.trio.workspace, start=june_time, end=july_time)
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
        plan_id = source_of(world, world.june)
        evidence_services.source_retract(workspace=world.trio.workspace, source_id=plan_id, actor=world.trio.reviewer)
        changes = changes_selectors.changes_between(workspace=world.trio.workspace)
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
        plan_id = source_of(world, world.june)
        text = PLAN.replace("Marketing starts in May.", "Marketing starts later.")
        evidence_services.source_new_version(
            workspace=world.trio.workspace, source_id=plan_id, text=text, actor=world.trio.reviewer
        )
        changes = changes_selectors.changes_between(workspace=world.trio.workspace)
        assert sorted((c.kind, c.id, c.from_status, c.to_status, c.cause["kind"]) for c in changes) == sorted(
            [
                ("claim", world.may, "current", "retracted", "new_version"),
                # Moved to the new version: the status stays, the evidence it had is kept on the change.
                ("claim", world.june, "current", "current", "new_version"),
                ("claim", world.ana, "current", "current", "new_version"),
            ]
        )
        kept = graph.ro_records(
            world.trio.workspace,
            "MATCH (x:Change {cause: 'new_version'})-[:OF]->(c:Claim {id: $id}) "
            "RETURN x {.from_version_id, .from_start, .from_end, .from_supported_by, now: c.version_id}",
            {"id": world.june},
        )
        assert len(kept) == 1 and kept[0]["from_version_id"] == world.plan_version != kept[0]["now"]
        assert PLAN[kept[0]["from_start"] : kept[0]["from_end"]] == "The launch is in June"
        assert kept[0]["from_supported_by"] and all(r.startswith("evidence:") for r in kept[0]["from_supported_by"])


def flagged(world: World) -> tuple[str, str]:
    """The launch decision flagged by the June → July correction, with its held announcement."""
    launch = world.decision("Launch in June", [world.june])
    announce = world.action("Send the launch announcement", launch)
    assert world.apply(world.june, world.preview(world.june).json()["revision"]).status_code == 201
    return launch, announce


def since(world: World, start: str) -> list[Change]:
    return changes_selectors.changes_between(workspace=world.trio.workspace, start=start)


class ReviewHistoryTests:
    def test_a_rejustification_keeps_the_review_state_it_ended(self, world: World) -> None:
        launch, announce = flagged(world)
        start = now_iso()
        review.decision_rejustify(
            workspace=world.trio.workspace,
            decision_id=launch,
            justifications=[[world.board]],
            actor=world.trio.reviewer,
        )
        changes = since(world, start)
        assert sorted((c.kind, c.id, c.from_status, c.to_status, c.cause["kind"]) for c in changes) == [
            ("action", announce, "held", "pending", "rejustification"),
            ("decision", launch, "needs_review", "supported", "rejustification"),
        ]
        assert {(c.cause["id"], c.actor) for c in changes} == {(launch, "rita")}
        # The flag's reason and the groups it rested on before (numbers below justifications_from) are kept.
        kept = graph.ro_records(
            world.trio.workspace,
            "MATCH (x:Change {kind: 'decision', cause: 'rejustification'})-[:OF]->(:Decision {id: $id}) "
            "RETURN x {.from_review_reason, .from_flagged_by, .justifications_from}",
            {"id": launch},
        )
        assert len(kept) == 1 and "July" in kept[0]["from_review_reason"] and kept[0]["from_flagged_by"]
        assert kept[0]["justifications_from"] == 1  # the June group was number 0

    def test_a_dismissal_records_the_decision_and_its_cancelled_actions(self, world: World) -> None:
        launch, announce = flagged(world)
        start = now_iso()
        review.decision_dismiss(workspace=world.trio.workspace, decision_id=launch, actor=world.trio.reviewer)
        changes = since(world, start)
        assert sorted((c.kind, c.id, c.from_status, c.to_status, c.cause["kind"], c.actor) for c in changes) == [
            ("action", announce, "held", "cancelled", "dismissal", "rita"),
            # Its status stays: a dismissal is a change of its review, listed with the same status both sides.
            ("decision", launch, "needs_review", "needs_review", "dismissal", "rita"),
        ]

    def test_a_revision_records_the_superseded_decision_and_the_moved_actions(self, world: World) -> None:
        launch, announce = flagged(world)
        start = now_iso()
        new = review.decision_revise(
            workspace=world.trio.workspace, decision_id=launch, title="Launch in July", rationale="",
            justifications=[[world.board]], actions="move", actor=world.trio.reviewer,
        )  # fmt: skip
        changes = since(world, start)
        assert sorted((c.kind, c.id, c.from_status, c.to_status, c.cause["kind"]) for c in changes) == [
            ("action", announce, "held", "pending", "revision"),
            ("decision", launch, "needs_review", "superseded", "revision"),
        ]
        assert {(c.cause["id"], c.actor) for c in changes} == {(new.id, "rita")}


class PersonHistoryTests:
    def test_a_person_marking_an_action_is_the_cause(self, world: World) -> None:
        launch = world.decision("Launch in June", [world.june])
        announce = world.action("Send the launch announcement", launch)
        agents_services.action_mark(
            workspace=world.trio.workspace, action_id=announce, status="done", actor=world.trio.reviewer
        )
        assert [(c.id, c.from_status, c.to_status, c.cause, c.actor) for c in since(world, "")] == [
            (announce, "pending", "done", {"kind": "person", "id": None}, "rita")
        ]


class HistoryBeginsTests:
    def test_a_workspace_from_before_the_history_gets_its_present_state_once(self, world: World) -> None:
        launch, announce = flagged(world)
        correction_id = str(CorrectionIntent.objects.get().correction_id)
        # As a graph written before the history: no changes, no beginning.
        graph.query(world.trio.workspace, "MATCH (x:Change) DETACH DELETE x")
        graph.query(world.trio.workspace, "MATCH (w:Workspace) SET w.history_since = null")
        workspace_services.graph_ensure(workspace=world.trio.workspace)
        workspace_services.graph_ensure(workspace=world.trio.workspace)  # idempotent
        changes = since(world, "")
        assert sorted((c.kind, c.id, c.from_status, c.to_status, c.cause["kind"]) for c in changes) == [
            # What was written at the time (last change's time, not who or why) is the baseline...
            ("action", announce, None, "held", "migration"),
            # ...and what is known exactly is what it was: the correction, its reviewer, its moment.
            ("claim", world.june, "current", "superseded", "correction"),
            ("decision", launch, None, "needs_review", "migration"),
        ]
        exact = next(c for c in changes if c.kind == "claim")
        assert exact.cause["id"] == correction_id and exact.actor == "rita"
        assert {c.at for c in changes} == {exact.at}  # the correction's applied_at, kept on each node it changed

    def test_changes_written_before_the_history_began_are_kept_not_doubled(self, world: World) -> None:
        # A graph from before the history, written to by this code before graph_ensure ran (a worker started first):
        # the correction's changes exist, the beginning does not.
        flagged(world)
        recorded = since(world, "")
        graph.query(world.trio.workspace, "MATCH (w:Workspace) SET w.history_since = null")
        workspace_services.graph_ensure(workspace=world.trio.workspace)
        assert since(world, "") == recorded  # no baseline and no second copy beside what was recorded
        began = graph.ro_query(world.trio.workspace, "MATCH (w:Workspace) RETURN w.history_since")[0][0]
        assert began == min(c.at for c in recorded)

    def test_a_new_workspace_begins_its_history_at_its_creation(self, world: World) -> None:
        began = graph.ro_query(world.trio.workspace, "MATCH (w:Workspace) RETURN w.history_since")[0][0]
        assert began == world.trio.workspace.created_at.isoformat()
        workspace_services.graph_ensure(workspace=world.trio.workspace)
        assert since(world, "") == []


class ChangesPagingTests:
    def test_the_keyset_walks_one_moment_one_change_at_a_time(self, world: World) -> None:
        flagged(world)
        everything = history_graph.changes(workspace=world.trio.workspace)
        assert len(everything) == 3 and history_graph.changes_count(workspace=world.trio.workspace) == 3
        walked: list[Change] = []
        after = None
        while page := history_graph.changes(workspace=world.trio.workspace, limit=1, after=after):
            walked += page
            after = (page[-1].at, page[-1].kind, page[-1].id)
        assert walked == everything
        assert [c.kind for c in everything] == ["action", "claim", "decision"]  # one `at`: by kind, then id
