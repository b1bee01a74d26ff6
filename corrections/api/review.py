"""JSON API of a reviewer's answer to a decision that needs review: new justifications, a dismissal, a revision.
Listed under the agents app's tag, with the decisions, where a client looks for them."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Router
from ninja.responses import Status

from afterhack.schemas import PathId, errors
from agents.api.decisions import DecisionOut, RejustifyIn, ReviseIn, decision_out
from agents.api.routes import router as agents_router
from corrections import review
from workspaces.access import get_rw_workspace_for_user

router = Router()

DECISION_TAGS = agents_router.tags


@router.post(
    "/{ws_id}/decisions/{decision_id}/justifications",
    operation_id="corrections_api_decision_rejustify",
    response={200: DecisionOut, **errors(401, 403, 404, 409, 422, 503)},
    tags=DECISION_TAGS,
)
def decision_rejustify(request: HttpRequest, ws_id: PathId, decision_id: PathId, payload: RejustifyIn) -> Any:
    """New justifications for a decision needing review: it is supported again, its held actions pending.
    409 if it does not need review; 422 invalid_support as for a new decision, or if it would rest on itself."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    decision = review.decision_rejustify(
        workspace=workspace, decision_id=decision_id, justifications=payload.justifications, actor=request.user
    )
    return decision_out(decision)


@router.post(
    "/{ws_id}/decisions/{decision_id}/dismiss",
    operation_id="corrections_api_decision_dismiss",
    response={200: DecisionOut, **errors(401, 403, 404, 409, 503)},
    tags=DECISION_TAGS,
)
def decision_dismiss(request: HttpRequest, ws_id: PathId, decision_id: PathId) -> Any:
    """Takes a decision needing review out of the queue; the actions depending on it are cancelled.
    409 if it is not waiting for review (supported, superseded or already dismissed)."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    return decision_out(review.decision_dismiss(workspace=workspace, decision_id=decision_id, actor=request.user))


@router.post(
    "/{ws_id}/decisions/{decision_id}/revise",
    operation_id="corrections_api_decision_revise",
    response={201: DecisionOut, **errors(401, 403, 404, 409, 422, 503)},
    tags=DECISION_TAGS,
)
def decision_revise(request: HttpRequest, ws_id: PathId, decision_id: PathId, payload: ReviseIn) -> Any:
    """A new supported decision in place of one needing review, which is kept with status superseded.
    Its pending and held actions move to the new decision (re-evaluated) or are cancelled, as `actions` says.
    409 if it does not need review, was dismissed or was already revised; 422 invalid_support as for a new
    decision, or if the new one would rest on the old one or on a decision resting on it."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    decision = review.decision_revise(
        workspace=workspace, decision_id=decision_id, title=payload.title, rationale=payload.rationale,
        justifications=payload.justifications, actions=payload.actions, actor=request.user,
    )  # fmt: skip
    return Status(201, decision_out(decision))
