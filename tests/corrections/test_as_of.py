"""Reading the past through the selectors (docs/history.md, "Reading the past"): a claim, a decision, an action
and a claim search as they were at a moment, on the real stores."""

from __future__ import annotations

import pytest

from afterhack import graph
from afterhack.clock import now_iso
from agents.selectors import decisions as agents_selectors
from claims.selectors import claims as claims_selectors
from claims.selectors import search as search_selectors
from corrections import review
from corrections.models import CorrectionIntent
from corrections.services import evidence as evidence_services
from tests.corrections.conftest import PLAN, World, june_to_july
from workspaces.services import workspaces as workspace_services

pytestmark = pytest.mark.django_db


class JuneToJulyAsOfTests:
    def test_before_the_correction_the_claim_decision_and_action_are_as_they_were(self, world: World) -> None:
        workspace = world.trio.workspace
        launch, announce, before, after = june_to_july(world)
        replacement = str(CorrectionIntent.objects.get().replacement_claim_id)

        then = claims_selectors.claim_get(workspace=workspace, claim_id=world.june, as_of=before)
        assert then is not None
        assert (then.status, then.statement, then.superseded_by) == ("current", "The launch is in June.", None)
        decision = agents_selectors.decision_get(workspace=workspace, decision_id=launch, as_of=before)
        assert decision is not None
        assert (decision.status, decision.review_reason, decision.justifications) == ("supported", None, [[world.june]])
        assert [(s.id, s.status) for s in decision.supports] == [(world.june, "current")]
        assert decision.action_ids == [announce]
        action = agents_selectors.action_get(workspace=workspace, action_id=announce, as_of=before)
        assert action is not None and (action.status, action.decision_ids) == ("pending", [launch])

        now = claims_selectors.claim_get(workspace=workspace, claim_id=world.june, as_of=after)
        assert now is not None and (now.status, now.superseded_by) == ("superseded", replacement)
        decision = agents_selectors.decision_get(workspace=workspace, decision_id=launch, as_of=after)
        assert decision is not None and decision.status == "needs_review" and "July" in (decision.review_reason or "")
        assert [(s.id, s.status) for s in decision.supports] == [(world.june, "superseded")]
        action = agents_selectors.action_get(workspace=workspace, action_id=announce, as_of=after)
        assert action is not None and action.status == "held"

        # The replacement did not exist before the correction.
        assert claims_selectors.claim_get(workspace=workspace, claim_id=replacement, as_of=before) is None
        assert claims_selectors.claim_get(workspace=workspace, claim_id=replacement, as_of=after) is not None

    def test_before_a_thing_existed_it_is_none(self, world: World) -> None:
        workspace = world.trio.workspace
        early = now_iso()
        launch = world.decision("Launch in June", [world.june])
        announce = world.action("Send the launch announcement", launch)
        assert agents_selectors.decision_get(workspace=workspace, decision_id=launch, as_of=early) is None
        assert agents_selectors.action_get(workspace=workspace, action_id=announce, as_of=early) is None
        assert claims_selectors.claim_get(workspace=workspace, claim_id=world.june, as_of="2000-01-01") is None
        # The decision as it was before its action existed.
        action_less = agents_selectors.decision_get(workspace=workspace, decision_id=launch, as_of=now_iso())
        assert action_less is not None and action_less.action_ids == [announce]


class EvidenceAsOfTests:
    def test_across_a_retraction(self, world: World) -> None:
        workspace = world.trio.workspace
        launch = world.decision("Launch in June", [world.june])
        before = now_iso()
        june = claims_selectors.claim_get(workspace=workspace, claim_id=world.june)
        assert june is not None and june.source_id
        evidence_services.source_retract(workspace=workspace, source_id=june.source_id, actor=world.trio.reviewer)
        then = claims_selectors.claim_get(workspace=workspace, claim_id=world.june, as_of=before)
        assert then is not None and (then.status, then.retraction) == ("current", None)
        now = claims_selectors.claim_get(workspace=workspace, claim_id=world.june, as_of=now_iso())
        assert now is not None and (now.status, now.retraction) == ("retracted", "source_retracted")
        decision = agents_selectors.decision_get(workspace=workspace, decision_id=launch, as_of=before)
        assert decision is not None and decision.status == "supported"

    def test_across_a_new_version_the_old_evidence_comes_back(self, world: World) -> None:
        workspace = world.trio.workspace
        old = claims_selectors.claim_get(workspace=workspace, claim_id=world.june)
        assert old is not None and old.source_id
        before = now_iso()
        text = "Preface added.\n\n" + PLAN.replace("Marketing starts in May.", "Marketing starts later.")
        evidence_services.source_new_version(
            workspace=workspace, source_id=old.source_id, text=text, actor=world.trio.reviewer
        )
        moved = claims_selectors.claim_get(workspace=workspace, claim_id=world.june)
        assert moved is not None and moved.version_id != old.version_id and moved.start != old.start
        then = claims_selectors.claim_get(workspace=workspace, claim_id=world.june, as_of=before)
        assert then is not None
        assert (then.version_id, then.start, then.end) == (world.plan_version, old.start, old.end)
        assert PLAN[then.start : then.end] == "The launch is in June"
        assert [(f.id, f.start, f.end, f.text) for f in then.fragments] == [
            (f.id, f.start, f.end, f.text) for f in old.fragments
        ]
        assert {f.id for f in then.fragments}.isdisjoint({f.id for f in moved.fragments})
        # The claim whose quote vanished was current then, retracted now.
        may = claims_selectors.claim_get(workspace=workspace, claim_id=world.may, as_of=before)
        assert may is not None and may.status == "current"


class ReviewAsOfTests:
    def test_across_a_rejustification_the_old_groups_come_back(self, world: World) -> None:
        workspace = world.trio.workspace
        launch, announce, _, flagged_at = june_to_july(world)
        assert review.decision_rejustify(
            workspace=workspace, decision_id=launch, justifications=[[world.board]], actor=world.trio.reviewer
        )
        then = agents_selectors.decision_get(workspace=workspace, decision_id=launch, as_of=flagged_at)
        assert then is not None
        assert (then.status, then.justifications) == ("needs_review", [[world.june]])
        assert "July" in (then.review_reason or "") and then.flagged_by
        now = agents_selectors.decision_get(workspace=workspace, decision_id=launch, as_of=now_iso())
        assert now is not None and (now.status, now.review_reason) == ("supported", None)
        assert now.justifications == [[world.june], [world.board]]
        held = agents_selectors.action_get(workspace=workspace, action_id=announce, as_of=flagged_at)
        assert held is not None and held.status == "held"

    def test_across_a_dismissal(self, world: World) -> None:
        workspace = world.trio.workspace
        launch, announce, _, flagged_at = june_to_july(world)
        review.decision_dismiss(workspace=workspace, decision_id=launch, actor=world.trio.reviewer)
        then = agents_selectors.decision_get(workspace=workspace, decision_id=launch, as_of=flagged_at)
        assert then is not None and (then.status, then.dismissed_at, then.dismissed_by) == ("needs_review", None, None)
        assert then.reviewable
        now = agents_selectors.decision_get(workspace=workspace, decision_id=launch, as_of=now_iso())
        assert now is not None and now.dismissed_at and not now.reviewable
        action = agents_selectors.action_get(workspace=workspace, action_id=announce, as_of=flagged_at)
        assert action is not None and action.status == "held"
        cancelled = agents_selectors.action_get(workspace=workspace, action_id=announce, as_of=now_iso())
        assert cancelled is not None and cancelled.status == "cancelled"

    def test_a_migrated_workspace_knows_no_dismissal_before_it_happened(self, world: World) -> None:
        # A graph from before the history: flagged, then dismissed; the migration's baseline for the decision is at
        # its last change (the dismissal), so between the two only the dismissal's own time can tell.
        workspace = world.trio.workspace
        launch, _, _, flagged_at = june_to_july(world)
        review.decision_dismiss(workspace=workspace, decision_id=launch, actor=world.trio.reviewer)
        graph.query(workspace, "MATCH (x:Change) DETACH DELETE x")
        graph.query(workspace, "MATCH (w:Workspace) SET w.history_since = null")
        workspace_services.graph_ensure(workspace=workspace)
        then = agents_selectors.decision_get(workspace=workspace, decision_id=launch, as_of=flagged_at)
        assert then is not None and (then.dismissed_at, then.dismissed_by) == (None, None)
        now = agents_selectors.decision_get(workspace=workspace, decision_id=launch, as_of=now_iso())
        assert now is not None and now.dismissed_at

    def test_across_a_revision_a_moved_action_depended_on_the_old_decision(self, world: World) -> None:
        workspace = world.trio.workspace
        launch, announce, _, flagged_at = june_to_july(world)
        new = review.decision_revise(
            workspace=workspace, decision_id=launch, title="Launch in July", rationale="",
            justifications=[[world.board]], actions="move", actor=world.trio.reviewer,
        )  # fmt: skip
        assert new is not None
        action = agents_selectors.action_get(workspace=workspace, action_id=announce, as_of=flagged_at)
        assert action is not None
        assert (action.status, action.decision_ids, action.decision_titles) == ("held", [launch], ["Launch in June"])
        moved = agents_selectors.action_get(workspace=workspace, action_id=announce, as_of=now_iso())
        assert moved is not None and (moved.status, moved.decision_ids) == ("pending", [new.id])

        old = agents_selectors.decision_get(workspace=workspace, decision_id=launch, as_of=flagged_at)
        assert old is not None
        assert (old.status, old.superseded_by, old.action_ids) == ("needs_review", None, [announce])
        superseded = agents_selectors.decision_get(workspace=workspace, decision_id=launch, as_of=now_iso())
        assert superseded is not None and (superseded.status, superseded.superseded_by) == ("superseded", new.id)
        assert superseded.action_ids == []
        assert agents_selectors.decision_get(workspace=workspace, decision_id=new.id, as_of=flagged_at) is None

    def test_across_a_revision_that_cancelled_its_actions_they_stay_with_the_old_decision(self, world: World) -> None:
        workspace = world.trio.workspace
        launch, announce, _, flagged_at = june_to_july(world)
        new = review.decision_revise(
            workspace=workspace, decision_id=launch, title="Launch in July", rationale="",
            justifications=[[world.board]], actions="cancel", actor=world.trio.reviewer,
        )  # fmt: skip
        assert new is not None
        then = agents_selectors.action_get(workspace=workspace, action_id=announce, as_of=flagged_at)
        now = agents_selectors.action_get(workspace=workspace, action_id=announce, as_of=now_iso())
        assert then is not None and (then.status, then.decision_ids) == ("held", [launch])
        assert now is not None and (now.status, now.decision_ids) == ("cancelled", [launch])
        old = agents_selectors.decision_get(workspace=workspace, decision_id=launch, as_of=flagged_at)
        assert old is not None and old.action_ids == [announce]


class SearchAsOfTests:
    def test_search_as_of_drops_later_claims_and_gives_the_status_then(self, world: World) -> None:
        workspace = world.trio.workspace
        early = "2000-01-01T00:00:00+00:00"
        _, _, before, after = june_to_july(world)
        replacement = str(CorrectionIntent.objects.get().replacement_claim_id)

        def found(as_of: str | None) -> list[tuple[str, str]]:
            page = search_selectors.claim_search_page(
                workspace=workspace, query="launch", limit=50, cursor=None, as_of=as_of
            )
            return sorted((claim.id, claim.status) for claim in page.claims.items)

        assert found(early) == []
        assert (world.june, "current") in found(before) and replacement not in dict(found(before))
        assert {world.june: "superseded", replacement: "current"}.items() <= dict(found(after)).items()
        assert dict(found(None))[world.june] == "superseded"
