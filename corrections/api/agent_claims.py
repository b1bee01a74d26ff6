"""JSON API of a reviewer's answer to claims proposed by agents (docs/api.md, Suggestions; docs/suggestions.md,
"Claims proposed by agents"): approve one, approve many, reject many (one is rejected with the suggestions' reject).
Mounted before the suggestions' own router, so `suggestions/approve` is not read as a suggestion's id."""

from __future__ import annotations

from typing import Annotated, Any

from django.http import HttpRequest
from ninja import Field, Router, Schema

from afterhack.schemas import Input, PathId, Refuse, Text, errors
from afterhack.text import MAX_REASON_CHARS
from corrections.api.suggestions import SuggestionOut
from corrections.selectors import suggestions as suggestions_selectors
from corrections.services import agent_claims as agent_claims_services
from corrections.services.agent_claims import MAX_BULK, Decided, Outcome
from workspaces.access import get_rw_workspace_for_user

router = Router()

REASON = Annotated[
    Text | None,
    Field(max_length=MAX_REASON_CHARS, description="Why, in words (optional; kept with the suggestion and audited)."),
    Refuse(words=f"“reason” must be text of at most {MAX_REASON_CHARS:,} characters, without NUL characters."),
]


class BulkIn(Input):
    ids: Annotated[
        list[Text],
        Field(min_length=1, max_length=MAX_BULK, description=f"The suggestions to decide (at most {MAX_BULK})."),
        Refuse(words=f"“ids” must be a list of 1 to {MAX_BULK} suggestion ids."),
    ]
    reason: REASON = None


class DecidedOut(Schema):
    id: str
    outcome: Outcome = Field(description="What was done with it; anything but approved or rejected left it as it was.")
    detail: str = Field(description="The outcome in words.")
    suggestion: SuggestionOut | None = Field(description="The suggestion as it is now; null if there is none.")


class BulkOut(Schema):
    results: list[DecidedOut] = Field(description="One per id given (duplicates once), in the order given.")
    decided: int = Field(description="How many were approved (or rejected) by this request.")


def _bulk_out(results: list[Decided]) -> dict[str, Any]:
    done = (Outcome.APPROVED, Outcome.REJECTED)
    return {
        "results": [
            {"id": r.id, "outcome": r.outcome, "detail": r.detail,
             "suggestion": suggestions_selectors.suggestion_json(r.suggestion) if r.suggestion else None}
            for r in results
        ],
        "decided": sum(1 for r in results if r.outcome in done),
    }  # fmt: skip


@router.post(
    "/{ws_id}/suggestions/approve",
    operation_id="corrections_api_agent_claims_approve",
    response={200: BulkOut, **errors(401, 403, 404, 422, 503)},
)
def agent_claims_approve(request: HttpRequest, ws_id: PathId, payload: BulkIn) -> Any:
    """Approves many agents' proposed claims at once (reviewers and admins). Per item: each open agent_claim
    suggestion is approved (its claim becomes current and is watched for contradictions), all in one write; every
    other id is reported with why (`not_open`, `not_an_agent_claim`, `own_proposal`: one your agent proposed with
    your token, `source_changed`, `not_found`) and left as it was. Always 200 for a valid request; `decided` says
    how many were approved."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    return _bulk_out(
        agent_claims_services.agent_claims_approve(
            workspace=workspace, ids=payload.ids, actor=request.user, reason=payload.reason
        )
    )


@router.post(
    "/{ws_id}/suggestions/reject",
    operation_id="corrections_api_suggestions_reject",
    response={200: BulkOut, **errors(401, 403, 404, 422, 503)},
)
def suggestions_reject(request: HttpRequest, ws_id: PathId, payload: BulkIn) -> Any:
    """Turns down many suggestions at once (reviewers and admins), per item as approve does: an agent's proposed
    claim is rejected with its suggestion (it never becomes current), a suggested correction is turned down (that
    pair is never suggested again)."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    return _bulk_out(
        agent_claims_services.suggestions_reject_many(
            workspace=workspace, ids=payload.ids, actor=request.user, reason=payload.reason
        )
    )


@router.post(
    "/{ws_id}/suggestions/{suggestion_id}/approve",
    operation_id="corrections_api_agent_claim_approve",
    response={200: SuggestionOut, **errors(401, 403, 404, 409, 422, 503)},
)
def agent_claim_approve(request: HttpRequest, ws_id: PathId, suggestion_id: PathId) -> Any:
    """Approves an agent's proposed claim (reviewers and admins): the claim becomes current (citable, and watched
    for contradictions), the suggestion `accepted`. 403 forbidden if you proposed it (an agent holding your token
    did: another reviewer approves it); 409 conflict if the suggestion is not open, is not an agent's claim, or the
    claim's source changed since it was proposed; nothing is stored then."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    approved = agent_claims_services.agent_claim_approve(
        workspace=workspace, suggestion_id=suggestion_id, actor=request.user
    )
    return suggestions_selectors.suggestion_json(approved)
