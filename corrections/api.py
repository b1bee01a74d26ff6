"""JSON API: correction preview, apply, history; new source versions and retraction (API.md §2, corrections)."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from django.http import HttpRequest, HttpResponse
from ninja import Field, Query, Router, Schema
from ninja.responses import Status
from pydantic import StrictInt

from afterhack.clock import moment_iso
from afterhack.errors import UserError
from afterhack.lists.cursors import Page, PageIn
from afterhack.schemas import (
    MAX_MOMENT_CHARS,
    DocumentText,
    ErrorOut,
    Id,
    IdOut,
    Input,
    PathId,
    Refuse,
    Text,
    Timestamp,
    Words,
    errors,
    moment_described,
    moment_refused,
)
from afterhack.text import MAX_REASON_CHARS, MAX_STATEMENT_CHARS
from agents.api.decisions import DecisionOut, RejustifyIn, ReviseIn, decision_out
from agents.api.routes import router as agents_router
from agents.statuses import ActionStatus, DecisionStatus
from claims.api.claims import EvidenceErrorOut
from claims.api.sources import SourceText
from claims.statuses import ClaimStatus
from claims.text import MAX_SOURCE_CHARS
from corrections import review
from corrections.selectors import changes as changes_selectors
from corrections.selectors import corrections as corrections_selectors
from corrections.selectors import prov as prov_selectors
from corrections.services import apply as apply_services
from corrections.services import evidence as evidence_services
from corrections.services import preview as preview_services
from corrections.statuses import ApplyStatus
from workspaces.access import get_rw_workspace_for_user, get_workspace_for_user

router = Router(tags=["corrections"])

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


class VersionIn(Input):
    text: SourceText


# -- answers --------------------------------------------------------------------------------------------


class AffectedOut(Schema):
    decisions_needing_review: list[IdOut]
    decisions_still_supported: list[IdOut]
    actions_held: list[IdOut]
    claims_unsupported: list[IdOut]


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


class EvidenceChangeOut(Schema):
    version: int | None = Field(description="The new version's number (null when the source was retracted).")
    moved: int = Field(description="How many claims' quotes were found in the new version and moved to it.")
    retracted: list[IdOut] = Field(description="The claims whose quotes went away.")
    affected: AffectedOut


def correction_out(correction: corrections_selectors.Correction) -> dict[str, Any]:
    return {
        "id": correction.id, "claim_id": correction.claim_id, "replacement_claim_id": correction.replacement_claim_id,
        "statement": correction.statement, "reason": correction.reason, "actor": correction.actor,
        "applied_at": correction.applied_at, "affected": correction.affected,
    }  # fmt: skip


def change_out(change: evidence_services.EvidenceChange) -> dict[str, Any]:
    return {
        "version": change.version,
        "moved": change.moved,
        "retracted": change.retracted,
        "affected": change.affected,
    }


# -- operations -----------------------------------------------------------------------------------------


@router.post(
    "/{ws_id}/claims/{claim_id}/correction-preview",
    response={200: PreviewOut, **errors(401, 403, 404, 409, 422, 503)},
)
def correction_preview(request: HttpRequest, ws_id: PathId, claim_id: PathId, payload: PreviewIn) -> Any:
    """What correcting the claim would do: decisions needing review or still supported, actions held, claims
    unsupported. 409 claim_not_current if the claim is already superseded or retracted; 422 invalid_input if the
    statement is the claim's own (case, spacing and a final full stop ignored): there is nothing to correct."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    plan = preview_services.preview(workspace=workspace, claim_id=claim_id, statement=payload.statement)
    return {
        "claim_id": plan.claim.id, "statement": plan.statement, "revision": plan.fingerprint,
        "affected": plan.impact.as_json(), "still_supported_by": plan.impact.still_supported_by,
        "restating": plan.restating,
    }  # fmt: skip


@router.post(
    "/{ws_id}/claims/{claim_id}/corrections",
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
    if the statement is the claim's own (nothing to correct)."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    evidence = payload.evidence.model_dump() if payload.evidence else None
    outcome = apply_services.apply(
        workspace=workspace, claim_id=claim_id, statement=payload.statement, reason=payload.reason,
        revision=payload.revision, idempotency_key=payload.idempotency_key, actor=request.user, evidence=evidence,
    )  # fmt: skip
    body = {
        "correction_id": outcome.correction_id, "status": outcome.status,
        "replacement_claim_id": outcome.replacement_claim_id, "affected": outcome.affected,
    }  # fmt: skip
    return Status(201 if outcome.status == ApplyStatus.APPLIED else 200, body)


@router.get("/{ws_id}/corrections", response={200: Page[CorrectionOut], **errors(401, 404, 422, 503)})
def correction_list(request: HttpRequest, ws_id: PathId, page: Query[PageIn]) -> Any:
    """Every correction of the workspace, newest first."""
    workspace = get_workspace_for_user(request.user, ws_id)
    return corrections_selectors.corrections_page(workspace=workspace, limit=page.limit, cursor=page.cursor).answer(
        correction_out
    )


@router.post(
    "/{ws_id}/sources/{source_id}/versions",
    response={201: EvidenceChangeOut, **errors(401, 403, 404, 409, 422, 503)},
)
def source_new_version(request: HttpRequest, ws_id: PathId, source_id: PathId, payload: VersionIn) -> Any:
    """A new version of the source: claims whose quote is still there move to it, the others are retracted
    and propagated. 409 if the source was retracted; 422 if the text is unusable or the same as now."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    change = evidence_services.source_new_version(
        workspace=workspace, source_id=source_id, text=payload.text, actor=request.user
    )
    return Status(201, change_out(change))


@router.post(
    "/{ws_id}/sources/{source_id}/retract", response={200: EvidenceChangeOut, **errors(401, 403, 404, 409, 503)}
)
def source_retract(request: HttpRequest, ws_id: PathId, source_id: PathId) -> Any:
    """Retracts the source: its claims are retracted and what rested on them propagated. 409 if it already was."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    return change_out(evidence_services.source_retract(workspace=workspace, source_id=source_id, actor=request.user))


# -- a reviewer's answer to a flagged decision (listed with the decisions, where a client looks for them) --

DECISION_TAGS = agents_router.tags


@router.post(
    "/{ws_id}/decisions/{decision_id}/justifications",
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


# -- changes of belief (docs/history.md) -------------------------------------------------------------------------


class ChangesIn(PageIn):
    """Which changes: those from `from` (included) up to `to` (left out), each end optional."""

    start: Annotated[
        Text | None,
        Field(
            alias="from",
            max_length=MAX_MOMENT_CHARS,
            description=moment_described("The first moment listed.", day_starts=True),
        ),
        moment_refused("from"),
    ] = None
    end: Annotated[
        Text | None,
        Field(
            alias="to", max_length=MAX_MOMENT_CHARS, description=moment_described("The moment the list stops before.")
        ),
        moment_refused("to"),
    ] = None


# Every status a change can leave or set: a claim's, a decision's or an action's.
STATUSES = tuple(dict.fromkeys(str(status) for status in (*ClaimStatus, *DecisionStatus, *ActionStatus)))


class ChangeCauseOut(Schema):
    kind: Literal[changes_selectors.CAUSES] = Field(  # type: ignore[valid-type]
        description="What caused it: correction (id: the Correction), retraction (the retracted Source), new_version "
        "(the new SourceVersion), rejustification or dismissal (the decision), revision (the new Decision that "
        "supersedes), agent_run (the AgentRun), person (id null: the actor marked it), migration (id null: the "
        "state found when the history began; from_status null: unknown before)."
    )
    id: IdOut | None = Field(description="The id of what caused it, or null (person, migration).")


class ChangeOut(Schema):
    at: Timestamp = Field(description="When (one write, one moment for every node it changed).")
    kind: Literal[changes_selectors.KINDS] = Field(description="What changed: a claim, a decision or an action.")  # type: ignore[valid-type]
    id: IdOut = Field(description="The id of the claim, decision or action.")
    from_status: Literal[STATUSES] | None = Field(  # type: ignore[valid-type]
        description="The status it left (null: unknown, a migration's baseline)."
    )
    to_status: Literal[STATUSES] = Field(description="The status it was given (the same for a dismissal or a move).")  # type: ignore[valid-type]
    cause: ChangeCauseOut
    actor: str | None = Field(description="The username of who caused it, when a person did.")


@router.get("/{ws_id}/changes", response={200: Page[ChangeOut], **errors(401, 404, 422, 503)})
def change_list(request: HttpRequest, ws_id: PathId, window: Query[ChangesIn]) -> Any:
    """Every change of belief (a claim's, decision's or action's status) from `from` up to `to`, oldest first, with
    its cause and actor; the changes one write made share its `at` and come by kind, then id. 422 if a moment is
    not ISO 8601 or `from` is after `to`, or for a cursor given out for another window."""
    workspace = get_workspace_for_user(request.user, ws_id)
    start = "" if window.start is None else moment_iso(window.start, name="from", day_starts=True)
    end = "" if window.end is None else moment_iso(window.end, name="to")
    page = changes_selectors.changes_page(
        workspace=workspace, start=start, end=end, limit=window.limit, cursor=window.cursor
    )
    return page.answer(lambda change: change.record())


# -- the W3C PROV export (docs/prov.md) -------------------------------------------------------------------------


class ProvIn(Input):
    root: Annotated[
        Text | None,
        Field(max_length=100, description="A claim or decision id: export its because-chain; leave out for the whole "
              "workspace."),
        Refuse(words="“root” must be the id of a claim or a decision of this workspace."),
    ] = None  # fmt: skip
    format: Annotated[
        prov_selectors.ProvFormat,
        Field(description="PROV-JSON (json), Turtle (ttl) or PROV-N (provn)."),
        Refuse(words="“format” must be json, ttl or provn."),
    ] = prov_selectors.ProvFormat.JSON
    as_of: Annotated[
        Text | None,
        Field(
            max_length=100,
            description="Not answered: the export is of the chain as it stands, each entity with when it was made; "
            "read the past with `as_of` on claims, decisions and actions, or GET …/changes.",
        ),
    ] = None


# PROV-JSON (https://www.w3.org/submissions/prov-json/): the prefixes, then each kind of record by its id.
PROV_RECORD_KINDS = [
    "entity", "activity", "agent", "wasGeneratedBy", "used", "wasInvalidatedBy", "wasDerivedFrom",
    "wasAttributedTo", "wasAssociatedWith", "actedOnBehalfOf",
]  # fmt: skip
PROV_RECORDS = {
    "type": "object",
    "additionalProperties": {"type": "object", "additionalProperties": True, "description": "A record's attributes."},
}
PROV_JSON = {
    "type": "object",
    "description": "A PROV-JSON document.",
    "required": ["prefix"],
    "properties": {
        "prefix": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Namespaces."},
        **{kind: {**PROV_RECORDS, "description": f"The {kind} records, by id."} for kind in PROV_RECORD_KINDS},
    },
}
PROV_MEDIA = {
    "application/json": {"schema": PROV_JSON},
    "text/turtle": {"schema": {"type": "string", "description": "The PROV-O graph in Turtle."}},
    "text/provenance-notation": {"schema": {"type": "string", "description": "A PROV-N document."}},
}


@router.get(
    "/{ws_id}/prov",
    response={200: Any, **errors(401, 404, 422, 503)},
    openapi_extra={"responses": {200: {"description": "The because-chain as W3C PROV.", "content": PROV_MEDIA}}},
)
def prov_export(request: HttpRequest, ws_id: PathId, params: Query[ProvIn]) -> Any:
    """The because-chain of `root` (a claim or decision: what it rests on down to the sources, what rests on it,
    and the extractions, agent runs and corrections that made or invalidated any of it), or the whole workspace,
    as W3C PROV (docs/prov.md). 422 for a root that is not a claim or decision here, or when the workspace holds
    more than 10,000 nodes (the most one export may hold)."""
    workspace = get_workspace_for_user(request.user, ws_id)
    if params.as_of is not None:
        raise UserError(
            "The PROV export is of the because-chain as it stands (each entity with when it was made, each "
            "correction with when and by whom) and cannot answer “as_of”: read the past with “as_of” on claims, "
            "decisions and actions, or list what changed with GET …/changes."
        )
    export = prov_selectors.prov_export(workspace=workspace, root=params.root, form=params.format)
    return HttpResponse(export.text, content_type=export.content_type)
