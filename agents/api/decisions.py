"""JSON API of decisions: create one from its justifications, list them, read one (as it is or as it was)."""

from __future__ import annotations

from typing import Annotated, Any

from django.http import HttpRequest
from ninja import Field, Query, Router, Schema
from ninja.responses import Status

from afterhack.errors import found
from afterhack.lists.cursors import Page, PresentPageIn
from afterhack.schemas import AsOfIn, Id, IdOut, Input, PathId, Refuse, Text, Timestamp, Words, errors
from afterhack.text import MAX_RATIONALE_CHARS, MAX_TITLE_CHARS
from agents.lists import DECISION_STATUS
from agents.selectors import decisions as decision_selectors
from agents.services import decisions as decision_services
from agents.statuses import DecisionKind, DecisionStatus, Origin, RevisedActions
from workspaces.access import get_rw_workspace_for_user, get_workspace_for_user

router = Router()


Title = Annotated[
    Words,
    Field(max_length=MAX_TITLE_CHARS),
    Refuse(words=f"It needs a title: text of at most {MAX_TITLE_CHARS} characters, without NUL characters."),
]


Justifications = Annotated[
    list[Annotated[list[Id], Field(min_length=1, max_length=decision_services.MAX_SUPPORTS)]],
    Field(
        min_length=1,
        max_length=decision_services.MAX_SUPPORTS,
        description=f"Each inner list is one justification: the claims or decisions that together suffice "
        f"(at most {decision_services.MAX_SUPPORTS} ids in all).",
    ),
    Refuse(
        "invalid_support",
        "“justifications” must be a non-empty list of justifications, each a non-empty list of claim or decision ids.",
    ),
]


class DecisionIn(Input):
    title: Title
    rationale: Annotated[
        Text | None,
        Field(max_length=MAX_RATIONALE_CHARS),
        Refuse(words=f"A rationale must be text of at most {MAX_RATIONALE_CHARS:,} characters (or left out)."),
    ] = None
    justifications: Justifications


class RejustifyIn(Input):
    justifications: Justifications


class ReviseIn(DecisionIn):
    actions: Annotated[
        RevisedActions,
        Field(
            description="What happens to the old decision's pending and held actions: `move` to the new decision "
            "(each pending if all its decisions are supported, else held) or `cancel` them."
        ),
        Refuse(
            words="“actions” must be “move” (the open actions go to the new decision) or “cancel” (they are cancelled).",
            missing="Say what happens to its open actions: “actions” is “move” or “cancel”.",
        ),
    ]


class DecisionFilter(PresentPageIn):
    status: Annotated[
        DecisionStatus | None,
        DECISION_STATUS.refuse("status"),
    ] = None


class DecisionOut(Schema):
    id: IdOut
    title: str
    status: DecisionStatus
    review_reason: str | None = Field(description="Why it needs review, when it does.")
    justifications: list[list[IdOut]]
    rationale: str
    origin: Origin | None
    run_id: IdOut | None = Field(description="The agent's run that made it, if any.")
    action_ids: list[IdOut]
    created_at: Timestamp
    dismissed: bool = Field(description="Taken out of the review queue; its actions were cancelled.")
    kind: DecisionKind = Field(
        description="manual (made by a person), agent (the agent's answer), or unanswered (the agent found no "
        "source-backed answer to `question`)."
    )
    question: str | None = Field(description="The question the agent was asked, for the agent's decisions.")
    supersedes: IdOut | None = Field(description="The decision this one revised, if any.")
    superseded_by: IdOut | None = Field(description="The decision that revised this one (status superseded).")


def decision_out(decision: decision_selectors.Decision) -> dict[str, Any]:
    return {
        "id": decision.id, "title": decision.title, "status": decision.status, "review_reason": decision.review_reason,
        "justifications": decision.justifications, "rationale": decision.rationale or "", "origin": decision.origin,
        "run_id": decision.run_id, "action_ids": decision.action_ids, "created_at": decision.created_at,
        "dismissed": decision.dismissed_at is not None, "kind": decision.kind, "question": decision.question,
        "supersedes": decision.supersedes, "superseded_by": decision.superseded_by,
    }  # fmt: skip


# The operation ids are those the API had as one module, agents/api.py (ninja would derive them from the module).


@router.post(
    "/{ws_id}/decisions",
    response={201: DecisionOut, **errors(401, 403, 404, 422, 503)},
    operation_id="agents_api_decision_create",
)
def decision_create(request: HttpRequest, ws_id: PathId, payload: DecisionIn) -> Any:
    """A decision; each inner list of `justifications` is a set of claims/decisions that together suffice.
    422 invalid_support if one of them is missing, or is not a current claim or a supported decision."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    decision = decision_services.decision_add(
        workspace=workspace, title=payload.title, rationale=payload.rationale,
        justifications=payload.justifications, actor=request.user,
    )  # fmt: skip
    return Status(201, decision_out(decision))


@router.get(
    "/{ws_id}/decisions",
    response={200: Page[DecisionOut], **errors(401, 404, 422, 503)},
    operation_id="agents_api_decision_list",
)
def decision_list(request: HttpRequest, ws_id: PathId, filters: Query[DecisionFilter]) -> Any:
    """Decisions, newest first; ?status=needs_review for the review queue. The present only: `as_of` is 422."""
    workspace = get_workspace_for_user(request.user, ws_id)
    filters.present_only()
    decisions = decision_selectors.decisions_page(
        workspace=workspace, status=filters.status or "", limit=filters.limit, cursor=filters.cursor
    )
    return decisions.answer(decision_out)


@router.get(
    "/{ws_id}/decisions/{decision_id}",
    response={200: DecisionOut, **errors(401, 404, 422, 503)},
    operation_id="agents_api_decision_detail",
)
def decision_detail(request: HttpRequest, ws_id: PathId, decision_id: PathId, past: Query[AsOfIn]) -> Any:
    """One decision. With `as_of`: the decision as it was then (status, review reason, the justifications it had,
    what superseded it by then); 404 if it did not exist yet, 422 if `as_of` is not a moment."""
    workspace = get_workspace_for_user(request.user, ws_id)
    moment = past.moment()
    decision = found(
        decision_selectors.decision_get(workspace=workspace, decision_id=decision_id, as_of=moment),
        decision_services.DecisionNotFound(as_of=moment),
    )
    return decision_out(decision)
