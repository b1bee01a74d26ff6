"""A decision or an action as it was at a moment (docs/history.md, "Reading the past"): pure rewinds of what
agents/graph/past.py reads now with its Changes after that moment (afterhack/history.py has the rules they share)."""

from __future__ import annotations

from dataclasses import replace

from afterhack import history
from afterhack.history_graph import ChangeCause
from agents.graph.past import ActionThen, DecisionThen
from agents.graph.shapes import Action, Decision
from agents.statuses import ActionStatus, DecisionStatus


def decision_at(then: DecisionThen, *, as_of: str) -> Decision | None:
    """The decision as it was at `as_of`, or None if it did not exist yet: its status and review state then,
    the justification groups it had (those numbered below the first re-justification's since), each support
    with its status then, the actions resting on it then (those a revision since moved away included), and
    what superseded it only if that happened by then."""
    decision = then.decision
    if not history.existed(decision.created_at, as_of):
        return None
    changes = history.after(then.changes, as_of)
    rejustified = history.first_of(changes, ChangeCause.REJUSTIFICATION)
    below = rejustified.get("justifications_from") if rejustified else None
    supports = [
        replace(support, status=history.status_at(support.status, history.after(then.support_changes.get(support.id, []), as_of)))
        for support in decision.supports
        if (below is None or support.justification < below)
        and history.existed(then.support_created.get(support.id), as_of)
    ]  # fmt: skip
    revised = history.first_of(changes, ChangeCause.REVISION) is not None
    dismissed_at = history.kept(decision.dismissed_at, changes, "dismissed_at", kept_by=history.DISMISSAL_KEPT_BY)
    if dismissed_at and dismissed_at > as_of:
        # Only a migration's baseline stands between: a dismissal after the moment had not happened then.
        dismissed_at = None
    return replace(
        decision,
        status=DecisionStatus(history.status_at(decision.status, changes)),
        review_reason=history.kept(
            decision.review_reason, changes, "review_reason", kept_by=history.REVIEW_STATE_KEPT_BY
        ),
        flagged_by=history.kept(decision.flagged_by, changes, "flagged_by", kept_by=history.REVIEW_STATE_KEPT_BY),
        dismissed_at=dismissed_at,
        dismissed_by=decision.dismissed_by if dismissed_at else None,
        superseded_by=None if revised else decision.superseded_by,
        superseded_at=None if revised else decision.superseded_at,
        superseded_by_actor=None if revised else decision.superseded_by_actor,
        status_changed_at=decision.status_changed_at if not changes else None,
        supports=supports,
        action_ids=sorted(
            action_id
            for action_id, created_at in {**then.actions, **then.moved}.items()
            if history.existed(created_at, as_of)
        ),
    )


def action_at(then: ActionThen, *, as_of: str) -> Action | None:
    """The action as it was at `as_of`, or None if it did not exist yet: its status then, and the decisions it
    depended on then (a revision since moved it from the old decision to the new one: undone, newest first)."""
    action = then.action
    if not history.existed(action.created_at, as_of):
        return None
    changes = history.after(then.changes, as_of)
    ids = list(action.decision_ids)
    titles = {**dict(zip(action.decision_ids, action.decision_titles, strict=False)), **then.old_titles}
    for change in reversed(changes):
        moved_from, moved_to = change.get("moved_from"), change.get("cause_id")
        if moved_from and moved_to in ids:
            ids[ids.index(moved_to)] = moved_from
    # Its follow-up state then: what the first change of it since kept (a change of it has a `follow_up`).
    kept = next((c for c in changes if c.get("follow_up") is not None), None)
    if kept is not None:
        action = replace(
            action, follow_up=kept.get("from_follow_up"), follow_up_id=kept.get("from_follow_up_id"),
            follow_up_reason=kept.get("from_follow_up_reason"), follow_up_at=None,
        )  # fmt: skip
    return replace(
        action,
        status=ActionStatus(history.status_at(action.status, changes)),
        decision_ids=ids,
        decision_titles=[titles.get(decision_id, "") for decision_id in ids],
    )
