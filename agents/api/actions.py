"""JSON API of actions: add one on decisions, list them, read one (as it is or as it was), mark one done or
cancelled, or reopen it."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from django.http import HttpRequest
from ninja import Field, Query, Router, Schema
from ninja.responses import Status

from afterhack.errors import found
from afterhack.lists.cursors import Page, PresentPageIn
from afterhack.schemas import AsOfIn, Id, IdOut, Input, PathId, Refuse, errors
from agents.api.decisions import Title
from agents.lists import ACTION_STATUS
from agents.selectors import decisions as decision_selectors
from agents.services import decisions as decision_services
from agents.statuses import ActionStatus, FollowUp, Origin
from workspaces.access import get_rw_workspace_for_user, get_workspace_for_user

router = Router()


class ActionIn(Input):
    title: Title
    decision_ids: Annotated[
        list[Id],
        Field(min_length=1, max_length=decision_services.MAX_SUPPORTS, description="It depends on all of them."),
        Refuse(
            "invalid_support",
            f"An action needs “decision_ids”: a list of 1 to {decision_services.MAX_SUPPORTS} decision ids.",
        ),
    ]


class ActionStatusIn(Input):
    status: Annotated[
        Literal[ActionStatus.DONE, ActionStatus.CANCELLED, ActionStatus.PENDING],
        Field(description="done or cancelled; pending reopens a cancelled action while its decisions hold."),
        Refuse(words="An action can be marked “done” or “cancelled”, or reopened with “pending”."),
    ]


class ActionFilter(PresentPageIn):
    status: Annotated[
        ActionStatus | None,
        ACTION_STATUS.refuse("status"),
    ] = None


class ActionOut(Schema):
    id: IdOut
    title: str
    status: ActionStatus
    decision_ids: list[IdOut]
    origin: Origin | None
    follow_up: FollowUp | None = Field(
        description="null, or for a done action whose decision lost support: needed, then planned (a follow-up "
        "action exists), done (it is done) or not_needed."
    )


def action_out(action: decision_selectors.Action) -> dict[str, Any]:
    return {
        "id": action.id,
        "title": action.title,
        "status": action.status,
        "decision_ids": action.decision_ids,
        "origin": action.origin,
        "follow_up": action.follow_up,
    }


# The operation ids are those the API had as one module, agents/api.py (ninja would derive them from the module).


@router.post(
    "/{ws_id}/actions",
    response={201: ActionOut, **errors(401, 403, 404, 409, 422, 503)},
    operation_id="agents_api_action_create",
)
def action_create(request: HttpRequest, ws_id: PathId, payload: ActionIn) -> Any:
    """An action depending on all the listed decisions (held at once if one of them needs review);
    409 if one of them was dismissed."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    action = decision_services.action_add(
        workspace=workspace, title=payload.title, decision_ids=payload.decision_ids, actor=request.user
    )
    return Status(201, action_out(action))


@router.get(
    "/{ws_id}/actions",
    response={200: Page[ActionOut], **errors(401, 404, 422, 503)},
    operation_id="agents_api_action_list",
)
def action_list(request: HttpRequest, ws_id: PathId, filters: Query[ActionFilter]) -> Any:
    """Actions, newest first; ?status=held for those waiting on a review. The present only: `as_of` is 422."""
    workspace = get_workspace_for_user(request.user, ws_id)
    filters.present_only()
    actions = decision_selectors.actions_page(
        workspace=workspace, status=filters.status or "", limit=filters.limit, cursor=filters.cursor
    )
    return actions.answer(action_out)


@router.get(
    "/{ws_id}/actions/{action_id}",
    response={200: ActionOut, **errors(401, 404, 422, 503)},
    operation_id="agents_api_action_detail",
)
def action_detail(request: HttpRequest, ws_id: PathId, action_id: PathId, past: Query[AsOfIn]) -> Any:
    """One action. With `as_of`: the action as it was then (status, the decisions it depended on); 404 if it
    did not exist yet, 422 if `as_of` is not a moment."""
    workspace = get_workspace_for_user(request.user, ws_id)
    moment = past.moment()
    action = found(
        decision_selectors.action_get(workspace=workspace, action_id=action_id, as_of=moment),
        decision_services.ActionNotFound(as_of=moment),
    )
    return action_out(action)


@router.post(
    "/{ws_id}/actions/{action_id}/status",
    response={200: ActionOut, **errors(401, 403, 404, 409, 422, 503)},
    operation_id="agents_api_action_mark",
)
def action_mark(request: HttpRequest, ws_id: PathId, action_id: PathId, payload: ActionStatusIn) -> Any:
    """Marks an action done or cancelled, or reopens a cancelled one with "pending". 409 if it is held
    (a decision it depends on needs review) or already done or cancelled; a reopen is 409 unless the
    action is cancelled and every decision it depends on holds (supported, not dismissed)."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    return action_out(
        decision_services.action_mark(
            workspace=workspace, action_id=action_id, status=payload.status, actor=request.user
        )
    )
