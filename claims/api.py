"""JSON API: sources, claims, extraction, search (API.md §2, sources and claims)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from django.http import HttpRequest
from ninja import Field, Query, Router, Schema
from ninja.responses import Status
from pydantic import ConfigDict, StrictInt, ValidationError, WithJsonSchema
from pydantic.config import JsonDict

from afterhack.clock import STALLED_ERROR
from afterhack.errors import found
from afterhack.pagination import Page, PageIn
from afterhack.schemas import (
    AsOfIn,
    DocumentText,
    DocumentWords,
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
from afterhack.text import MAX_STATEMENT_CHARS, MAX_TITLE_CHARS
from claims.evidence import Reason
from claims.selectors import claims as claims_selectors
from claims.selectors import search as search_selectors
from claims.selectors import sources as sources_selectors
from claims.services import claims as claims_services
from claims.services import extraction as extraction_services
from claims.services import sources as sources_services
from claims.statuses import ClaimStatus, ConfidenceKind, JobStatus, Match, SearchMode
from claims.text import MAX_SOURCE_CHARS, InvalidSource
from workspaces.access import get_membership, get_rw_workspace_for_user, get_workspace_for_user

router = Router(tags=["sources and claims"])

# -- requests -------------------------------------------------------------------------------------------


# A source's text, as a new source or a new version of one.
SourceText = Annotated[
    DocumentWords,
    Field(
        max_length=MAX_SOURCE_CHARS,
        description="Plain text; line endings, form feeds and vertical tabs are normalised to \\n.",
    ),
    Refuse(
        "invalid_source",
        f"A source's text must be a string: not empty, without NUL characters, at most {MAX_SOURCE_CHARS:,} "
        "characters of valid Unicode.",
        missing="A source needs some text.",
    ),
]


class SourceIn(Input):
    title: Annotated[
        Words,
        Field(max_length=MAX_TITLE_CHARS),
        Refuse(
            "invalid_source",
            f"A source needs a title: text of at most {MAX_TITLE_CHARS} characters, without NUL characters.",
            missing="A source needs a title.",
        ),
    ]
    text: SourceText


class SourceBatchIn(Input):
    # Each item is checked on its own (as a SourceIn), so that every bad one is named with its index; the
    # OpenAPI document states the items' rules, the single endpoint's, from SourceIn itself.
    sources: Annotated[
        list[Any],
        Field(min_length=1, max_length=sources_services.MAX_BATCH_SOURCES),
        WithJsonSchema(
            {
                "type": "array",
                "items": SourceIn.model_json_schema(),
                "minItems": 1,
                "maxItems": sources_services.MAX_BATCH_SOURCES,
                "description": f"1 to {sources_services.MAX_BATCH_SOURCES} sources, each as the body of POST …/sources.",
            }
        ),
        Refuse("invalid_source", words=sources_services.BATCH_SIZE_WORDS, missing=sources_services.BATCH_SIZE_WORDS),
    ]


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


# -- answers --------------------------------------------------------------------------------------------


class FragmentSpanOut(Schema):
    id: IdOut
    start: int
    end: int


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


class SourceAddedOut(Schema):
    id: IdOut
    title: str
    version: int
    sha256: str
    length: int
    fragments: list[FragmentSpanOut]


class SourceBatchOut(Schema):
    sources: list[SourceAddedOut] = Field(description="The sources stored, in the order they were sent.")


class SourceItemErrorOut(Schema):
    index: int = Field(description="Where the source is in “sources”, from 0.")
    code: str = Field(description="invalid_source")
    message: str = Field(description="What is wrong with it, in words.")


class SourceBatchErrorOut(ErrorOut):
    errors: list[SourceItemErrorOut] | None = Field(
        None, description="When sources of the batch are unusable: every one of them, in order. Nothing was stored."
    )


class SourceSummaryOut(Schema):
    id: IdOut
    title: str
    version: int
    length: int
    claims: int = Field(description="How many claims cite its current version.")
    created_at: Timestamp


class ClaimSpanOut(Schema):
    id: IdOut
    start: int
    end: int
    status: ClaimStatus


class ExtractionOut(Schema):
    status: JobStatus
    done: int
    total: int
    error: str | None
    extractor: str
    claims_added: int
    rejected: int


class SourceOut(Schema):
    id: IdOut
    title: str
    version: int
    sha256: str
    length: int
    text: str
    claims: list[ClaimSpanOut]
    extraction: ExtractionOut | None = Field(description="The latest extraction of the current version, if any.")


class ExtractQueuedOut(Schema):
    status: Literal[JobStatus.QUEUED]
    extraction: ExtractionOut = Field(description="The extraction now under way: new, or the one already going.")


class HintOut(Schema):
    start: int
    end: int


class RejectedOut(Schema):
    statement: str
    evidence_quote: str
    reason: Reason
    detail: str
    hint: HintOut | None = Field(
        None, description="Reviewers only: the closest near miss in the text, never accepted automatically."
    )


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


def extraction_out(extraction: sources_selectors.Extraction | None) -> dict[str, Any] | None:
    if extraction is None:
        return None
    return {
        "status": JobStatus.FAILED if extraction.stalled else extraction.status,
        "done": extraction.done,
        "total": extraction.total,
        "error": STALLED_ERROR if extraction.stalled else extraction.error,
        "extractor": extraction.extractor,
        "claims_added": extraction.claims_added,
        "rejected": extraction.rejected,
    }


# -- operations -----------------------------------------------------------------------------------------


@router.post("/{ws_id}/sources", response={201: SourceAddedOut, **errors(401, 403, 404, 422, 503)})
def source_create(request: HttpRequest, ws_id: PathId, payload: SourceIn) -> Any:
    """Adds a source from its title and text (line endings normalised); 422 invalid_source when unusable."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    added = sources_services.source_add(workspace=workspace, title=payload.title, text=payload.text, actor=request.user)
    return Status(201, {
        "id": added.id, "title": added.title, "version": added.version, "sha256": added.sha256,
        "length": added.length, "fragments": added.fragments,
    })  # fmt: skip


def _as_source_body(item: dict[str, Any]) -> dict[str, Any]:
    """A batch's item read as POST …/sources reads its body (SourceIn's rules, words and error code)."""
    try:
        source = SourceIn.model_validate(item)
    except ValidationError as error:
        first = error.errors()[0]
        refused = InvalidSource(first["msg"])
        refused.code = first["type"]
        raise refused from None
    return {"title": source.title, "text": source.text}


@router.post(
    "/{ws_id}/sources:batch", response={201: SourceBatchOut, **errors(401, 403, 404, 503), 422: SourceBatchErrorOut}
)
def source_create_batch(request: HttpRequest, ws_id: PathId, payload: SourceBatchIn) -> Any:
    """Adds 1 to 500 sources at once, all or none: each is checked as POST …/sources checks one, and if any is
    unusable the answer is 422 invalid_source with `errors` naming every unusable one (index, code, message)
    and nothing is stored. Otherwise one atomic graph query stores them all, then one INSERT their audit
    events; 201 with each source as POST …/sources answers it, in the order sent. The same source twice is
    two sources, and a batch sent again is stored again (as with POST …/sources). The body is bounded like
    any request body (10 MB): a bigger one is refused 422 before it is read."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    added = sources_services.sources_add(
        workspace=workspace, sources=payload.sources, actor=request.user, check=_as_source_body
    )
    return Status(201, {"sources": [
        {"id": a.id, "title": a.title, "version": a.version, "sha256": a.sha256, "length": a.length,
         "fragments": a.fragments}
        for a in added
    ]})  # fmt: skip


@router.get("/{ws_id}/sources", response={200: Page[SourceSummaryOut], **errors(401, 404, 422, 503)})
def source_list(request: HttpRequest, ws_id: PathId, page: Query[PageIn]) -> Any:
    """The workspace's sources, newest first."""
    workspace = get_workspace_for_user(request.user, ws_id)
    sources = sources_selectors.sources_page(workspace=workspace, limit=page.limit, cursor=page.cursor)
    return sources.answer(
        lambda s: {"id": s.id, "title": s.title, "version": s.version, "length": s.length, "claims": s.claims,
                   "created_at": s.created_at}
    )  # fmt: skip


@router.get("/{ws_id}/sources/{source_id}", response={200: SourceOut, **errors(401, 404, 503)})
def source_detail(request: HttpRequest, ws_id: PathId, source_id: PathId) -> Any:
    """The source's current version with its claims' spans and the latest extraction's progress."""
    workspace = get_workspace_for_user(request.user, ws_id)
    page = found(
        sources_selectors.source_page(workspace=workspace, source_id=source_id),
        sources_services.SourceNotFound(),
    )
    version = page.version
    return {
        "id": version.source_id, "title": version.title, "version": version.version, "sha256": version.sha256,
        "length": version.length, "text": version.text,
        "claims": [{"id": s.id, "start": s.start, "end": s.end, "status": s.status} for s in page.spans],
        "extraction": extraction_out(page.extraction),
    }  # fmt: skip


@router.post(
    "/{ws_id}/sources/{source_id}/extract", response={202: ExtractQueuedOut, **errors(401, 403, 404, 409, 503)}
)
def source_extract(request: HttpRequest, ws_id: PathId, source_id: PathId) -> Any:
    """Queues extraction of the current version (the model, or the offline extractor without one)."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    extraction = extraction_services.extraction_request(workspace=workspace, source_id=source_id, actor=request.user)
    # "queued": the request is accepted; the run itself (new, or the one already going) is in "extraction".
    return Status(202, {"status": JobStatus.QUEUED, "extraction": extraction_out(extraction)})


@router.get(
    "/{ws_id}/sources/{source_id}/rejected",
    response={200: Page[RejectedOut], **errors(401, 404, 422, 503)},
    exclude_unset=True,
)
def source_rejected(request: HttpRequest, ws_id: PathId, source_id: PathId, page: Query[PageIn]) -> Any:
    """Claims refused because their quote did not validate, oldest first; reviewers also get the near-miss hint."""
    membership = get_membership(request.user, ws_id)
    workspace = membership.workspace
    if sources_selectors.source_get(workspace=workspace, source_id=source_id) is None:
        raise sources_services.SourceNotFound()
    rejected = sources_selectors.rejected_page(
        workspace=workspace, source_id=source_id, limit=page.limit, cursor=page.cursor
    )

    def rejected_out(item: sources_selectors.RejectedClaim) -> dict[str, Any]:
        row: dict[str, Any] = {
            "statement": item.statement, "evidence_quote": item.evidence_quote, "reason": item.reason,
            "detail": item.detail,
        }  # fmt: skip
        if membership.can_write:
            has_hint = item.hint_start is not None
            row["hint"] = {"start": item.hint_start, "end": item.hint_end} if has_hint else None
        return row

    return rejected.answer(rejected_out)


@router.post(
    "/{ws_id}/claims",
    response={201: ClaimOut, **errors(401, 403, 404, 409, 503), 422: EvidenceErrorOut},
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


@router.get("/{ws_id}/claims", response={200: SearchPageOut, **errors(401, 404, 422, 503)})
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


@router.get("/{ws_id}/claims/{claim_id}", response={200: ClaimOut, **errors(401, 404, 422, 503)})
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
