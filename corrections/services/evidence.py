"""Evidence that goes away: retract a source (its claims retracted) or add a version of it (claims whose quote is
still there move, the others are retracted), each with what that propagates, in one guarded graph write. The open
contradictions flagged with a passage of the source follow it the same way (obsolete where a claim is retracted)."""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass
from typing import Any

from afterhack.clock import now_iso
from afterhack.errors import Conflict, UserError
from afterhack.holds import status_holds
from claims.selectors import claims as claims_selectors
from claims.selectors import sources as sources_selectors
from claims.services.sources import active_version, cut_fragments, fragment_ids
from claims.text import Span, clean_source_text, page_breaks_as_line_breaks
from corrections.graph import evidence as evidence_graph
from corrections.graph import subgraph as subgraph_graph
from corrections.graph import suggestions as suggestions_graph
from corrections.propagation import impact
from corrections.services.retry import WRITE_ATTEMPTS, pause
from workspaces.models import Workspace
from workspaces.services.audit import actor_name, record_event

# -- evidence that goes away -------------------------------------------------------------------------


@dataclass(frozen=True)
class EvidenceChange:
    """What retracting a source or adding a version did."""

    retracted: list[str]
    moved: int
    affected: dict[str, list[str]]
    version: int | None = None


def _impact_of(workspace: Workspace, roots: list[str], revision: int) -> tuple[int, dict[str, list[str]]]:
    """The impact of the roots going away, read at `revision` (read before the roots were)."""
    sub = subgraph_graph.subgraph(workspace=workspace, roots=roots, revision=revision)
    if not roots:
        return sub.revision, {
            "decisions_needing_review": [],
            "decisions_still_supported": [],
            "actions_held": [],
            "claims_unsupported": [],
            "actions_already_done": [],
        }
    # The independent-source policy is about alternatives to one corrected claim; here whole
    # versions go away (or move), so every justification is judged as it is.
    result = impact(sub.nodes, sub.actions, roots=roots)
    return sub.revision, result.as_json()


def source_retract(*, workspace: Workspace, source_id: str, actor: Any) -> EvidenceChange:
    """Retracts a source: its current claims are retracted and what rested on them propagated, in one graph write."""
    for attempt in range(WRITE_ATTEMPTS):
        pause(attempt)
        # The revision first: a claim added after it makes the write below stale, never missed.
        revision = subgraph_graph.workspace_revision(workspace=workspace)
        version = active_version(workspace, source_id)
        roots = [
            s.id
            for s in sources_selectors.version_claim_spans(workspace=workspace, version_id=version.id)
            if status_holds(decision=False, status=s.status)
        ]
        revision, affected = _impact_of(workspace, roots, revision)
        written = evidence_graph.source_retract(
            workspace=workspace, revision=revision, source_id=version.source_id, retracted=roots, affected=affected,
            review_reason=f"Lost its last support when the source “{version.title}” was retracted.",
            actor=actor_name(actor), now=now_iso(),
        )  # fmt: skip
        if written:
            record_event(actor=actor, workspace=workspace, verb="source.retracted", target=version.title,
                         payload={"source_id": version.source_id, "retracted": roots, "affected": affected})  # fmt: skip
            return EvidenceChange(roots, 0, affected)
    raise Conflict("The workspace kept changing while retracting; try again.")


def _nearest(text: str, quote: str, near: int) -> int:
    """The start of the occurrence of `quote` in `text` closest to `near`, or -1."""
    best, at = -1, text.find(quote)
    while at != -1:
        if best == -1 or abs(at - near) < abs(best - near):
            best = at
        at = text.find(quote, at + 1)
    return best


def _flags_moved(workspace: Workspace, source_id: str, new_text: str) -> list[dict[str, Any]]:
    """Where each open flag citing the source has its quote in the new text (nearest where it was), as a claim's
    quote is looked for; a flag whose quote is gone is left out, and the write makes it obsolete."""
    moved = []
    for flag in suggestions_graph.open_flags(workspace=workspace, source_id=source_id):
        quote = page_breaks_as_line_breaks(flag.quote)
        at = _nearest(new_text, quote, flag.start) if quote else -1
        if at != -1:
            moved.append({"id": flag.id, "start": at, "end": at + len(quote)})
    return moved


def source_new_version(*, workspace: Workspace, source_id: str, text: object, actor: Any) -> EvidenceChange:
    """Adds a version: every current claim's quote is checked against the new text; found ones move, the rest are
    retracted. An open flag citing the source (a contradiction flagged with its passage) moves the same way, or
    becomes obsolete."""
    new_text = clean_source_text(text)
    sha256 = hashlib.sha256(new_text.encode()).hexdigest()
    shapes = cut_fragments(new_text)
    fragments: list[dict[str, Any]] = [{"id": f.id, "start": f.start, "end": f.end, "text": f.text} for f in shapes]
    for attempt in range(WRITE_ATTEMPTS):
        pause(attempt)
        revision = subgraph_graph.workspace_revision(workspace=workspace)
        old = active_version(workspace, source_id)
        if old.sha256 == sha256:
            raise UserError("This text is the same as the current version; nothing to add.")
        claims = claims_selectors.claims_by_ids(
            workspace=workspace,
            claim_ids=[
                s.id
                for s in sources_selectors.version_claim_spans(workspace=workspace, version_id=old.id)
                if status_holds(decision=False, status=s.status)
            ],
        )
        moved, vanished = [], []
        for claim in claims:
            # The new text's page breaks are line breaks; a quote of a text stored before they were is looked
            # for with its own read alike (one character for one: its length, so its span, is the same).
            quote = page_breaks_as_line_breaks(claim.evidence_quote or "")
            at = _nearest(new_text, quote, claim.start or 0) if quote else -1
            if at == -1:
                vanished.append(claim.id)
                continue
            span = Span(at, at + len(quote))
            moved.append(
                {
                    "id": claim.id,
                    "start": span.start,
                    "end": span.end,
                    "from_version": old.id,
                    "fragment_ids": fragment_ids(shapes, span),
                }
            )
        revision, affected = _impact_of(workspace, vanished, revision)
        version_id = str(uuid.uuid4())
        flags = _flags_moved(workspace, old.source_id, new_text)
        written = evidence_graph.source_new_version(
            workspace=workspace, revision=revision, source_id=old.source_id, old_version_id=old.id, version_id=version_id,
            text=new_text, sha256=sha256, fragments=fragments, moved=moved, retracted=vanished, affected=affected,
            review_reason=f"Lost its last support: its quote is no longer in version {old.version + 1} of “{old.title}”.",
            actor=actor_name(actor), now=now_iso(), flags_moved=flags,
        )  # fmt: skip
        if written:
            record_event(actor=actor, workspace=workspace, verb="source.versioned", target=old.title,
                         payload={"source_id": old.source_id, "version": old.version + 1, "moved": len(moved),
                                  "retracted": vanished, "affected": affected})  # fmt: skip
            return EvidenceChange(vanished, len(moved), affected, old.version + 1)
    raise Conflict("The workspace kept changing while adding the version; try again.")
