"""Writes of claims: an evidence-backed claim (its quote found exactly in a source) and a derived one (resting on
current claims), each audited.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from afterhack.clock import now_iso
from afterhack.errors import Conflict, NotFound, UserError, found
from afterhack.ids import parse_id
from afterhack.text import MAX_STATEMENT_CHARS, clean_text
from claims.evidence import Rejection, validate_quote
from claims.graph import claims as claims_graph
from claims.graph import sources as sources_graph
from claims.graph.shapes import Claim, Fragment
from claims.registry import proposed_review
from claims.services.embeddings import embed_soon
from claims.services.sources import active_version, fragments_of
from claims.signals import claims_became_current
from claims.statuses import ClaimStatus, ConfidenceKind
from claims.text import (
    Span,
    normalize,
    page_breaks_as_line_breaks,
)
from workspaces.models import Workspace
from workspaces.services.audit import actor_name, record_event

MAX_PREMISES = 50
# Why a proposed claim cannot be cited, in words (a derived claim's premises; decisions say the same).
PROPOSED_HINT = ": an agent proposed it and a reviewer has not approved it yet, so it cannot be cited"


class EvidenceNotFound(UserError):
    code = "evidence_not_found"

    def __init__(self, rejection: Rejection) -> None:
        super().__init__(rejection.detail)
        self.rejection = rejection
        self.extra = {"reason": str(rejection.reason)}


class InvalidSupport(UserError):
    code = "invalid_support"


class ClaimNotFound(NotFound):
    thing = "claim"


def clean_statement(statement: object) -> str:
    """The statement with its whitespace folded, or UserError saying what is wrong with it."""
    return clean_text(
        statement, noun="A statement", max_chars=MAX_STATEMENT_CHARS,
        missing="A claim needs a statement; this one is empty.", not_text="A claim's statement must be text.",
    )  # fmt: skip


def claim_key(*, version_id: str, start: int, end: int, statement: str) -> str:
    """The identity of an evidence-backed claim: same version, span and statement = same claim."""
    basis = f"{version_id}\x1f{start}\x1f{end}\x1f{' '.join(statement.casefold().split())}"
    return hashlib.sha256(basis.encode()).hexdigest()


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
    by_agent: bool = False,
) -> Claim:
    """An evidence-backed claim, stored only if its quote is exact; the same claim again is not duplicated. A claim
    `by_agent` (MCP's propose_claim) in a workspace whose agents' claims need approval is stored `proposed`, with its
    open suggestion for a reviewer, and is not current (so not watched) until approved."""
    statement = clean_statement(statement)
    proposed = by_agent and workspace.agent_claims_need_approval
    passage = passage_find(workspace=workspace, source_id=source_id, quote=evidence_quote, start=start)
    version, result = passage.version, passage.span
    row = {
        "key": claim_key(version_id=version.id, start=result.start, end=result.end, statement=statement),
        "id": str(uuid.uuid4()), "statement": statement, "evidence_quote": passage.quote,
        "start": result.start, "end": result.end, "confidence": None, "confidence_kind": ConfidenceKind.MANUAL,
        "extractor": "agent" if by_agent else "manual", "fragment_ids": [f.id for f in passage.fragments],
    }  # fmt: skip
    with transaction.atomic():
        stored = claims_graph.claims_record(
            workspace=workspace, version_id=version.id, claims=[row], rejected=[],
            created_by=actor_name(actor), now=now_iso(), write_id=str(uuid.uuid4()), review=proposed_review() if proposed else None,
        )  # fmt: skip
        if not stored:
            raise Conflict(
                "The source changed (a new version, or it was retracted) while the claim was added; try again."
            )
        claim_id, created = stored[0]
        existing = claims_graph.claim_get(workspace=workspace, claim_id=claim_id)
        if existing is not None and existing.status == ClaimStatus.REJECTED:
            raise Conflict(
                "This exact claim was proposed before and a reviewer rejected it; it cannot come back (nothing was stored)."
            )
        if existing is not None and existing.status not in (ClaimStatus.CURRENT, ClaimStatus.PROPOSED):
            raise Conflict(
                f"This exact claim exists already and is {existing.status} (a reviewer corrected or retracted it); it cannot come back."
            )
        if created:
            record_event(
                actor=actor, workspace=workspace, verb="claim.added", target=statement[:255],
                payload={"claim_id": claim_id, "source_id": version.source_id, "start": result.start, "end": result.end,
                         **({"proposed": True} if proposed else {})},
            )  # fmt: skip
            embed_soon(workspace=workspace, claim_ids=[claim_id])
            if not proposed:
                claims_became_current(workspace=workspace, claim_ids=[claim_id])
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
        claims_became_current(workspace=workspace, claim_ids=[claim_id])
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
    stale = [
        f"{pid} ({statuses[pid]}{PROPOSED_HINT if statuses[pid] == ClaimStatus.PROPOSED else ''})"
        for pid in premise_ids
        if statuses[pid] != ClaimStatus.CURRENT
    ]
    return f"A derived claim can only rest on current claims; these are not: {', '.join(stale)}."


def claim_required(workspace: Workspace, claim_id: str) -> Claim:
    """The claim, or ClaimNotFound (404) when there is no such claim in the workspace."""
    return found(claims_graph.claim_get(workspace=workspace, claim_id=claim_id), ClaimNotFound())
