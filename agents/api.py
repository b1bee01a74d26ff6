"""JSON API: asking the agent, runs, decisions and actions (API.md §2, the agent, decisions and actions)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Query, Router, Schema
from ninja.responses import Status

from afterhack.api import ErrorOut
from afterhack.clock import STALLED_ERROR
from agents import graph as agents_graph
from agents import services
from workspaces.access import get_rw_workspace_for_user, get_workspace_for_user

router = Router(tags=["agent, decisions and actions"])

ERRORS = {401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 422: ErrorOut}


class AskIn(Schema):
    question: Any = None


class DecisionIn(Schema):
    title: Any = None
    rationale: Any = None
    justifications: Any = None


class ActionIn(Schema):
    title: Any = None
    decision_ids: Any = None


class ActionStatusIn(Schema):
    status: Any = None


class StatusFilter(Schema):
    status: str = ""


def decision_out(decision: agents_graph.Decision) -> dict[str, Any]:
    return {
        "id": decision.id, "title": decision.title, "status": decision.status, "review_reason": decision.review_reason,
        "justifications": decision.justifications, "rationale": decision.rationale, "origin": decision.origin,
        "run_id": decision.run_id, "action_ids": decision.action_ids, "created_at": decision.created_at,
        "dismissed": decision.dismissed_at is not None,
    }  # fmt: skip


def action_out(action: agents_graph.Action) -> dict[str, Any]:
    return {
        "id": action.id,
        "title": action.title,
        "status": action.status,
        "decision_ids": action.decision_ids,
        "origin": action.origin,
    }


def run_out(workspace: Any, run: agents_graph.Run) -> dict[str, Any]:
    decision = agents_graph.decision_get(workspace=workspace, decision_id=run.decision_id) if run.decision_id else None
    actions = [a for aid in run.action_ids if (a := agents_graph.action_get(workspace=workspace, action_id=aid))]
    trajectory = run.trajectory
    return {
        "id": run.id, "status": "failed" if run.stalled else run.status, "question": run.question,
        "searched_claim_ids": run.searched_claim_ids, "retrieved_claim_ids": run.retrieved_claim_ids,
        "decision": decision_out(decision) if decision else None, "actions": [action_out(a) for a in actions],
        "error": STALLED_ERROR if run.stalled else run.error, "agent": run.agent, "model": run.model or None,
        "model_calls": trajectory.get("model_calls", 0),
        "tokens": {"prompt": trajectory.get("prompt_tokens", 0), "completion": trajectory.get("completion_tokens", 0)},
        "dropped": [e for e in trajectory.get("events", []) if e.get("kind") == "dropped"],
        "trajectory": trajectory.get("events", []),
        "created_at": run.created_at, "finished_at": run.finished_at,
    }  # fmt: skip


@router.post("/{ws_id}/ask", response={202: dict, **ERRORS})
def ask(request: HttpRequest, ws_id: str, payload: AskIn) -> Any:
    """Starts a run of the agent on a question; poll GET /runs/{run_id}."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    return Status(202, {"run_id": services.ask(workspace=workspace, question=payload.question, actor=request.user)})


@router.get("/{ws_id}/runs/{run_id}", response={200: dict, **ERRORS})
def run_detail(request: HttpRequest, ws_id: str, run_id: str) -> Any:
    """A run: its status, what it searched and retrieved, its decision and actions, or why it failed."""
    workspace = get_workspace_for_user(request.user, ws_id)
    run = agents_graph.run_get(workspace=workspace, run_id=run_id)
    if run is None:
        raise services.RunNotFound("No such run in this workspace.")
    return run_out(workspace, run)


@router.post("/{ws_id}/decisions", response={201: dict, **ERRORS})
def decision_create(request: HttpRequest, ws_id: str, payload: DecisionIn) -> Any:
    """A decision; each inner list of `justifications` is a set of claims/decisions that together suffice."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    decision = services.decision_add(
        workspace=workspace, title=payload.title, rationale=payload.rationale,
        justifications=payload.justifications, actor=request.user,
    )  # fmt: skip
    return Status(201, decision_out(decision))


@router.get("/{ws_id}/decisions", response={200: list[dict], **ERRORS})
def decision_list(request: HttpRequest, ws_id: str, filters: Query[StatusFilter]) -> Any:
    """Decisions, newest first; ?status=needs_review for the review queue."""
    workspace = get_workspace_for_user(request.user, ws_id)
    return [decision_out(d) for d in agents_graph.decision_list(workspace=workspace, status=filters.status)]


@router.get("/{ws_id}/decisions/{decision_id}", response={200: dict, **ERRORS})
def decision_detail(request: HttpRequest, ws_id: str, decision_id: str) -> Any:
    """One decision."""
    workspace = get_workspace_for_user(request.user, ws_id)
    return decision_out(services.decision_get(workspace=workspace, decision_id=decision_id))


@router.post("/{ws_id}/actions", response={201: dict, **ERRORS})
def action_create(request: HttpRequest, ws_id: str, payload: ActionIn) -> Any:
    """An action depending on all the listed decisions."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    action = services.action_add(
        workspace=workspace, title=payload.title, decision_ids=payload.decision_ids, actor=request.user
    )
    return Status(201, action_out(action))


@router.get("/{ws_id}/actions", response={200: list[dict], **ERRORS})
def action_list(request: HttpRequest, ws_id: str, filters: Query[StatusFilter]) -> Any:
    """Actions, newest first; ?status=held for those waiting on a review."""
    workspace = get_workspace_for_user(request.user, ws_id)
    return [action_out(a) for a in agents_graph.action_list(workspace=workspace, status=filters.status)]


@router.get("/{ws_id}/actions/{action_id}", response={200: dict, **ERRORS})
def action_detail(request: HttpRequest, ws_id: str, action_id: str) -> Any:
    """One action."""
    workspace = get_workspace_for_user(request.user, ws_id)
    action = agents_graph.action_get(workspace=workspace, action_id=action_id)
    if action is None:
        raise services.ActionNotFound("No such action in this workspace.")
    return action_out(action)


@router.post("/{ws_id}/actions/{action_id}/status", response={200: dict, **ERRORS})
def action_mark(request: HttpRequest, ws_id: str, action_id: str, payload: ActionStatusIn) -> Any:
    """Marks an action done or cancelled; 409 if it is held (a decision it depends on needs review)."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    return action_out(
        services.action_mark(workspace=workspace, action_id=action_id, status=payload.status, actor=request.user)
    )


class RejustifyIn(Schema):
    justifications: Any = None


@router.post("/{ws_id}/decisions/{decision_id}/justifications", response={200: dict, **ERRORS})
def decision_rejustify(request: HttpRequest, ws_id: str, decision_id: str, payload: RejustifyIn) -> Any:
    """New justifications for a decision needing review: it is supported again, its held actions pending."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    decision = services.decision_rejustify(
        workspace=workspace, decision_id=decision_id, justifications=payload.justifications, actor=request.user
    )
    return decision_out(decision)


@router.post("/{ws_id}/decisions/{decision_id}/dismiss", response={200: dict, **ERRORS})
def decision_dismiss(request: HttpRequest, ws_id: str, decision_id: str) -> Any:
    """Takes a decision needing review out of the queue; the actions depending on it are cancelled."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    return decision_out(services.decision_dismiss(workspace=workspace, decision_id=decision_id, actor=request.user))
