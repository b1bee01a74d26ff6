"""Extraction runs: queued once per version, run by the worker (a model's or the rules' proposals, validated
as a claim's quote is), their claims and refusals stored in one atomic write.
"""

from __future__ import annotations

import hashlib
import logging
import uuid
from typing import Any

from django.db import transaction

from afterhack import llm
from afterhack.clock import now_iso, stale_before
from afterhack.ids import storable
from afterhack.text import MAX_STATEMENT_CHARS
from claims.extraction import (
    RULE_EXTRACTOR,
    Accepted,
    Refused,
    extract_fragments,
    model_proposals,
    rule_proposals,
)
from claims.graph import claims as claims_graph
from claims.graph import extraction as extraction_graph
from claims.graph import sources as sources_graph
from claims.graph.shapes import Fragment
from claims.registry import proposed_review
from claims.services.claims import claim_key
from claims.services.embeddings import claims_embed_new
from claims.services.sources import active_version, fragment_ids
from claims.signals import claims_became_current
from claims.statuses import ClaimStatus, ConfidenceKind, JobStatus
from claims.text import (
    Span,
    page_breaks_as_line_breaks,
    same_statement,
)
from workspaces.models import Workspace
from workspaces.services.audit import record_event

logger = logging.getLogger("claims")

# A claim that holds, or waits for a reviewer's approval: its span is not withdrawn (a rejected one is).
WAITING_OR_CURRENT = (ClaimStatus.CURRENT, ClaimStatus.PROPOSED)


def extractor_label() -> str:
    """Which extractor a new extraction will use, in words for the pages that offer one."""
    if llm.is_configured():
        return f"Model: {llm.model_name()}"
    return "Offline rule-based extractor (no model configured): one claim per fact-bearing sentence"


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
    withdrawn = [Span(span.start, span.end) for span in existing if span.status not in WAITING_OR_CURRENT]
    accepted = [
        claim
        for claim in accepted
        if same_statement(claim.statement) not in known_statements
        and not any(claim.span.overlaps(w) for w in withdrawn)
    ]
    # A model is an agent: where the workspace asks for approval, a model's claims wait as `proposed` (not watched).
    proposed = use_model and workspace.agent_claims_need_approval
    stored = claims_graph.claims_record(
        workspace=workspace, version_id=version.id, review=proposed_review() if proposed else None,
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
    # Already in the worker: the new claims are embedded here, in batches, then watched here (inline).
    new_ids = [claim_id for claim_id, created in stored if created]
    claims_embed_new(workspace=workspace, claim_ids=new_ids)
    if not proposed:
        claims_became_current(workspace=workspace, claim_ids=new_ids, inline=True)
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
