"""JSON API of suggested corrections (docs/api.md, Suggestions): the list (newest first, open by default), one,
the correction preview that accepts one (applied with the claims' corrections and its `suggestion_id`), turning one
down, and flagging a contradiction of a current claim with an exact quote."""

from __future__ import annotations

from typing import Annotated, Any

from django.http import HttpRequest
from ninja import Field, Query, Router, Schema
from ninja.responses import Status
from pydantic import StrictBool, StrictInt

from afterhack.lists.cursors import Page, PresentPageIn
from afterhack.schemas import DocumentText, Id, IdOut, Input, PathId, Refuse, Text, Timestamp, Words, errors
from afterhack.text import MAX_REASON_CHARS, MAX_STATEMENT_CHARS
from claims.api.claims import EvidenceErrorOut
from claims.text import MAX_SOURCE_CHARS
from corrections.api.corrections import PreviewOut, preview_out
from corrections.lists import SUGGESTIONS
from corrections.selectors import suggestions as suggestions_selectors
from corrections.services import accept as accept_services
from corrections.services import suggestions as suggestions_services
from corrections.statuses import FoundBy, SuggestionKind, SuggestionStatus
from workspaces.access import get_rw_workspace_for_user, get_workspace_for_user
from workspaces.services.audit import actor_name

router = Router()

# -- requests -------------------------------------------------------------------------------------------


class SuggestionFilter(PresentPageIn):
    status: Annotated[SuggestionStatus, SUGGESTIONS.filters["status"].refuse("status")] = SuggestionStatus.OPEN
    kind: Annotated[SuggestionKind | None, SUGGESTIONS.filters["kind"].refuse("kind")] = None


class RejectIn(Input):
    reason: Annotated[
        Text | None,
        Field(max_length=MAX_REASON_CHARS, description="Why it is not a contradiction, or why both hold."),
        Refuse(words=f"“reason” must be text of at most {MAX_REASON_CHARS:,} characters, without NUL characters."),
    ] = None
    both_hold: Annotated[
        StrictBool,
        Field(description="True: both claims hold (e.g. they speak of different things); false: not a contradiction."),
        Refuse(words="“both_hold” must be true or false."),
    ] = False


class SuggestionPreviewIn(Input):
    statement: Annotated[
        Words | None,
        Field(max_length=MAX_STATEMENT_CHARS, description="What the claim should say; the suggested one if left out."),
        Refuse(
            words=f"“statement” must be text: not empty, at most {MAX_STATEMENT_CHARS:,} characters, without NUL "
            "characters."
        ),
    ] = None
    other: Annotated[
        StrictBool,
        Field(
            description="Correct the other one: the newer claim (`by_claim_id`) is the wrong one, corrected to the "
            "older claim's statement, citing its quote."
        ),
        Refuse(words="“other” must be true or false."),
    ] = False


class FlagIn(Input):
    source_id: Annotated[Id, Refuse(words="“source_id” must be the id of a source of this workspace.")]
    quote: Annotated[
        DocumentText,
        Field(max_length=MAX_SOURCE_CHARS, description="Exactly as it occurs in the source's current version."),
        Refuse(words="“quote” must be the passage, as a string, exactly as it is in the source."),
    ]
    statement: Annotated[
        Words,
        Field(max_length=MAX_STATEMENT_CHARS, description="What the claim should say instead, as the passage says."),
        Refuse(
            words=f"“statement” must be text: not empty, at most {MAX_STATEMENT_CHARS:,} characters, without NUL "
            "characters."
        ),
    ]
    start: Annotated[
        StrictInt | None,
        Field(description="Where the quote begins; without it, its first occurrence is used."),
        Refuse(words="“start” must be a whole number: the offset where the passage begins."),
    ] = None


# -- answers --------------------------------------------------------------------------------------------


class EvidenceOut(Schema):
    source_id: IdOut
    quote: str
    start: int
    end: int


class SuggestionOut(Schema):
    id: IdOut
    kind: SuggestionKind
    status: SuggestionStatus
    claim_id: IdOut = Field(description="The claim it would correct (the older belief).")
    by_claim_id: IdOut | None = Field(description="The newer claim that says otherwise, for one found between claims.")
    statement: str = Field(description="What the newer claim (or whoever flagged it) says instead.")
    evidence: EvidenceOut | None = Field(description="The passage that says so, its quote exact; null if none.")
    found_by: FoundBy
    reason: str = Field(description="Why it was suggested, in a sentence.")
    created_at: Timestamp
    correction_id: IdOut | None = Field(description="The correction made of it, once accepted.")
    decided_at: Timestamp | None = Field(description="When it was turned down, accepted or became obsolete.")
    decided_by: str | None
    decision_reason: str | None = Field(description="The reason given when it was turned down.")
    both_hold: bool | None = Field(description="Turned down because both claims hold.")
    run_id: IdOut | None = Field(description="The agent run (an MCP session's) that flagged it, if one did.")


class SuggestionPreviewOut(PreviewOut):
    suggestion_id: IdOut = Field(description="Send it with Apply (`POST …/claims/{claim_id}/corrections`).")
    evidence: EvidenceOut | None = Field(description="The passage the correction will cite.")


# -- operations -----------------------------------------------------------------------------------------


@router.get(
    "/{ws_id}/suggestions",
    operation_id="corrections_api_suggestion_list",
    response={200: Page[SuggestionOut], **errors(401, 404, 422, 503)},
)
def suggestion_list(request: HttpRequest, ws_id: PathId, filters: Query[SuggestionFilter]) -> Any:
    """Suggested corrections, newest first: the open ones unless `status` says otherwise, of one `kind` if given.
    The present only: `as_of` is 422."""
    workspace = get_workspace_for_user(request.user, ws_id)
    filters.present_only()
    page = suggestions_selectors.suggestions_page(
        workspace=workspace, status=filters.status, kind=filters.kind or "", limit=filters.limit, cursor=filters.cursor
    )
    return page.answer(suggestions_selectors.suggestion_json)


@router.get(
    "/{ws_id}/suggestions/{suggestion_id}",
    operation_id="corrections_api_suggestion_detail",
    response={200: SuggestionOut, **errors(401, 404, 503)},
)
def suggestion_detail(request: HttpRequest, ws_id: PathId, suggestion_id: PathId) -> Any:
    """One suggestion, whatever its status."""
    workspace = get_workspace_for_user(request.user, ws_id)
    return suggestions_selectors.suggestion_json(
        suggestions_selectors.suggestion_required(workspace=workspace, suggestion_id=suggestion_id)
    )


@router.post(
    "/{ws_id}/suggestions/{suggestion_id}/reject",
    operation_id="corrections_api_suggestion_reject",
    response={200: SuggestionOut, **errors(401, 403, 404, 409, 422, 503)},
)
def suggestion_reject(request: HttpRequest, ws_id: PathId, suggestion_id: PathId, payload: RejectIn) -> Any:
    """Turns an open suggestion down (not a contradiction, or with `both_hold` both claims hold), with an optional
    reason: recorded, audited, and that pair of claims is never suggested again. 409 conflict if it is not open."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    rejected = suggestions_services.suggestion_reject(
        workspace=workspace, suggestion_id=suggestion_id, reason=payload.reason, both_hold=payload.both_hold,
        actor=request.user,
    )  # fmt: skip
    return suggestions_selectors.suggestion_json(rejected)


@router.post(
    "/{ws_id}/suggestions/{suggestion_id}/preview",
    operation_id="corrections_api_suggestion_preview",
    response={200: SuggestionPreviewOut, **errors(401, 403, 404, 409, 422, 503)},
)
def suggestion_preview(request: HttpRequest, ws_id: PathId, suggestion_id: PathId, payload: SuggestionPreviewIn) -> Any:
    """The correction preview of the suggestion's claim with the suggested statement (or the one given) and the
    passage it would cite; with `other`, of the newer claim (`by_claim_id`) with the older claim's statement and
    quote. Apply it with `POST …/claims/{claim_id}/corrections` and this `suggestion_id`. 409 conflict if the
    suggestion is not open, claim_not_current if its claim no longer is; 403 forbidden if you flagged it (yourself
    or through an agent with your token): another reviewer accepts it."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    plan, accepted = accept_services.suggestion_preview(
        workspace=workspace, suggestion_id=suggestion_id, by=actor_name(request.user), statement=payload.statement,
        other=payload.other,
    )  # fmt: skip
    evidence = accepted.evidence
    cited = plan_evidence(evidence) if evidence else None
    return {**preview_out(plan), "suggestion_id": accepted.suggestion.id, "evidence": cited}


def plan_evidence(evidence: accept_services.Evidence) -> dict[str, Any]:
    start = evidence.start or 0
    return {
        "source_id": evidence.source_id,
        "quote": evidence.quote,
        "start": start,
        "end": start + len(evidence.quote),
    }


@router.post(
    "/{ws_id}/claims/{claim_id}/contradictions",
    operation_id="corrections_api_contradiction_flag",
    response={200: SuggestionOut, 201: SuggestionOut, **errors(401, 403, 404, 409, 503), 422: EvidenceErrorOut},
)
def contradiction_flag(request: HttpRequest, ws_id: PathId, claim_id: PathId, payload: FlagIn) -> Any:
    """Flags that a passage contradicts a current claim: 201 an open suggestion to correct the claim to `statement`,
    citing the passage (`found_by` "person" over this API). The same flag again answers 200 with the suggestion it
    made. 422 evidence_not_found (with its reason) if the quote is not in the source's current version, 409
    claim_not_current if the claim was superseded or retracted, 404 for a claim or source of another workspace;
    nothing is stored on any refusal."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    suggestion, created = suggestions_services.contradiction_flag(
        workspace=workspace, claim_id=claim_id, source_id=payload.source_id, quote=payload.quote,
        statement=payload.statement, start=payload.start, found_by=FoundBy.PERSON, actor=request.user,
    )  # fmt: skip
    return Status(201 if created else 200, suggestions_selectors.suggestion_json(suggestion))
