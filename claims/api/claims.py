"""JSON API of claims (docs/api.md, Sources and claims; Search): adding an evidence-backed or derived claim, THE search,
a claim as it is or was."""

from __future__ import annotations

from typing import Annotated, Any

from django.http import HttpRequest
from ninja import Field, Query, Router, Schema
from ninja.responses import Status
from pydantic import ConfigDict, StrictInt
from pydantic.config import JsonDict

from afterhack.errors import found
from afterhack.lists.cursors import Page, PageIn
from afterhack.schemas import (
    AsOfIn,
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
)
from afterhack.text import MAX_STATEMENT_CHARS
from claims.api.sources import FragmentSpanOut
from claims.evidence import Reason
from claims.selectors import claims as claims_selectors
from claims.selectors import search as search_selectors
from claims.services import claims as claims_services
from claims.statuses import ClaimStatus, ConfidenceKind, Match, SearchMode
from workspaces.access import get_rw_workspace_for_user, get_workspace_for_user

router = Router()


NOT_BOTH = "A claim is either evidence-backed (source_id and evidence_quote) or derived (derived_from), not both."
NEITHER = "Give “source_id” and “evidence_quote” for an evidence-backed claim, or “derived_from” for a derived one."
# Which of these are given (not null) decides the shape; null is the same as left out.
EVIDENCE_SHAPE: JsonDict = {
    "required": ["source_id", "evidence_quote"],
    "properties": {
        "source_id": {"type": "string"},
        "evidence_quote": {"type": "string"},
        "derived_from": {"type": "null"},
    },
}
DERIVED_SHAPE: JsonDict = {
    "required": ["derived_from"],
    "properties": {
        "derived_from": {"type": "array"},
        "source_id": {"type": "null"},
        "evidence_quote": {"type": "null"},
    },
}


class ClaimIn(Input):
    """An evidence-backed claim (source_id, evidence_quote, start?) or a derived one (derived_from)."""

    model_config = ConfigDict(json_schema_extra={"oneOf": [EVIDENCE_SHAPE, DERIVED_SHAPE]})

    statement: Annotated[
        Words,
        Field(max_length=MAX_STATEMENT_CHARS),
        Refuse(words=f"A claim needs a statement: text of at most {MAX_STATEMENT_CHARS:,} characters."),
    ]
    source_id: Annotated[Id | None, Refuse(words="“source_id” must be the id of a source of this workspace.")] = None
    evidence_quote: Annotated[
        DocumentText | None,
        Field(description="Exactly as it occurs in the source's current version."),
        Refuse(words="“evidence_quote” must be the quote, as a string."),
    ] = None
    start: Annotated[
        StrictInt | None,
        Field(description="Where the quote begins; without it, its first occurrence is used."),
        Refuse(words="“start” must be a whole number: the offset where the quote begins."),
    ] = None
    derived_from: Annotated[
        list[Id] | None,
        Field(
            min_length=1, max_length=claims_services.MAX_PREMISES, description="Claims that together justify this one."
        ),
        Refuse(
            "invalid_support",
            f"“derived_from” must be a list of 1 to {claims_services.MAX_PREMISES} claim ids of this workspace.",
        ),
    ] = None

    @classmethod
    def misshapen(cls, data: dict[str, Any]) -> str | None:
        derived = data.get("derived_from") is not None
        evidence = data.get("source_id") is not None or data.get("evidence_quote") is not None
        if derived == evidence:
            return NOT_BOTH if derived else NEITHER
        return None


class SearchIn(PageIn, AsOfIn):
    q: Annotated[Text, Field(description="Words or a sentence; case does not matter.")] = ""
    mode: Annotated[
        SearchMode | None,
        Field(
            description="lexical (by words), semantic (by meaning) or hybrid (both, fused). Left out: hybrid when "
            "an embeddings model is configured, else lexical."
        ),
        Refuse(words="“mode” must be one of: lexical, semantic, hybrid (or left out)."),
    ] = None


class FragmentOut(Schema):
    id: IdOut
    origin_type: str = Field(description="document, or human_correction for a correction's own words.")
    text: str


class CitedPassageOut(Schema):
    source_id: IdOut
    version: int = Field(description="The version of the source the passage was cited in.")
    quote: str
    start: int
    end: int
    fragments: list[FragmentSpanOut]


class ClaimOut(Schema):
    id: IdOut
    statement: str
    status: ClaimStatus
    evidence_quote: str | None
    start: int | None
    end: int | None
    confidence: float | None
    confidence_kind: ConfidenceKind
    source_id: IdOut | None
    fragment: FragmentOut | None = Field(description="The fragment its evidence is in (the first, if it spans two).")
    fragments: list[FragmentSpanOut]
    supersedes: IdOut | None
    superseded_by: IdOut | None
    derived_from: list[list[IdOut]] = Field(
        description="Its justifications: each a list of claims that together suffice."
    )
    extractor: str
    created_at: Timestamp
    cited_passage: CitedPassageOut | None = Field(
        description="A correction's replacement only: the passage of a source the correction cited beside its own "
        "words (its `fragment`); null when it cited none, and for every other claim."
    )


class EvidenceErrorOut(ErrorOut):
    reason: Reason | None = Field(None, description="For evidence_not_found: why the quote was refused.")


class SearchHitOut(ClaimOut):
    match: Match = Field(description="How it matched: lexical (its words), semantic (its meaning) or both.")


class SearchPageOut(Page[SearchHitOut]):
    fell_back_to_words: bool = Field(description="True when no claim held the whole query, so its words were used.")
    mode: SearchMode = Field(description="The ranking that answered: lexical when degraded.")
    degraded: bool = Field(
        description="True when semantic or hybrid was asked but the answer is lexical: no embeddings model is "
        "configured, or its call failed."
    )


def claim_out(claim: claims_selectors.Claim) -> dict[str, Any]:
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
        "cited_passage": cited_passage_out(claim.cited_passage),
    }


def cited_passage_out(cited: claims_selectors.CitedPassage | None) -> dict[str, Any] | None:
    if cited is None:
        return None
    return {
        "source_id": cited.source_id, "version": cited.version, "quote": cited.quote, "start": cited.start,
        "end": cited.end, "fragments": [{"id": f.id, "start": f.start, "end": f.end} for f in cited.fragments],
    }  # fmt: skip


@router.post(
    "/{ws_id}/claims",
    response={201: ClaimOut, **errors(401, 403, 404, 409, 503), 422: EvidenceErrorOut},
    operation_id="claims_api_claim_create",
)
def claim_create(request: HttpRequest, ws_id: PathId, payload: ClaimIn) -> Any:
    """An evidence-backed claim (source_id + exact evidence_quote [+ start]) or a derived one (derived_from).
    422 evidence_not_found (with its reason) if the quote is not in the source's current version,
    invalid_support if a premise is missing, not current or in another workspace."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    if payload.derived_from is not None:
        claim = claims_services.derived_claim_add(
            workspace=workspace, statement=payload.statement, derived_from=payload.derived_from, actor=request.user
        )
    else:
        claim = claims_services.claim_add(
            workspace=workspace, source_id=payload.source_id, statement=payload.statement,
            evidence_quote=payload.evidence_quote, start=payload.start, actor=request.user,
        )  # fmt: skip
    return Status(201, claim_out(claim))


@router.get(
    "/{ws_id}/claims",
    response={200: SearchPageOut, **errors(401, 404, 422, 503)},
    operation_id="claims_api_claim_search",
)
def claim_search(request: HttpRequest, ws_id: PathId, search: Query[SearchIn]) -> Any:
    """Claims matching q, best first. lexical: case-insensitive; a sentence that matches nothing verbatim falls
    back to its content words (claims holding more of them first). semantic: nearest in meaning (the
    embeddings model). hybrid: both rankings fused (reciprocal rank fusion). If the query cannot be
    embedded, the answer is lexical with degraded true. Pages go through the ranking as it stood at the
    first page (at most its 1,000 best claims), in the mode that answered the first page. With `as_of`: the
    search as it would have answered then (the claims that existed then, each as it was; `count` is of those;
    a cursor works only with the same `as_of`)."""
    workspace = get_workspace_for_user(request.user, ws_id)
    found = search_selectors.claim_search_page(
        workspace=workspace, query=search.q, limit=search.limit, cursor=search.cursor, mode=search.mode,
        as_of=search.moment(),
    )  # fmt: skip
    return {
        **found.claims.answer(lambda claim: {**claim_out(claim), "match": found.matches[claim.id]}),
        "fell_back_to_words": found.fell_back, "mode": found.mode, "degraded": found.degraded,
    }  # fmt: skip


@router.get(
    "/{ws_id}/claims/{claim_id}",
    response={200: ClaimOut, **errors(401, 404, 422, 503)},
    operation_id="claims_api_claim_detail",
)
def claim_detail(request: HttpRequest, ws_id: PathId, claim_id: PathId, past: Query[AsOfIn]) -> Any:
    """One claim. With `as_of`: the claim as it was then (status, evidence, what superseded it by then);
    404 if it did not exist yet, 422 if `as_of` is not a moment."""
    workspace = get_workspace_for_user(request.user, ws_id)
    moment = past.moment()
    claim = found(
        claims_selectors.claim_get(workspace=workspace, claim_id=claim_id, as_of=moment),
        claims_services.ClaimNotFound(as_of=moment),
    )
    return claim_out(claim)
