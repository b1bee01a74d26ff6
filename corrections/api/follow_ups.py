"""JSON API of a reviewer's answer to a done action whose decision lost its support: plan a follow-up action, or
say none is needed. Listed under the agents app's tag, with the actions, where a client looks for them."""

from __future__ import annotations

from typing import Annotated, Any

from django.http import HttpRequest
from ninja import Field, Router
from ninja.responses import Status
from pydantic import ConfigDict, StrictBool
from pydantic.config import JsonDict

from afterhack.errors import UserError
from afterhack.schemas import Id, Input, PathId, Refuse, Text, Words, errors
from afterhack.text import MAX_REASON_CHARS, MAX_TITLE_CHARS
from agents.api.actions import ActionOut, action_out
from agents.api.routes import router as agents_router
from agents.services import decisions as agents_services
from corrections.services import follow_ups
from workspaces.access import get_rw_workspace_for_user

router = Router()

ACTION_TAGS = agents_router.tags

BODY_RULE = (
    'Send {"title"} to plan a follow-up action (with "decision_ids" to choose the decisions it depends on), or '
    '{"not_needed": true, "reason"} to say none is needed.'
)


# One of the two shapes (null is the same as left out): a follow-up to plan, or none needed and why.
FOLLOW_UP_SHAPES: JsonDict = {
    "oneOf": [
        {"required": ["title"], "properties": {"title": {"type": "string"}, "not_needed": {"const": False}}},
        {
            "required": ["not_needed", "reason"],
            "properties": {"not_needed": {"const": True}, "title": {"type": "null"}, "decision_ids": {"type": "null"}},
        },
    ]
}


class FollowUpIn(Input):
    model_config = ConfigDict(json_schema_extra=FOLLOW_UP_SHAPES)

    title: Annotated[
        Words | None,
        Field(max_length=MAX_TITLE_CHARS, description="The follow-up action's title."),
        Refuse(words=f"“title” must be text of at most {MAX_TITLE_CHARS} characters, without NUL characters."),
    ] = None
    decision_ids: Annotated[
        list[Id] | None,
        Field(
            min_length=1, max_length=agents_services.MAX_SUPPORTS,
            description="The decisions the follow-up depends on (they must hold); by default the done action's "
            "decisions that still hold, or the decisions a revision replaced them with.",
        ),
        Refuse(words=f"“decision_ids” must be a list of 1 to {agents_services.MAX_SUPPORTS} decision ids."),
    ] = None  # fmt: skip
    not_needed: Annotated[
        StrictBool,
        Field(description="True: no follow-up is needed (give the reason)."),
        Refuse(words="“not_needed” must be true or false."),
    ] = False
    reason: Annotated[
        Text | None,
        Field(max_length=MAX_REASON_CHARS, description="Why no follow-up is needed (required with not_needed)."),
        Refuse(words=f"“reason” must be text of at most {MAX_REASON_CHARS:,} characters, without NUL characters."),
    ] = None

    @classmethod
    def misshapen(cls, data: dict[str, Any]) -> str | None:
        planning = data.get("title") is not None or data.get("decision_ids") is not None
        if data.get("not_needed") is True and planning:
            return "Either plan a follow-up or say none is needed, not both. " + BODY_RULE
        if data.get("not_needed") is not True and data.get("title") is None:
            return BODY_RULE
        return None


@router.post(
    "/{ws_id}/actions/{action_id}/follow-up",
    operation_id="corrections_api_action_follow_up",
    response={201: ActionOut, 200: ActionOut, **errors(401, 403, 404, 409, 422, 503)},
    tags=ACTION_TAGS,
)
def action_follow_up(request: HttpRequest, ws_id: PathId, action_id: PathId, payload: FollowUpIn) -> Any:
    """A done action whose decision lost its support (its follow_up "needed"): with `title`, 201 the follow-up
    action (pending, depending on the action's decisions that still hold, or on `decision_ids`), and the done
    action's follow_up becomes "planned"; with `not_needed` and a `reason`, 200 the done action, its follow_up
    "not_needed". 409 if its follow_up is not "needed"."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    if payload.not_needed:
        return action_out(
            follow_ups.follow_up_not_needed(
                workspace=workspace, action_id=action_id, reason=payload.reason, actor=request.user
            )
        )
    if payload.title is None:
        raise UserError(BODY_RULE)
    planned = follow_ups.follow_up_plan(
        workspace=workspace, action_id=action_id, title=payload.title, decision_ids=payload.decision_ids,
        actor=request.user,
    )  # fmt: skip
    return Status(201, action_out(planned))
