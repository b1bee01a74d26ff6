"""Writes of decisions and actions made by people: a decision from its justifications, an action on decisions,
and a person's own marks on an action (done, cancelled, reopened); each one graph query audited in the same
transaction."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from django.db import transaction

from afterhack.clock import now_iso
from afterhack.errors import Conflict, NotFound, UserError, found
from afterhack.holds import status_holds
from afterhack.text import MAX_RATIONALE_CHARS, MAX_TITLE_CHARS, clean_text
from agents.graph import actions as actions_graph
from agents.graph import decisions as decisions_graph
from agents.graph.shapes import Action, Decision
from agents.statuses import ActionStatus, DecisionStatus
from claims.services.claims import InvalidSupport
from claims.statuses import ClaimStatus
from workspaces.models import Workspace
from workspaces.services.audit import actor_name, record_event

MAX_SUPPORTS = 50


class DecisionNotFound(NotFound):
    thing = "decision"


class ActionNotFound(NotFound):
    thing = "action"


def clean_title(title: object, what: str) -> str:
    return clean_text(title, noun="A title", max_chars=MAX_TITLE_CHARS, missing=f"{what} needs a title.")


def clean_justifications(justifications: object) -> list[list[str]]:
    if not isinstance(justifications, list) or not justifications:
        raise InvalidSupport("A decision needs “justifications”: a list of lists of claim or decision ids.")
    groups = []
    for group in justifications:
        if not isinstance(group, list) or not group or not all(isinstance(i, str) and i for i in group):
            raise InvalidSupport("Each justification must be a non-empty list of claim or decision ids.")
        groups.append(list(dict.fromkeys(group)))
    if sum(len(g) for g in groups) > MAX_SUPPORTS:
        raise InvalidSupport(f"A decision can rest on at most {MAX_SUPPORTS} supports.")
    return groups


def clean_rationale(rationale: object) -> str:
    """The rationale with its whitespace folded ('' when there is none), or UserError saying what is wrong."""
    return clean_text(
        rationale, noun="A rationale", max_chars=MAX_RATIONALE_CHARS, required=False,
        missing="", not_text="A rationale must be text (or left out).",
    )  # fmt: skip


def decision_add(
    *, workspace: Workspace, title: object, rationale: object, justifications: object, actor: Any
) -> Decision:
    """A supported decision; each justification is a set of claims or decisions that together suffice."""
    title = clean_title(title, "A decision")
    rationale_text = clean_rationale(rationale)
    groups = clean_justifications(justifications)
    decision_id = str(uuid.uuid4())
    return _write_audited(
        write=lambda: decisions_graph.decision_create(
            workspace=workspace, decision_id=decision_id, title=title, rationale=rationale_text,
            justifications=groups, created_by=actor_name(actor), now=now_iso(),
        ),
        refused=lambda: InvalidSupport(why_not_supported(workspace, groups)),
        actor=actor, workspace=workspace, verb="decision.created", target=title,
        payload={"decision_id": decision_id, "justifications": groups},
        read=lambda: decisions_graph.decision_get(workspace=workspace, decision_id=decision_id),
    )  # fmt: skip


def _write_audited[Node](
    *,
    write: Callable[[], bool],
    refused: Callable[[], Exception],
    actor: Any,
    workspace: Workspace,
    verb: str,
    target: str,
    payload: dict[str, Any],
    read: Callable[[], Node | None],
) -> Node:
    """One graph write (one query) audited in the same Postgres transaction, then the node as it now stands.
    Where the graph refused the write, `refused()` (asked inside the transaction, so it sees the state that
    refused) is raised and nothing is audited."""
    with transaction.atomic():
        if not write():
            raise refused()
        record_event(actor=actor, workspace=workspace, verb=verb, target=target, payload=payload)
    node = read()
    assert node is not None
    return node


def why_not_supported(workspace: Workspace, groups: list[list[str]]) -> str:
    """Why a decision cannot rest on these justifications (one is missing or does not hold), in words."""
    ids = sorted({i for g in groups for i in g})
    states = decisions_graph.node_states(workspace=workspace, ids=ids)
    missing = [i for i in ids if i not in states]
    if missing:
        return f"These are not claims or decisions of this workspace: {', '.join(i[:60] for i in missing)}."
    weak = [
        f"{i} ({label.lower()} is {status}{HINTS.get((label, status), '')})"
        for i, (label, status) in states.items()
        if not status_holds(decision=label == "Decision", status=status)
    ]
    if not weak:
        return "What this decision would rest on changed while it was being saved; try again."
    return f"A decision can only rest on current claims and supported decisions; these are not: {', '.join(weak)}."


SUPERSEDED_HINT = ": it was revised, rest on the decision that replaced it"
PROPOSED_HINT = ": an agent proposed it and a reviewer has not approved it yet, so it cannot be cited"
HINTS: dict[tuple[str, str], str] = {
    ("Decision", DecisionStatus.SUPERSEDED): SUPERSEDED_HINT,
    ("Claim", ClaimStatus.PROPOSED): PROPOSED_HINT,
}


def decision_get(*, workspace: Workspace, decision_id: str) -> Decision:
    return found(
        decisions_graph.decision_get(workspace=workspace, decision_id=decision_id),
        DecisionNotFound(),
    )


def action_add(*, workspace: Workspace, title: object, decision_ids: object, actor: Any) -> Action:
    """An action that depends on all the decisions (held at once if one of them needs review)."""
    title = clean_title(title, "An action")
    if (
        not isinstance(decision_ids, list)
        or not decision_ids
        or not all(isinstance(i, str) and i for i in decision_ids)
    ):
        raise InvalidSupport("An action needs “decision_ids”: a non-empty list of decision ids.")
    ids = list(dict.fromkeys(decision_ids))[:MAX_SUPPORTS]
    action_id = str(uuid.uuid4())
    return _write_audited(
        write=lambda: actions_graph.action_create(
            workspace=workspace, action_id=action_id, title=title, decision_ids=ids,
            created_by=actor_name(actor), now=now_iso(),
        ),
        refused=lambda: _why_no_action(workspace, ids),
        actor=actor, workspace=workspace, verb="action.created", target=title,
        payload={"action_id": action_id, "decision_ids": ids},
        read=lambda: actions_graph.action_get(workspace=workspace, action_id=action_id),
    )  # fmt: skip


def _why_no_action(workspace: Workspace, ids: list[str]) -> UserError:
    """Why no action could be made on these decisions: one is missing, superseded or dismissed."""
    states = decisions_graph.node_states(workspace=workspace, ids=ids)
    missing = [i[:60] for i in ids if states.get(i, ("", ""))[0] != "Decision"]
    if missing:
        return InvalidSupport(f"These are not decisions of this workspace: {', '.join(missing)}.")
    for decision_id in ids:
        decision = decisions_graph.decision_get(workspace=workspace, decision_id=decision_id)
        if decision is not None and decision.status == DecisionStatus.SUPERSEDED:
            return Conflict(
                f"{superseded_words(workspace, decision)} No new action can depend on it: add it to that one."
            )
    return Conflict("One of these decisions was dismissed: no new action can depend on it.")


# Which statuses a person may move an action to, from which. Back to pending is a reopen: only a
# cancelled action, and only while every decision it depends on holds (an undo of a cancel).
ACTION_MOVES = {
    ActionStatus.DONE: [ActionStatus.PENDING],
    ActionStatus.CANCELLED: [ActionStatus.PENDING, ActionStatus.HELD],
    ActionStatus.PENDING: [ActionStatus.CANCELLED],
}


ACTION_VERBS = {
    ActionStatus.DONE: "action.done",
    ActionStatus.CANCELLED: "action.cancelled",
    ActionStatus.PENDING: "action.reopened",
}


def action_mark(*, workspace: Workspace, action_id: str, status: object, actor: Any) -> Action:
    """Marks an action done or cancelled, or reopens a cancelled one (pending again) while its decisions hold."""
    if not isinstance(status, str) or status not in ACTION_MOVES:
        raise UserError("An action can be marked “done” or “cancelled”, or reopened with “pending”.")
    move = ActionStatus(status)
    action = found(
        actions_graph.action_get(workspace=workspace, action_id=action_id),
        ActionNotFound(),
    )
    return _write_audited(
        write=lambda: actions_graph.action_set_status(
            workspace=workspace, action_id=action_id, status=move.value,
            from_statuses=[s.value for s in ACTION_MOVES[move]], require_holding=move is ActionStatus.PENDING,
            actor=actor_name(actor), now=now_iso(),
        ),
        refused=lambda: Conflict(_why_not_moved(workspace, action_id, move)),
        actor=actor, workspace=workspace, verb=ACTION_VERBS[move], target=action.title,
        payload={"action_id": action_id},
        read=lambda: actions_graph.action_get(workspace=workspace, action_id=action_id),
    )  # fmt: skip


def _why_not_moved(workspace: Workspace, action_id: str, move: ActionStatus) -> str:
    """Why the action could not be moved, in words, from where it stands now."""
    current = actions_graph.action_get(workspace=workspace, action_id=action_id)
    now_status = current.status if current else "gone"
    if move is ActionStatus.PENDING:
        if now_status != ActionStatus.CANCELLED:
            return f"Only a cancelled action can be reopened; this one is {now_status}."
        unheld = actions_graph.action_unheld_decisions(workspace=workspace, action_id=action_id)
        if not unheld:
            return "A decision it depends on changed in the meantime; try again."
        return (
            "This action can be reopened only while every decision it depends on holds: "
            + "; ".join(_why_unheld(decision) for decision in unheld)
            + "."
        )
    if now_status == ActionStatus.HELD:
        return "This action is held: a decision it depends on needs review. Resolve that decision first, or cancel the action."
    return f"This action is already {now_status}."


def _why_unheld(decision: actions_graph.UnheldDecision) -> str:
    if decision.dismissed:
        return f"“{decision.title}” was dismissed"
    if decision.status == DecisionStatus.NEEDS_REVIEW:
        return f"“{decision.title}” needs review (re-justify it first)"
    return f"“{decision.title}” is {decision.status.replace('_', ' ')}"


def superseded_words(workspace: Workspace, decision: Decision) -> str:
    """Who revised a superseded decision, when, and into which decision, in a sentence."""
    new = (
        decisions_graph.decision_get(workspace=workspace, decision_id=decision.superseded_by)
        if decision.superseded_by
        else None
    )
    into = f"“{new.title}” ({new.id})" if new else "another decision"
    return (
        f"“{decision.title}” was revised by {decision.superseded_by_actor or 'a reviewer'} "
        f"on {(decision.superseded_at or '')[:10] or 'an earlier date'}: it is superseded by {into}."
    )
