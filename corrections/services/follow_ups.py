"""A reviewer's answer to a done action that rested on a decision that lost its support ("Already acted on" in the
review queue): plan a follow-up action, or say none is needed, with a reason.

The follow-up is a new pending action that FOLLOWS_UP the done one and depends on the decisions that hold now: by
default the done action's own decisions that still hold, or the decision a revision replaced one with (the decision
that now holds), or the decisions the reviewer chose. The done action stays done; its `follow_up` becomes `planned`
(then `done` when the follow-up is marked done, `needed` again if the follow-up is cancelled), or `not_needed`.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.db import transaction

from afterhack.clock import now_iso
from afterhack.errors import Conflict, UserError, found
from afterhack.holds import status_holds
from afterhack.ids import parse_id, unstorable
from afterhack.text import MAX_REASON_CHARS
from agents.selectors import decisions as agents_selectors
from agents.services import decisions as agents_services
from agents.statuses import FollowUp
from corrections.graph import follow_ups as follow_ups_graph
from corrections.selectors import acted_on
from workspaces.models import Workspace
from workspaces.services.audit import actor_name, record_event

PLANNED = "action.follow_up_planned"
NOT_NEEDED = "action.follow_up_not_needed"


class FollowUpNotNeeded(Conflict):
    code = "follow_up_not_needed"


def _needing(workspace: Workspace, action_id: str) -> agents_selectors.Action:
    """The action, if its follow-up is needed; else NotFound or Conflict in words."""
    action = found(
        agents_selectors.action_get(workspace=workspace, action_id=action_id), agents_services.ActionNotFound()
    )
    if action.follow_up != FollowUp.NEEDED:
        raise FollowUpNotNeeded(_why_not_needed(action))
    return action


def _why_not_needed(action: agents_selectors.Action) -> str:
    if action.follow_up == FollowUp.PLANNED:
        return f"A follow-up of “{action.title}” is already planned."
    if action.follow_up == FollowUp.DONE:
        return f"“{action.title}” was already followed up: its follow-up is done."
    if action.follow_up == FollowUp.NOT_NEEDED:
        return f"A reviewer already said “{action.title}” needs no follow-up."
    return (
        f"“{action.title}” does not need a follow-up: only a done action whose decision lost its support does "
        f"(this one is {action.status})."
    )


def holding_decisions(*, workspace: Workspace, action: agents_selectors.Action) -> list[str]:
    """The decisions a follow-up of the action depends on by default: each of its decisions that holds, or else the
    decision a revision replaced it with, if that one holds (in the action's order, each once)."""
    own = agents_selectors.decisions_get(workspace=workspace, decision_ids=action.decision_ids)
    standing = acted_on.standing_in(workspace, own)
    return list(dict.fromkeys(s.id for d in own if acted_on.holds_now(s := standing[d.id])))


def _clean_decision_ids(decision_ids: object) -> list[str]:
    rule = (
        f"“decision_ids” must be a list of 1 to {agents_services.MAX_SUPPORTS} ids of decisions that hold "
        "(supported, not dismissed): the follow-up depends on all of them."
    )
    if not isinstance(decision_ids, list) or not 0 < len(decision_ids) <= agents_services.MAX_SUPPORTS:
        raise UserError(rule)
    ids = [parse_id(d) if isinstance(d, str) else None for d in decision_ids]
    if any(i is None for i in ids):
        raise UserError(rule)
    return list(dict.fromkeys(str(i) for i in ids))


def follow_up_plan(
    *, workspace: Workspace, action_id: str, title: object, decision_ids: object = None, actor: Any
) -> agents_selectors.Action:
    """A follow-up action of a done action needing one (pending, on the decisions that hold, or `decision_ids`);
    the done action's follow-up becomes planned. Returns the follow-up action."""
    title = agents_services.clean_title(title, "A follow-up action")
    action = _needing(workspace, action_id)
    if decision_ids is None:
        ids = holding_decisions(workspace=workspace, action=action)
        if not ids:
            names = ", ".join(f"“{t}”" for t in action.decision_titles) or "none"
            raise UserError(
                f"No decision “{action.title}” rests on holds now ({names}): choose the decisions the follow-up "
                "depends on (“decision_ids”), or re-justify or revise the decision first."
            )
    else:
        ids = _clean_decision_ids(decision_ids)
    new_id = str(uuid.uuid4())
    with transaction.atomic():
        written = follow_ups_graph.follow_up_plan(
            workspace=workspace, action_id=action.id, new_id=new_id, title=title, decision_ids=ids,
            actor=actor_name(actor), now=now_iso(),
        )  # fmt: skip
        if not written:
            _needing(workspace, action.id)
            raise UserError(_why_not_on(workspace, ids))
        record_event(actor=actor, workspace=workspace, verb=PLANNED, target=title,
                     payload={"action_id": action.id, "follow_up_id": new_id, "decision_ids": ids})  # fmt: skip
    return found(agents_selectors.action_get(workspace=workspace, action_id=new_id), agents_services.ActionNotFound())


def _why_not_on(workspace: Workspace, ids: list[str]) -> str:
    """Why a follow-up cannot depend on these decisions, in words."""
    found_ = {d.id: d for d in agents_selectors.decisions_get(workspace=workspace, decision_ids=ids)}
    missing = [i for i in ids if i not in found_]
    if missing:
        return f"These are not decisions of this workspace: {', '.join(missing)}."
    weak = [
        f"“{d.title}” ({'dismissed' if d.dismissed_at else str(d.status).replace('_', ' ')})"
        for d in found_.values()
        if d.dismissed_at or not status_holds(decision=True, status=d.status)
    ]
    if weak:
        return "A follow-up can depend only on decisions that hold (supported, not dismissed); these do not: " + (
            ", ".join(weak) + "."
        )
    return "A decision it would depend on changed meanwhile; try again."


def clean_reason(reason: object) -> str:
    """A reason no follow-up is needed: required, plain text of bounded length."""
    if not isinstance(reason, str) or not reason.strip():
        raise UserError("Say why no follow-up is needed: the reason is empty.")
    if (problem := unstorable(reason)) is not None:
        raise UserError(f"A reason cannot contain {problem}.")
    if len(reason) > MAX_REASON_CHARS:
        raise UserError(f"A reason must be plain text of at most {MAX_REASON_CHARS:,} characters.")
    return " ".join(reason.split())


def follow_up_not_needed(
    *, workspace: Workspace, action_id: str, reason: object, actor: Any
) -> agents_selectors.Action:
    """Says a done action needing a follow-up needs none, and why; returns the done action."""
    reason = clean_reason(reason)
    action = _needing(workspace, action_id)
    with transaction.atomic():
        if not follow_ups_graph.follow_up_not_needed(
            workspace=workspace, action_id=action.id, reason=reason, actor=actor_name(actor), now=now_iso()
        ):
            _needing(workspace, action.id)
            raise Conflict("This action changed meanwhile; try again.")
        record_event(actor=actor, workspace=workspace, verb=NOT_NEEDED, target=action.title,
                     payload={"action_id": action.id, "reason": reason})  # fmt: skip
    return found(
        agents_selectors.action_get(workspace=workspace, action_id=action.id), agents_services.ActionNotFound()
    )
