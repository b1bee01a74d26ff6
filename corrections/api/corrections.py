"""JSON API of corrections: what correcting a claim would do (preview), applying it (with its idempotency key and
an optional cited passage), and the workspace's corrections; the shapes of what a correction affected."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from django.http import HttpRequest
from ninja import Field, Query, Router, Schema
from ninja.responses import Status
from pydantic import StrictInt

from afterhack.lists.cursors import Page, PageIn
from afterhack.schemas import DocumentText, ErrorOut, Id, IdOut, Input, PathId, Refuse, Timestamp, Words, errors
from afterhack.text import MAX_REASON_CHARS, MAX_STATEMENT_CHARS
from claims.api.claims import EvidenceErrorOut
from claims.text import MAX_SOURCE_CHARS
from corrections.selectors import corrections as corrections_selectors
from corrections.services import apply as apply_services
from corrections.services import preview as preview_services
from corrections.statuses import ApplyStatus
from workspaces.access import get_rw_workspace_for_user, get_workspace_for_user

router = Router()

# -- requests -------------------------------------------------------------------------------------------

Statement = Annotated[
    Words,
    Field(max_length=MAX_STATEMENT_CHARS, description="What the claim should say instead."),
    Refuse(
        words=f"The corrected statement must be text: not empty, at most {MAX_STATEMENT_CHARS:,} "
        "characters, without NUL characters."
    ),
]


class PreviewIn(Input):
    statement: Statement


class EvidenceIn(Input):
    """A passage of a source the replacement claim cites beside the correction's own words."""

    not_an_object: ClassVar[str] = apply_services.EVIDENCE_RULE
    source_id: Annotated[Id, Refuse(words="“evidence.source_id” must be the id of a source of this workspace.")]
    quote: Annotated[
        DocumentText,
        Field(max_length=MAX_SOURCE_CHARS, description="Exactly as it occurs in the source's current version."),
        Refuse(words="“evidence.quote” must be the passage, as a string, exactly as it is in the source."),
    ]
    start: Annotated[
        StrictInt | None,
        Field(description="Where the quote begins; without it, its first occurrence is used."),
        Refuse(words="“evidence.start” must be a whole number: the offset where the passage begins."),
    ] = None


class ApplyIn(Input):
    statement: Statement
    reason: Annotated[
        Words,
        Field(max_length=MAX_REASON_CHARS, description="Why the claim is wrong."),
        Refuse(
            words=f"Say why the claim is wrong: the reason must be text of at most {MAX_REASON_CHARS:,} "
            "characters, not empty."
        ),
    ]
    revision: Annotated[
        StrictInt,
        Field(ge=0, le=corrections_selectors.MAX_REVISION, description="The `revision` the preview answered."),
        Refuse(words="“revision” must be the whole number the preview returned."),
    ]
    idempotency_key: Annotated[
        Words,
        Field(max_length=apply_services.MAX_KEY_CHARS, description="The same key again answers the first outcome."),
        Refuse(
            words=f"“idempotency_key” must be a non-empty string of at most {apply_services.MAX_KEY_CHARS} characters, "
            "without NUL characters."
        ),
    ]
    evidence: Annotated[
        EvidenceIn | None,
        Field(
            description="A passage of a source that the replacement claim also cites (checked like a claim's quote "
            "against the source's current version when the correction is applied)."
        ),
        Refuse(words=apply_services.EVIDENCE_RULE),
    ] = None
    suggestion_id: Annotated[
        Id | None,
        Field(
            description="The open suggestion this correction accepts (of this claim, or by it: correct the other "
            "one). The correction cites its passage (`evidence` may be left out) and the suggestion becomes accepted."
        ),
        Refuse(words="“suggestion_id” must be the id of a suggestion of this workspace."),
    ] = None


# -- answers --------------------------------------------------------------------------------------------


class AffectedOut(Schema):
    decisions_needing_review: list[IdOut]
    decisions_still_supported: list[IdOut]
    actions_held: list[IdOut]
    claims_unsupported: list[IdOut]
    # A correction applied before follow-ups were kept recorded none.
    actions_already_done: list[IdOut] = Field(
        default_factory=list,
        description="Done actions of the decisions needing review: they stay done, and Apply marks them "
        "`follow_up: needed`.",
    )


class PreviewOut(Schema):
    claim_id: IdOut
    statement: str = Field(description="The statement previewed, as it will be stored (whitespace folded).")
    revision: int = Field(description="Send it back with Apply: it stands for everything this correction depends on.")
    affected: AffectedOut
    still_supported_by: dict[str, list[IdOut]] = Field(
        description="For each decision still supported: the justification that keeps it up."
    )
    restating: list[IdOut] = Field(
        description="Current claims among the remaining supports of still-supported decisions that contain a content "
        "word the correction removes (in the old statement, not in the new; case-insensitive; stop words ignored): "
        "still supported, but check."
    )


class AppliedOut(Schema):
    correction_id: IdOut
    status: ApplyStatus
    replacement_claim_id: IdOut
    affected: AffectedOut = Field(description="Exactly what the preview with the same revision promised.")


class StaleErrorOut(ErrorOut):
    revision: int | None = Field(None, description="For stale_correction_preview: the revision to preview again at.")


class CorrectionOut(Schema):
    id: IdOut
    claim_id: IdOut
    replacement_claim_id: IdOut
    statement: str
    reason: str
    actor: str
    applied_at: Timestamp
    affected: AffectedOut


def correction_out(correction: corrections_selectors.Correction) -> dict[str, Any]:
    return {
        "id": correction.id, "claim_id": correction.claim_id, "replacement_claim_id": correction.replacement_claim_id,
        "statement": correction.statement, "reason": correction.reason, "actor": correction.actor,
        "applied_at": correction.applied_at, "affected": correction.affected,
    }  # fmt: skip


# -- operations -----------------------------------------------------------------------------------------


@router.post(
    "/{ws_id}/claims/{claim_id}/correction-preview",
    operation_id="corrections_api_correction_preview",
    response={200: PreviewOut, **errors(401, 403, 404, 409, 422, 503)},
)
def correction_preview(request: HttpRequest, ws_id: PathId, claim_id: PathId, payload: PreviewIn) -> Any:
    """What correcting the claim would do: decisions needing review or still supported, actions held, claims
    unsupported. 409 claim_not_current if the claim is already superseded or retracted; 422 invalid_input if the
    statement is the claim's own (case, spacing and a final full stop ignored): there is nothing to correct."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    return preview_out(preview_services.preview(workspace=workspace, claim_id=claim_id, statement=payload.statement))


def preview_out(plan: preview_services.Preview) -> dict[str, Any]:
    return {
        "claim_id": plan.claim.id, "statement": plan.statement, "revision": plan.fingerprint,
        "affected": plan.impact.as_json(), "still_supported_by": plan.impact.still_supported_by,
        "restating": plan.restating,
    }  # fmt: skip


@router.post(
    "/{ws_id}/claims/{claim_id}/corrections",
    operation_id="corrections_api_correction_apply",
    response={
        200: AppliedOut,
        201: AppliedOut,
        **errors(401, 403, 404, 503),
        409: StaleErrorOut,
        422: EvidenceErrorOut,
    },
)
def correction_apply(request: HttpRequest, ws_id: PathId, claim_id: PathId, payload: ApplyIn) -> Any:
    """Applies the correction previewed at `revision` (201); the same idempotency_key again answers 200
    already_applied, and 422 idempotency_key_reused (naming what differs) if the claim, statement, reason or
    evidence is not the same as the first time (a request refused as stale is sent again with the same key at a
    new preview's revision). With `evidence`, the replacement also cites that passage: 422 evidence_not_found (with
    its reason) if the quote is not in the source's current version, 404 if there is no such source here,
    409 if it was retracted. 409 stale_correction_preview (with the current revision) if anything the
    preview depended on changed, claim_not_current if another correction superseded the claim; 422 invalid_input
    if the statement is the claim's own (nothing to correct). With `suggestion_id`, it accepts that suggestion in
    the same write: 404 if there is no such suggestion, 409 conflict if it is not open, 403 forbidden if you
    flagged it (yourself or through an agent with your token: another reviewer accepts it), 422 if it is about
    another claim or `evidence` is not its passage; nothing is stored on any refusal."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    evidence = payload.evidence.model_dump() if payload.evidence else None
    outcome = apply_services.apply(
        workspace=workspace, claim_id=claim_id, statement=payload.statement, reason=payload.reason,
        revision=payload.revision, idempotency_key=payload.idempotency_key, actor=request.user, evidence=evidence,
        suggestion_id=payload.suggestion_id,
    )  # fmt: skip
    body = {
        "correction_id": outcome.correction_id, "status": outcome.status,
        "replacement_claim_id": outcome.replacement_claim_id, "affected": outcome.affected,
    }  # fmt: skip
    return Status(201 if outcome.status == ApplyStatus.APPLIED else 200, body)


@router.get(
    "/{ws_id}/corrections",
    operation_id="corrections_api_correction_list",
    response={200: Page[CorrectionOut], **errors(401, 404, 422, 503)},
)
def correction_list(request: HttpRequest, ws_id: PathId, page: Query[PageIn]) -> Any:
    """Every correction of the workspace, newest first."""
    workspace = get_workspace_for_user(request.user, ws_id)
    return corrections_selectors.corrections_page(workspace=workspace, limit=page.limit, cursor=page.cursor).answer(
        correction_out
    )
