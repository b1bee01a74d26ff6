"""A reviewer's answer to a decision that lost its support: re-justify it, revise it, or dismiss it.

Each changes what holds, so each lives here with the rest of belief maintenance, and each is one
graph query (corrections/graph/review.py) that also moves the decision's actions: re-justify makes held
actions whose decisions all hold pending again, revise moves the open actions to the new decision
(or cancels them), dismiss cancels them. A refusal says why in words, from the decision as it is now.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.db import transaction

from afterhack.clock import now_iso
from afterhack.errors import Conflict, UserError
from agents.selectors.decisions import Decision
from agents.services import decisions as agents_services
from agents.statuses import ActionStatus, DecisionStatus, RevisedActions
from claims.services.claims import InvalidSupport
from corrections.graph import review as review_graph
from workspaces.models import Workspace
from workspaces.services.audit import actor_name, record_event


def decision_rejustify(*, workspace: Workspace, decision_id: str, justifications: object, actor: Any) -> Decision:
    """Gives a decision needing review new justifications; it is supported again and its held actions pending."""
    decision = agents_services.decision_get(workspace=workspace, decision_id=decision_id)
    # A dismissed decision stays out of review: its actions were cancelled, and nothing new may
    # depend on it, so it cannot quietly become supported again.
    if decision.status != DecisionStatus.NEEDS_REVIEW or decision.dismissed_at:
        raise Conflict(_not_for_review(workspace, decision, "re-justified"))
    groups = agents_services.clean_justifications(justifications)
    with transaction.atomic():
        if not review_graph.decision_rejustify(
            workspace=workspace, decision_id=decision_id, justifications=groups, actor=actor_name(actor), now=now_iso()
        ):
            _must_still_need_review(workspace, decision_id, "re-justified")
            raise InvalidSupport(
                _why_support_fails(
                    workspace,
                    decision_id,
                    groups,
                    "A decision cannot be justified by itself or by a decision that rests on it.",
                )
            )
        record_event(actor=actor, workspace=workspace, verb="decision.rejustified", target=decision.title,
                     payload={"decision_id": decision_id, "justifications": groups})  # fmt: skip
    return agents_services.decision_get(workspace=workspace, decision_id=decision_id)


def decision_dismiss(*, workspace: Workspace, decision_id: str, actor: Any) -> Decision:
    """Takes a flagged decision out of the review queue; its open actions are cancelled. Its done actions got
    `follow_up: needed` when it lost its support; one without a follow-up state yet (done on a decision flagged
    before follow-ups were kept) gets it now: a dismissal says the decision will not hold again, so what was done on
    it needs a reviewer's answer all the same (a follow-up, or none needed)."""
    decision = agents_services.decision_get(workspace=workspace, decision_id=decision_id)
    if not decision.reviewable:
        raise Conflict(_not_for_review(workspace, decision, "dismissed"))
    with transaction.atomic():
        dismissed = review_graph.decision_dismiss(
            workspace=workspace, decision_id=decision_id, actor=actor_name(actor), now=now_iso()
        )
        if dismissed is None:
            _must_still_need_review(workspace, decision_id, "dismissed")
            raise Conflict("Only a decision waiting for review can be dismissed.")
        cancelled, already_done = dismissed
        record_event(
            actor=actor,
            workspace=workspace,
            verb="decision.dismissed",
            target=decision.title,
            payload={"decision_id": decision_id, "cancelled": cancelled, "actions_already_done": already_done},
        )
    return agents_services.decision_get(workspace=workspace, decision_id=decision_id)


def decision_revise(
    *,
    workspace: Workspace,
    decision_id: str,
    title: object,
    rationale: object,
    justifications: object,
    actions: object,
    actor: Any,
) -> Decision:
    """A new supported decision in place of a flagged one, which is kept, superseded; the old one's open
    actions move to the new one (pending again where all their decisions hold) or are cancelled."""
    old = agents_services.decision_get(workspace=workspace, decision_id=decision_id)
    if not old.reviewable:
        raise Conflict(_not_for_review(workspace, old, "revised"))
    title = agents_services.clean_title(title, "A revised decision")
    rationale_text = agents_services.clean_rationale(rationale)
    groups = agents_services.clean_justifications(justifications)
    mode = clean_revised_actions(actions)
    new_id = str(uuid.uuid4())
    with transaction.atomic():
        statuses = review_graph.decision_revise(
            workspace=workspace, decision_id=old.id, new_id=new_id, title=title, rationale=rationale_text,
            justifications=groups, actions=mode, actor=actor_name(actor), now=now_iso(),
        )  # fmt: skip
        if statuses is None:
            _must_still_need_review(workspace, old.id, "revised")
            raise InvalidSupport(
                _why_support_fails(
                    workspace,
                    old.id,
                    groups,
                    "The new decision cannot rest on the one it replaces, or on a decision that rests on it.",
                )
            )
        touched = sorted(statuses)
        record_event(actor=actor, workspace=workspace, verb="decision.revised", target=title, payload={
            "decision_id": old.id, "new_decision_id": new_id, "justifications": groups, "actions": mode,
            "moved": touched if mode == RevisedActions.MOVE else [],
            "pending": [i for i in touched if statuses[i] == ActionStatus.PENDING] if mode == RevisedActions.MOVE else [],
            "cancelled": touched if mode == RevisedActions.CANCEL else [],
        })  # fmt: skip
    return agents_services.decision_get(workspace=workspace, decision_id=new_id)


def clean_revised_actions(actions: object) -> RevisedActions:
    """What to do with the open actions of a revised decision, or UserError saying what may be chosen."""
    if actions not in tuple(RevisedActions):
        raise UserError(
            "Say what happens to its open actions: “actions” is “move” (they go to the new decision) "
            "or “cancel” (they are cancelled)."
        )
    return RevisedActions(str(actions))


def _why_support_fails(workspace: Workspace, decision_id: str, groups: list[list[str]], cycle: str) -> str:
    """Why these justifications cannot hold up (a new version of) this decision, in words."""
    downstream = review_graph.decisions_resting_on(workspace=workspace, decision_id=decision_id)
    if any(i in downstream or i == decision_id for g in groups for i in g):
        return cycle
    return agents_services.why_not_supported(workspace, groups)


def _must_still_need_review(workspace: Workspace, decision_id: str, done: str) -> None:
    """Raises Conflict, in words, if the decision changed meanwhile so that it can no longer be `done`."""
    decision = agents_services.decision_get(workspace=workspace, decision_id=decision_id)
    if decision.status != DecisionStatus.NEEDS_REVIEW or decision.dismissed_at:
        raise Conflict(_not_for_review(workspace, decision, done))


def review_refusal(*, workspace: Workspace, decision: Decision, done: str) -> str | None:
    """Why the decision cannot be revised or dismissed (`done`) now, in words; None if it can."""
    return None if decision.reviewable else _not_for_review(workspace, decision, done)


def _not_for_review(workspace: Workspace, decision: Decision, done: str) -> str:
    """Why a decision cannot be re-justified, revised or dismissed (`done`) now, in words."""
    if decision.status == DecisionStatus.SUPERSEDED:
        return f"{agents_services.superseded_words(workspace, decision)} It cannot be {done}; review that one instead."
    if decision.status == DecisionStatus.SUPPORTED:
        return f"This decision does not need review: it is supported, so it cannot be {done}."
    return f"This decision was dismissed by {decision.dismissed_by or 'a reviewer'}: it cannot be {done}."
