"""Reads of sources: the source page (its highlighted text, claims, extraction and refusals), the sources list's
pages, a source's versions and the spans of its claims.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from django.utils.safestring import SafeString

from afterhack.lists.cursors import Paged, workspace_page
from afterhack.lists.filters import Criteria
from claims.evidence import REASON_LABELS, Reason
from claims.graph import extraction as extraction_graph
from claims.graph import lists as lists_graph
from claims.graph import sources as sources_graph
from claims.graph.extraction import Extraction as Extraction
from claims.graph.extraction import RejectedClaim as RejectedClaim
from claims.graph.lists import SourceRow as SourceRow
from claims.graph.sources import ClaimSpan as ClaimSpan
from claims.graph.sources import SourceSummary as SourceSummary
from claims.graph.sources import SourceVersion as SourceVersion
from claims.highlight import highlight
from claims.text import Span, same_statement
from workspaces.models import Workspace


def source_rows(*, workspace: Workspace, criteria: Criteria, offset: int, limit: int) -> list[SourceRow]:
    """One page of the sources list, filtered, sorted and paged as the criteria ask."""
    return lists_graph.source_rows(workspace=workspace, criteria=criteria, offset=offset, limit=limit)


def source_rows_count(*, workspace: Workspace, criteria: Criteria) -> int:
    """How many sources the sources list has with these filters."""
    return lists_graph.source_rows_count(workspace=workspace, criteria=criteria)


@dataclass(frozen=True)
class RejectedRow:
    """A rejected claim with the text of its near-miss hint (for reviewers)."""

    statement: str
    evidence_quote: str
    reason: str
    detail: str
    hint: str | None
    hint_span: Span | None

    @property
    def reason_label(self) -> str:
        """Why it was refused, in a few words."""
        return REASON_LABELS[Reason(self.reason)] if self.reason in Reason else self.reason


@dataclass(frozen=True)
class SourceClaim:
    """A claim citing the source's current version, as the source page lists it."""

    id: str
    statement: str
    status: str
    quote: str
    extractor: str
    created_in: str

    @property
    def quote_differs(self) -> bool:
        """Whether the quote says more than the statement (else the page does not repeat it)."""
        return same_statement(self.quote) != same_statement(self.statement)


@dataclass(frozen=True)
class SourcePage:
    version: sources_graph.SourceVersion
    spans: list[ClaimSpan]
    highlighted: SafeString
    extraction: extraction_graph.Extraction | None
    rejected: list[RejectedRow]
    retracted: list[extraction_graph.Retracted]
    claims: list[SourceClaim] = field(default_factory=list)

    @property
    def added(self) -> list[SourceClaim]:
        """The claims the latest extraction added (none while it runs)."""
        if self.extraction is None:
            return []
        return [claim for claim in self.claims if claim.created_in == self.extraction.id]

    @property
    def rejected_reasons(self) -> list[tuple[str, int]]:
        """Why claims proposed for this version were refused, in words, with how many each, most first."""
        return Counter(row.reason_label for row in self.rejected).most_common()


def source_page(*, workspace: Workspace, source_id: str) -> SourcePage | None:
    """Everything the source page shows, or None when there is no such source."""
    version = sources_graph.source_get(workspace=workspace, source_id=source_id)
    if version is None:
        return None
    spans = sources_graph.version_claim_spans(workspace=workspace, version_id=version.id)
    return SourcePage(
        version=version,
        spans=spans,
        highlighted=highlight(version.text, spans),
        extraction=extraction_graph.extraction_latest(workspace=workspace, source_id=source_id),
        rejected=[
            RejectedRow(r.statement, r.evidence_quote, r.reason, r.detail, _hint_text(version.text, r), _hint_span(r))
            for r in extraction_graph.rejected_list(workspace=workspace, source_id=source_id)
        ],
        retracted=extraction_graph.retracted_claims(workspace=workspace, source_id=source_id),
        claims=[
            SourceClaim(s.id, s.statement, s.status, version.text[s.start : s.end], s.extractor, s.created_in)
            for s in spans
        ],
    )


def _hint_span(rejected: extraction_graph.RejectedClaim) -> Span | None:
    if rejected.hint_start is None or rejected.hint_end is None:
        return None
    return Span(rejected.hint_start, rejected.hint_end)


def _hint_text(text: str, rejected: extraction_graph.RejectedClaim) -> str | None:
    if rejected.hint_start is None or rejected.hint_end is None:
        return None
    return text[rejected.hint_start : rejected.hint_end]


def sources(*, workspace: Workspace, offset: int = 0, limit: int = 100) -> list[sources_graph.SourceSummary]:
    """Sources of the workspace, newest first."""
    return sources_graph.source_list(workspace=workspace, offset=offset, limit=limit)


def sources_page(*, workspace: Workspace, limit: int, cursor: str | None) -> Paged[sources_graph.SourceSummary]:
    """A page of the workspace's sources, newest first."""
    return workspace_page(
        "sources", workspace=workspace, cursor=cursor, limit=limit,
        read=sources_graph.source_list, count=sources_graph.source_count,
    )  # fmt: skip


def rejected_page(
    *, workspace: Workspace, source_id: str, limit: int, cursor: str | None
) -> Paged[extraction_graph.RejectedClaim]:
    """A page of the claims refused for the source's current version, oldest first."""
    return workspace_page(
        "rejected", workspace=workspace, source_id=source_id, cursor=cursor, limit=limit,
        read=extraction_graph.rejected_list, count=extraction_graph.rejected_count,
        position=lambda rejected: [rejected.created_at, rejected.key],
    )  # fmt: skip


def source_get(*, workspace: Workspace, source_id: str) -> sources_graph.SourceVersion | None:
    """The source with its current version, or None."""
    return sources_graph.source_get(workspace=workspace, source_id=source_id)


def version_get(*, workspace: Workspace, version_id: str) -> sources_graph.SourceVersion | None:
    """One version of a source, with its text and its source's title, or None."""
    return sources_graph.version_get(workspace=workspace, version_id=version_id)


def version_claim_spans(*, workspace: Workspace, version_id: str) -> list[ClaimSpan]:
    """Every claim whose evidence is in this version (any status), by position."""
    return sources_graph.version_claim_spans(workspace=workspace, version_id=version_id)
