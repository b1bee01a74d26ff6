"""Writes of the claims app: sources, evidence-backed and derived claims, extraction runs."""

from __future__ import annotations

import hashlib
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction

from afterhack import llm
from afterhack.clock import now_iso, stale_before
from afterhack.errors import Conflict, NotFound, UserError, found
from afterhack.ids import parse_id, storable
from afterhack.text import MAX_STATEMENT_CHARS, clean_text
from claims.evidence import Rejection, validate_quote
from claims.extraction import (
    RULE_EXTRACTOR,
    Accepted,
    Refused,
    extract_fragments,
    model_proposals,
    rule_proposals,
)
from claims.graph import claims as claims_graph
from claims.graph import embeddings as embeddings_graph
from claims.graph import extraction as extraction_graph
from claims.graph import sources as sources_graph
from claims.graph.shapes import Claim, Fragment
from claims.statuses import ClaimStatus, ConfidenceKind, JobStatus, SourceStatus
from claims.text import (
    InvalidSource,
    Span,
    clean_source_text,
    clean_title,
    fragment_spans,
    normalize,
    page_breaks_as_line_breaks,
    same_statement,
)
from workspaces.models import Workspace
from workspaces.services import actor_name, record_event, record_events

logger = logging.getLogger("claims")

MAX_PREMISES = 50


class EvidenceNotFound(UserError):
    code = "evidence_not_found"

    def __init__(self, rejection: Rejection) -> None:
        super().__init__(rejection.detail)
        self.rejection = rejection
        self.extra = {"reason": str(rejection.reason)}


class InvalidSupport(UserError):
    code = "invalid_support"


class SourceNotFound(NotFound):
    thing = "source"


class ClaimNotFound(NotFound):
    thing = "claim"


def clean_statement(statement: object) -> str:
    """The statement with its whitespace folded, or UserError saying what is wrong with it."""
    return clean_text(
        statement, noun="A statement", max_chars=MAX_STATEMENT_CHARS,
        missing="A claim needs a statement; this one is empty.", not_text="A claim's statement must be text.",
    )  # fmt: skip


def fragments_of(fragments: list[Fragment], span: Span) -> list[Fragment]:
    """The fragments a span overlaps (a quote across a fragment boundary has two)."""
    return [f for f in fragments if f.start < span.end and span.start < f.end]


def cut_fragments(text: str) -> list[Fragment]:
    """The text cut into its fragments (paragraphs), each with a fresh id: the units a quote is found in."""
    return [
        Fragment(str(uuid.uuid4()), span.start, span.end, text[span.start : span.end], "document")
        for span in fragment_spans(text)
    ]


def fragment_ids(fragments: list[Fragment], span: Span) -> list[str]:
    """The ids of the fragments a span overlaps."""
    return [f.id for f in fragments_of(fragments, span)]


def claim_key(*, version_id: str, start: int, end: int, statement: str) -> str:
    """The identity of an evidence-backed claim: same version, span and statement = same claim."""
    basis = f"{version_id}\x1f{start}\x1f{end}\x1f{' '.join(statement.casefold().split())}"
    return hashlib.sha256(basis.encode()).hexdigest()


# -- sources --------------------------------------------------------------------------------


@dataclass(frozen=True)
class AddedSource:
    id: str
    title: str
    version: int
    sha256: str
    length: int
    fragments: list[dict[str, Any]]


# How many sources one batch may hold (POST /workspaces/{ws}/sources:batch): one graph query writes them all.
MAX_BATCH_SOURCES = 500


class SourcesRefused(InvalidSource):
    """Some sources of a batch cannot be stored, so none is; `errors` says which and why (index, code, message)."""

    def __init__(self, errors: list[dict[str, Any]], total: int) -> None:
        first = errors[0]
        some = "1 source" if len(errors) == 1 else f"{len(errors)} sources"
        super().__init__(
            f"{some} of the {total} cannot be stored, so none was stored; source {first['index']}: {first['message']}"
            + (" (the others are listed in “errors”)." if len(errors) > 1 else "")
        )
        self.extra = {"errors": errors}


@dataclass(frozen=True)
class NewSource:
    """A source ready to be written: cleaned, hashed, cut into fragments, with fresh ids."""

    id: str
    version_id: str
    title: str
    text: str
    sha256: str
    fragments: list[dict[str, Any]]

    def row(self) -> dict[str, Any]:
        """The source as one row of sources_graph.sources_create."""
        return {
            "source_id": self.id, "version_id": self.version_id, "title": self.title, "text": self.text,
            "sha256": self.sha256, "length": len(self.text),
            "fragments": [[f["id"], f["start"], f["end"], f["text"]] for f in self.fragments],
        }  # fmt: skip

    def added(self) -> AddedSource:
        spans = [{"id": f["id"], "start": f["start"], "end": f["end"]} for f in self.fragments]
        return AddedSource(self.id, self.title, 1, self.sha256, len(self.text), spans)

    def audit(self) -> tuple[str, dict[str, Any]]:
        """The target and payload of its `source.added` audit event."""
        payload = {
            "source_id": self.id,
            "sha256": self.sha256,
            "length": len(self.text),
            "fragments": len(self.fragments),
        }
        return self.title, payload


def source_prepare(*, title: object, text: object) -> NewSource:
    """The source as it will be stored (line endings normalised, cut into fragments); InvalidSource if unusable."""
    title = clean_title(title)
    text = clean_source_text(text)
    fragments = [{"id": f.id, "start": f.start, "end": f.end, "text": f.text} for f in cut_fragments(text)]
    sha256 = hashlib.sha256(text.encode()).hexdigest()
    return NewSource(str(uuid.uuid4()), str(uuid.uuid4()), title, text, sha256, fragments)


def source_add(*, workspace: Workspace, title: object, text: object, actor: Any, origin_name: str = "") -> AddedSource:
    """Stores a new source: its text (line endings normalised) as version 1, cut into fragments."""
    return sources_write(
        workspace=workspace, sources=[source_prepare(title=title, text=text)], actor=actor, origin_name=origin_name
    )[0]


def sources_add(
    *,
    workspace: Workspace,
    sources: object,
    actor: Any,
    origin_name: str = "",
    check: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> list[AddedSource]:
    """Stores a batch of 1 to MAX_BATCH_SOURCES sources, each given as {"title", "text"}, all or none: each is
    checked as source_add checks one (after `check`, a caller's own rules: it answers the item's title and text,
    or raises a UserError), and if any cannot be stored SourcesRefused lists every one that cannot (its index,
    code and message) and nothing is written. Then one (atomic) graph query writes them all, and one INSERT
    their audit events (see sources_write). The same title or text twice is two sources, as with source_add;
    the batch's sources share one creation time."""
    if not isinstance(sources, list) or not 1 <= len(sources) <= MAX_BATCH_SOURCES:
        raise InvalidSource(BATCH_SIZE_WORDS)
    prepared, errors = [], []
    for index, item in enumerate(sources):
        try:
            if not isinstance(item, dict):
                raise InvalidSource(ITEM_NOT_AN_OBJECT)
            fields = check(item) if check is not None else item
            prepared.append(source_prepare(title=fields.get("title"), text=fields.get("text")))
        except UserError as error:
            errors.append({"index": index, "code": error.code, "message": str(error)})
    if errors:
        raise SourcesRefused(errors, len(sources))
    return sources_write(workspace=workspace, sources=prepared, actor=actor, origin_name=origin_name)


BATCH_SIZE_WORDS = (
    f'“sources” must be a list of 1 to {MAX_BATCH_SOURCES} sources, each {{"title", "text"}}; '
    "send more in several batches."
)
ITEM_NOT_AN_OBJECT = 'Each source must be a JSON object: {"title", "text"}.'


def sources_write(
    *, workspace: Workspace, sources: list[NewSource], actor: Any, origin_name: str = ""
) -> list[AddedSource]:
    """Writes prepared sources: one graph query for all of them, then their audit events.

    The audit follows the graph write, so there is an audit event only for a source that was stored;
    a crash between the two leaves stored sources without their events, and no answer was given for
    them (the guarantee the audit-first transaction gave: its rows were only committed after the graph
    write). Written after, the events need no transaction held open across the graph write: one
    event is one INSERT committed on its own, one round-trip to PostgreSQL."""
    name = actor_name(actor)
    sources_graph.sources_create(
        workspace=workspace, sources=[s.row() for s in sources], origin_type="document",
        origin_name=origin_name or name, created_by=name, now=now_iso(),
    )  # fmt: skip
    record_events(actor=actor, workspace=workspace, verb="source.added", events=[s.audit() for s in sources])
    return [s.added() for s in sources]


def active_version(workspace: Workspace, source_id: object) -> sources_graph.SourceVersion:
    """The current version of an active source; 404 if there is none, 409 if it was retracted."""
    read = sources_graph.source_get(workspace=workspace, source_id=str(source_id)) if source_id else None
    version = found(read, SourceNotFound())
    if version.status != SourceStatus.ACTIVE:
        raise Conflict("This source has been retracted: it can no longer be cited, extracted from or revised.")
    return version


# -- claims ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Passage:
    """An exact quote found in a source's current version, with the fragments it lies in."""

    version: sources_graph.SourceVersion
    quote: str
    span: Span
    fragments: list[Fragment]


def passage_find(*, workspace: Workspace, source_id: object, quote: object, start: object = None) -> Passage:
    """Where the quote is in the source's current version (rule 1: character for character, at `start` if
    given; a page break of a text stored before they became line breaks reads as one), with the text's own
    characters there; 404 for no such source, 409 for a retracted one, EvidenceNotFound for a quote not there."""
    version = active_version(workspace, source_id)
    # The text's line endings were normalised at ingest; a quote gets the same treatment, and is looked for in a
    # text stored before page breaks became line breaks as if they had (see page_breaks_as_line_breaks).
    text = normalize(quote) if isinstance(quote, str) else ""
    result = validate_quote(page_breaks_as_line_breaks(version.text), text, start)
    if isinstance(result, Rejection):
        raise EvidenceNotFound(result)
    fragments = sources_graph.version_fragments(workspace=workspace, version_id=version.id)
    # The stored text's own characters (the quote itself, unless the text has page breaks there).
    return Passage(version, version.text[result.start : result.end], result, fragments_of(fragments, result))


def claim_add(
    *,
    workspace: Workspace,
    source_id: object,
    statement: object,
    evidence_quote: object,
    start: object = None,
    actor: Any,
) -> Claim:
    """An evidence-backed claim, stored only if its quote is exact; the same claim again is not duplicated."""
    statement = clean_statement(statement)
    passage = passage_find(workspace=workspace, source_id=source_id, quote=evidence_quote, start=start)
    version, result = passage.version, passage.span
    row = {
        "key": claim_key(version_id=version.id, start=result.start, end=result.end, statement=statement),
        "id": str(uuid.uuid4()), "statement": statement, "evidence_quote": passage.quote,
        "start": result.start, "end": result.end, "confidence": None, "confidence_kind": ConfidenceKind.MANUAL,
        "extractor": "manual", "fragment_ids": [f.id for f in passage.fragments],
    }  # fmt: skip
    with transaction.atomic():
        stored = claims_graph.claims_record(
            workspace=workspace, version_id=version.id, claims=[row], rejected=[],
            created_by=actor_name(actor), now=now_iso(), write_id=str(uuid.uuid4()),
        )  # fmt: skip
        if not stored:
            raise Conflict(
                "The source changed (a new version, or it was retracted) while the claim was added; try again."
            )
        claim_id, created = stored[0]
        existing = claims_graph.claim_get(workspace=workspace, claim_id=claim_id)
        if existing is not None and existing.status != ClaimStatus.CURRENT:
            raise Conflict(
                f"This exact claim exists already and is {existing.status} (a reviewer corrected or retracted it); it cannot come back."
            )
        if created:
            record_event(
                actor=actor, workspace=workspace, verb="claim.added", target=statement[:255],
                payload={"claim_id": claim_id, "source_id": version.source_id, "start": result.start, "end": result.end},
            )  # fmt: skip
            embed_soon(workspace=workspace, claim_ids=[claim_id])
    return claim_required(workspace, claim_id)


def derived_claim_add(*, workspace: Workspace, statement: object, derived_from: object, actor: Any) -> Claim:
    """A claim inferred from others: the listed claims together are its one justification."""
    statement = clean_statement(statement)
    premise_ids = _clean_premises(derived_from)
    claim_id = str(uuid.uuid4())
    with transaction.atomic():
        created = claims_graph.derived_claim_create(
            workspace=workspace, claim_id=claim_id, statement=statement, premise_ids=premise_ids,
            created_by=actor_name(actor), now=now_iso(),
        )  # fmt: skip
        if not created:
            raise InvalidSupport(_why_unsupported(workspace, premise_ids))
        record_event(
            actor=actor, workspace=workspace, verb="claim.derived", target=statement[:255],
            payload={"claim_id": claim_id, "derived_from": premise_ids},
        )  # fmt: skip
        embed_soon(workspace=workspace, claim_ids=[claim_id])
    return claim_required(workspace, claim_id)


def _clean_premises(derived_from: object) -> list[str]:
    if not isinstance(derived_from, list) or not derived_from:
        raise InvalidSupport("A derived claim needs “derived_from”: a non-empty list of claim ids.")
    if len(derived_from) > MAX_PREMISES:
        raise InvalidSupport(f"A derived claim can rest on at most {MAX_PREMISES} claims.")
    if not all(isinstance(item, str) and item for item in derived_from):
        raise InvalidSupport("Every entry of “derived_from” must be a claim id (a string).")
    malformed = [str(item)[:40] for item in derived_from if parse_id(item) is None]
    if malformed:
        raise InvalidSupport(f"These are not claim ids of this workspace: {', '.join(malformed)}.")
    return list(dict.fromkeys(derived_from))


def _why_unsupported(workspace: Workspace, premise_ids: list[str]) -> str:
    statuses = claims_graph.claim_statuses(workspace=workspace, claim_ids=premise_ids)
    missing = [pid for pid in premise_ids if pid not in statuses]
    if missing:
        return f"These claims do not exist in this workspace: {', '.join(missing)}."
    stale = [f"{pid} ({statuses[pid]})" for pid in premise_ids if statuses[pid] != ClaimStatus.CURRENT]
    return f"A derived claim can only rest on current claims; these are not: {', '.join(stale)}."


def claim_required(workspace: Workspace, claim_id: str) -> Claim:
    """The claim, or ClaimNotFound (404) when there is no such claim in the workspace."""
    return found(claims_graph.claim_get(workspace=workspace, claim_id=claim_id), ClaimNotFound())


# -- extraction -----------------------------------------------------------------------------


def extraction_request(*, workspace: Workspace, source_id: object, actor: Any) -> extraction_graph.Extraction:
    """Queues extraction of the source's current version (or returns the run already going)."""
    version = active_version(workspace, source_id)
    fragments = sources_graph.version_fragments(workspace=workspace, version_id=version.id)
    extractor = f"model:{llm.model_name()}" if llm.is_configured() else RULE_EXTRACTOR
    extraction_id = str(uuid.uuid4())
    started = extraction_graph.extraction_start(
        workspace=workspace, extraction_id=extraction_id, version_id=version.id, total=len(fragments),
        extractor=extractor, now=now_iso(), stale_before=stale_before(),
    )  # fmt: skip
    if not started:
        running = extraction_graph.extraction_latest(workspace=workspace, source_id=version.source_id)
        assert running is not None
        return running
    with transaction.atomic():
        record_event(
            actor=actor, workspace=workspace, verb="extraction.requested", target=version.title,
            payload={"source_id": version.source_id, "extraction_id": extraction_id, "extractor": extractor},
        )  # fmt: skip
        # Imported here: tasks import services, and the task must only run once this commits.
        from claims.tasks import run_extraction

        transaction.on_commit(lambda: run_extraction.delay(str(workspace.id), extraction_id))
    extraction = extraction_graph.extraction_get(workspace=workspace, extraction_id=extraction_id)
    assert extraction is not None
    return extraction


def extraction_run(*, workspace: Workspace, extraction_id: str) -> extraction_graph.Extraction | None:
    """Runs a queued extraction: proposals per fragment, validated, then stored in one atomic write."""
    extraction = extraction_graph.extraction_get(workspace=workspace, extraction_id=extraction_id)
    if extraction is None or extraction.status not in (JobStatus.QUEUED, JobStatus.RUNNING):
        return extraction
    version = sources_graph.version_get(workspace=workspace, version_id=extraction.version_id)
    if version is None:
        return _fail(workspace, extraction_id, "The source version to extract from no longer exists.")
    fragments = sources_graph.version_fragments(workspace=workspace, version_id=version.id)
    if extraction.extractor.startswith("model:") and not llm.is_configured():
        return _fail(
            workspace, extraction_id, "This extraction was queued for a model, but no model is configured now."
        )
    use_model = extraction.extractor.startswith("model:")
    accepted: list[Accepted] = []
    refused: list[Refused] = []
    try:
        # Proposals are checked as a claim's quote is (passage_find): in a text stored before page breaks became
        # line breaks, as if they had; the rules quote it that way too. Claims keep the text's own (_claim_rows).
        results = extract_fragments(
            text=page_breaks_as_line_breaks(version.text),
            fragments=fragments,
            propose=(lambda f: model_proposals(title=version.title, fragment_text=f.text))
            if use_model
            else (lambda f: rule_proposals(page_breaks_as_line_breaks(f.text))),
        )
        for done, outcomes in enumerate(results, start=1):
            accepted += [o for o in outcomes if isinstance(o, Accepted)]
            refused += [o for o in outcomes if isinstance(o, Refused)]
            extraction_graph.extraction_progress(
                workspace=workspace, extraction_id=extraction_id, done=done, now=now_iso()
            )
    except llm.LLMError as error:
        return _fail(workspace, extraction_id, str(error))
    existing = sources_graph.version_claim_spans(workspace=workspace, version_id=version.id)
    family = extraction.extractor.split(":")[0]
    # Skipped: spans an earlier run of this kind took, statements already made, and anything
    # overlapping a claim a reviewer corrected or that was retracted (it must not come back).
    known_spans = {(span.start, span.end) for span in existing if span.extractor.split(":")[0] == family}
    known_statements = {same_statement(span.statement) for span in existing}
    withdrawn = [Span(span.start, span.end) for span in existing if span.status != ClaimStatus.CURRENT]
    accepted = [
        claim
        for claim in accepted
        if same_statement(claim.statement) not in known_statements
        and not any(claim.span.overlaps(w) for w in withdrawn)
    ]
    stored = claims_graph.claims_record(
        workspace=workspace, version_id=version.id,
        claims=_claim_rows(version, accepted, extraction.extractor, use_model, fragments, known_spans),
        rejected=_rejected_rows(version.id, refused, extraction.extractor),
        created_by=extraction.extractor, now=now_iso(), write_id=extraction_id, extraction_id=extraction_id,
    )  # fmt: skip
    if stored is None:
        return _fail(
            workspace,
            extraction_id,
            "The source changed (a new version, or it was retracted) while extracting; nothing was added.",
        )
    # Already in the worker: the new claims are embedded here, in batches.
    claims_embed_new(workspace=workspace, claim_ids=[claim_id for claim_id, created in stored if created])
    return extraction_graph.extraction_get(workspace=workspace, extraction_id=extraction_id)


def _fail(workspace: Workspace, extraction_id: str, why: str) -> extraction_graph.Extraction | None:
    logger.warning("extraction %s failed: %s", extraction_id, why)
    extraction_graph.extraction_fail(workspace=workspace, extraction_id=extraction_id, error=why, now=now_iso())
    return extraction_graph.extraction_get(workspace=workspace, extraction_id=extraction_id)


def extraction_fail_unexpectedly(*, workspace: Workspace, extraction_id: str) -> None:
    """Marks a run failed after an unexpected error, so it never stays 'running' forever."""
    _fail(workspace, extraction_id, "The extraction stopped on an internal error; it wrote no claims. Try again.")


def _claim_rows(
    version: sources_graph.SourceVersion,
    accepted: list[Accepted],
    extractor: str,
    use_model: bool,
    fragments: list[Fragment],
    known_spans: set[tuple[int, int]],
) -> list[dict[str, Any]]:
    """One row per new claim, quoting the version's own text at its span (the proposal's quote, but where a text
    stored before page breaks became line breaks has one). A span an earlier extraction of the same kind already
    claimed is skipped, so running it again adds nothing even when a model words a statement differently."""
    rows: dict[str, dict[str, Any]] = {}
    for claim in accepted:
        if (claim.span.start, claim.span.end) in known_spans:
            continue
        key = claim_key(version_id=version.id, start=claim.span.start, end=claim.span.end, statement=claim.statement)
        rows.setdefault(key, {
            "key": key, "id": str(uuid.uuid4()), "statement": claim.statement[:MAX_STATEMENT_CHARS],
            "evidence_quote": version.text[claim.span.start : claim.span.end], "start": claim.span.start, "end": claim.span.end,
            "confidence": claim.confidence, "confidence_kind": ConfidenceKind.MODEL if use_model else ConfidenceKind.RULE_MATCH,
            "extractor": extractor, "fragment_ids": fragment_ids(fragments, claim.span),
        })  # fmt: skip
    return list(rows.values())


def _rejected_rows(version_id: str, refused: list[Refused], extractor: str) -> list[dict[str, Any]]:
    rows: dict[str, dict[str, Any]] = {}
    for item in refused:
        quote, statement = storable(item.evidence_quote)[:5000], storable(item.statement)[:MAX_STATEMENT_CHARS]
        # Keyed without the statement: a re-run that words it differently is the same refusal.
        key = hashlib.sha256(f"{version_id}\x1f{quote}\x1f{item.rejection.reason}".encode()).hexdigest()
        hint = item.rejection.hint
        rows.setdefault(key, {
            "key": key, "statement": statement, "evidence_quote": quote,
            "reason": str(item.rejection.reason), "detail": item.rejection.detail,
            "hint_start": hint.start if hint else None, "hint_end": hint.end if hint else None, "extractor": extractor,
        })  # fmt: skip
    return list(rows.values())


# -- embeddings (semantic search) -------------------------------------------------------------


def embed_soon(*, workspace: Workspace, claim_ids: list[str]) -> None:
    """Has the worker embed these new claims once the current transaction commits (nothing without a model).
    A claim the worker could not embed (the model failed) waits for `manage.py embed_claims`."""
    if not llm.embedding_configured() or not claim_ids:
        return
    # Imported here: tasks import services.
    from claims.tasks import embed_claims

    workspace_id, ids = str(workspace.id), list(claim_ids)
    transaction.on_commit(lambda: embed_claims.delay(workspace_id, ids))


def claims_embed(
    *, workspace: Workspace, claim_ids: list[str] | None = None, progress: Callable[[int], None] | None = None
) -> int:
    """Gives the claims (these, or all) that have no vector of the configured model one: a batch at a time,
    one embeddings call and one graph write each. Returns how many it stored; raises llm.EmbeddingError.

    The vector index takes its dimension from the model's vectors; a model of another dimension gets a new index.
    """
    model, done, batch = llm.embedding_model(), 0, max(1, settings.AFTERHACK_EMBEDDING_BATCH)
    ids = embeddings_graph.claims_unembedded(workspace=workspace, model=model) if claim_ids is None else claim_ids
    for first in range(0, len(ids), batch):
        todo = embeddings_graph.claims_to_embed(workspace=workspace, model=model, claim_ids=ids[first : first + batch])
        if todo:
            vectors = llm.embed([claim.statement for claim in todo])
            embeddings_graph.embedding_index_ensure(workspace=workspace, dimension=len(vectors[0]))
            rows = [{"id": c.id, "statement": c.statement, "vector": v} for c, v in zip(todo, vectors, strict=True)]
            done += embeddings_graph.claim_embeddings_set(workspace=workspace, model=model, rows=rows)
        if progress is not None:
            progress(len(ids[first : first + batch]))
    return done


def claims_embed_new(*, workspace: Workspace, claim_ids: list[str]) -> int:
    """The worker's embedding of new claims: a failing model is logged, not raised (the backfill catches up)."""
    if not llm.embedding_configured():
        return 0
    try:
        return claims_embed(workspace=workspace, claim_ids=claim_ids)
    except llm.EmbeddingError as error:
        logger.warning("%d new claims were left without a vector: %s", len(claim_ids), error)
        return 0


def claims_backfill(*, workspace: Workspace, progress: Callable[[int], None] | None = None) -> int:
    """Embeds every claim of the workspace that lacks a vector of the configured model (`manage.py embed_claims`);
    audited when it embedded any. Raises llm.EmbeddingError when the model fails (what was stored stays)."""
    embedded = claims_embed(workspace=workspace, progress=progress)
    if embedded:
        record_event(
            actor=None, workspace=workspace, verb="claims.embedded", target=llm.embedding_model(),
            payload={"embedded": embedded, "model": llm.embedding_model()},
        )  # fmt: skip
    return embedded
