"""JSON API: sources, claims, extraction, search (API.md §2, sources and claims)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Query, Router, Schema
from ninja.responses import Status

from afterhack.api import ErrorOut
from afterhack.clock import STALLED_ERROR
from afterhack.errors import UserError
from claims import graph as claims_graph
from claims import selectors, services
from workspaces.access import get_membership, get_rw_workspace_for_user, get_workspace_for_user

router = Router(tags=["sources and claims"])

ERRORS = {401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 422: ErrorOut}


class SourceIn(Schema):
    # Any JSON value: what is wrong with it is answered as invalid_source, in words.
    title: Any = None
    text: Any = None


class ClaimIn(Schema):
    statement: Any = None
    source_id: Any = None
    evidence_quote: Any = None
    start: Any = None
    derived_from: Any = None


class SearchIn(Schema):
    q: str = ""


def claim_out(claim: claims_graph.Claim) -> dict[str, Any]:
    """A claim in the API's shape."""
    fragment = claim.fragments[0] if claim.fragments else None
    return {
        "id": claim.id,
        "statement": claim.statement,
        "status": claim.status,
        "evidence_quote": claim.evidence_quote,
        "start": claim.start,
        "end": claim.end,
        "confidence": claim.confidence,
        "confidence_kind": claim.confidence_kind,
        "source_id": claim.source_id,
        "fragment": {"id": fragment.id, "origin_type": fragment.origin_type, "text": fragment.text}
        if fragment
        else None,
        "fragments": [{"id": f.id, "start": f.start, "end": f.end} for f in claim.fragments],
        "supersedes": claim.supersedes,
        "superseded_by": claim.superseded_by,
        "derived_from": claim.derived_from,
        "extractor": claim.extractor,
        "created_at": claim.created_at,
    }


def extraction_out(extraction: claims_graph.Extraction | None) -> dict[str, Any] | None:
    if extraction is None:
        return None
    return {
        "status": "failed" if extraction.stalled else extraction.status,
        "done": extraction.done,
        "total": extraction.total,
        "error": STALLED_ERROR if extraction.stalled else extraction.error,
        "extractor": extraction.extractor,
        "claims_added": extraction.claims_added,
        "rejected": extraction.rejected,
    }


@router.post("/{ws_id}/sources", response={201: dict, **ERRORS})
def source_create(request: HttpRequest, ws_id: str, payload: SourceIn) -> Any:
    """Adds a source from its title and text (line endings normalised); 422 invalid_source when unusable."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    added = services.source_add(workspace=workspace, title=payload.title, text=payload.text, actor=request.user)
    return Status(201, {
        "id": added.id, "title": added.title, "version": added.version, "sha256": added.sha256,
        "length": added.length, "fragments": added.fragments,
    })  # fmt: skip


@router.get("/{ws_id}/sources", response={200: list[dict], **ERRORS})
def source_list(request: HttpRequest, ws_id: str) -> Any:
    """The workspace's sources, newest first."""
    workspace = get_workspace_for_user(request.user, ws_id)
    return [
        {
            "id": s.id,
            "title": s.title,
            "version": s.version,
            "length": s.length,
            "claims": s.claims,
            "created_at": s.created_at,
        }
        for s in selectors.sources(workspace=workspace)
    ]


@router.get("/{ws_id}/sources/{source_id}", response={200: dict, **ERRORS})
def source_detail(request: HttpRequest, ws_id: str, source_id: str) -> Any:
    """The source's current version with its claims' spans and the latest extraction's progress."""
    workspace = get_workspace_for_user(request.user, ws_id)
    page = selectors.source_page(workspace=workspace, source_id=source_id)
    if page is None:
        raise services.SourceNotFound("No such source in this workspace.")
    version = page.version
    return {
        "id": version.source_id, "title": version.title, "version": version.version, "sha256": version.sha256,
        "length": version.length, "text": version.text,
        "claims": [{"id": s.id, "start": s.start, "end": s.end, "status": s.status} for s in page.spans],
        "extraction": extraction_out(page.extraction),
    }  # fmt: skip


@router.post("/{ws_id}/sources/{source_id}/extract", response={202: dict, **ERRORS})
def source_extract(request: HttpRequest, ws_id: str, source_id: str) -> Any:
    """Queues extraction of the current version (the model, or the offline extractor without one)."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    extraction = services.extraction_request(workspace=workspace, source_id=source_id, actor=request.user)
    # "queued": the request is accepted; the run itself (new, or the one already going) is in "extraction".
    return Status(202, {"status": "queued", "extraction": extraction_out(extraction)})


@router.get("/{ws_id}/sources/{source_id}/rejected", response={200: list[dict], **ERRORS})
def source_rejected(request: HttpRequest, ws_id: str, source_id: str) -> Any:
    """Claims refused because their quote did not validate; reviewers also get the near-miss hint."""
    membership = get_membership(request.user, ws_id)
    workspace = membership.workspace
    if claims_graph.source_get(workspace=workspace, source_id=source_id) is None:
        raise services.SourceNotFound("No such source in this workspace.")
    rejected = claims_graph.rejected_list(workspace=workspace, source_id=source_id)
    answer = []
    for item in rejected:
        row: dict[str, Any] = {
            "statement": item.statement,
            "evidence_quote": item.evidence_quote,
            "reason": item.reason,
            "detail": item.detail,
        }
        if membership.can_write:
            has_hint = item.hint_start is not None
            row["hint"] = {"start": item.hint_start, "end": item.hint_end} if has_hint else None
        answer.append(row)
    return answer


@router.post("/{ws_id}/claims", response={201: dict, **ERRORS})
def claim_create(request: HttpRequest, ws_id: str, payload: ClaimIn) -> Any:
    """An evidence-backed claim (source_id + exact evidence_quote [+ start]) or a derived one (derived_from)."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    if payload.derived_from is not None and (payload.source_id is not None or payload.evidence_quote is not None):
        raise UserError(
            "A claim is either evidence-backed (source_id and evidence_quote) or derived (derived_from), not both."
        )
    if payload.derived_from is None and payload.source_id is None:
        raise UserError(
            "Give “source_id” and “evidence_quote” for an evidence-backed claim, or “derived_from” for a derived one."
        )
    if payload.start is not None and (isinstance(payload.start, bool) or not isinstance(payload.start, int)):
        raise UserError("“start” must be a whole number: the offset where the quote begins.")
    if payload.derived_from is not None:
        claim = services.derived_claim_add(
            workspace=workspace, statement=payload.statement, derived_from=payload.derived_from, actor=request.user
        )
    else:
        claim = services.claim_add(
            workspace=workspace, source_id=payload.source_id, statement=payload.statement,
            evidence_quote=payload.evidence_quote, start=payload.start, actor=request.user,
        )  # fmt: skip
    return Status(201, claim_out(claim))


@router.get("/{ws_id}/claims", response={200: dict, **ERRORS})
def claim_search(request: HttpRequest, ws_id: str, filters: Query[SearchIn]) -> Any:
    """Claims matching q (case-insensitive; a sentence falls back to its content words)."""
    workspace = get_workspace_for_user(request.user, ws_id)
    result = selectors.claim_search(workspace=workspace, query=filters.q)
    claims = selectors.claims_by_ids(workspace=workspace, claim_ids=[hit.id for hit in result.hits])
    return {"results": [claim_out(c) for c in claims], "fell_back_to_words": result.fell_back}


@router.get("/{ws_id}/claims/{claim_id}", response={200: dict, **ERRORS})
def claim_detail(request: HttpRequest, ws_id: str, claim_id: str) -> Any:
    """One claim."""
    workspace = get_workspace_for_user(request.user, ws_id)
    claim = claims_graph.claim_get(workspace=workspace, claim_id=claim_id)
    if claim is None:
        raise services.ClaimNotFound("No such claim in this workspace.")
    return claim_out(claim)
