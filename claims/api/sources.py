"""JSON API of sources (docs/api.md, Sources and claims): adding one or a batch, the list, a source with its claims'
spans, extraction and the claims it refused.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from django.http import HttpRequest
from ninja import Field, Query, Router, Schema
from ninja.responses import Status
from pydantic import ValidationError, WithJsonSchema

from afterhack.clock import STALLED_ERROR
from afterhack.errors import found
from afterhack.lists.cursors import Page, PageIn
from afterhack.schemas import (
    DocumentWords,
    ErrorOut,
    IdOut,
    Input,
    PathId,
    Refuse,
    Timestamp,
    Words,
    errors,
)
from afterhack.text import MAX_TITLE_CHARS
from claims.evidence import Reason
from claims.selectors import sources as sources_selectors
from claims.services import extraction as extraction_services
from claims.services import sources as sources_services
from claims.statuses import ClaimStatus, JobStatus
from claims.text import MAX_SOURCE_CHARS, InvalidSource
from workspaces.access import get_membership, get_rw_workspace_for_user, get_workspace_for_user

router = Router()


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


class FragmentSpanOut(Schema):
    id: IdOut
    start: int
    end: int


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
    status: JobStatus = Field(description="queued, running, done or failed.")
    done: int = Field(description="How many of the version's fragments have been read so far.")
    total: int = Field(description="How many fragments the version has.")
    error: str | None = Field(description="Why it failed, in words; null unless failed.")
    extractor: str = Field(
        description="Who proposed the claims: `model:<name>`, or `rule_based` for the offline rule-based extractor."
    )
    claims_added: int = Field(description="Claims stored so far (a proposal already stored is not added again).")
    rejected: int = Field(
        description="Proposals refused because their quote is not in the source (listed by …/rejected)."
    )


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


@router.post(
    "/{ws_id}/sources",
    response={201: SourceAddedOut, **errors(401, 403, 404, 422, 503)},
    operation_id="claims_api_source_create",
)
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
    "/{ws_id}/sources:batch",
    response={201: SourceBatchOut, **errors(401, 403, 404, 503), 422: SourceBatchErrorOut},
    operation_id="claims_api_source_create_batch",
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


@router.get(
    "/{ws_id}/sources",
    response={200: Page[SourceSummaryOut], **errors(401, 404, 422, 503)},
    operation_id="claims_api_source_list",
)
def source_list(request: HttpRequest, ws_id: PathId, page: Query[PageIn]) -> Any:
    """The workspace's sources, newest first."""
    workspace = get_workspace_for_user(request.user, ws_id)
    sources = sources_selectors.sources_page(workspace=workspace, limit=page.limit, cursor=page.cursor)
    return sources.answer(
        lambda s: {"id": s.id, "title": s.title, "version": s.version, "length": s.length, "claims": s.claims,
                   "created_at": s.created_at}
    )  # fmt: skip


@router.get(
    "/{ws_id}/sources/{source_id}",
    response={200: SourceOut, **errors(401, 404, 503)},
    operation_id="claims_api_source_detail",
)
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
    "/{ws_id}/sources/{source_id}/extract",
    response={202: ExtractQueuedOut, **errors(401, 403, 404, 409, 503)},
    operation_id="claims_api_source_extract",
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
    operation_id="claims_api_source_rejected",
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
