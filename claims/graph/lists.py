"""The pages' lists of sources and claims (afterhack/lists/spec.py): one query for a page, one for the count; each
filter's condition is declared once with its list (claims/lists.py) and read here with `where`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from afterhack import graph
from afterhack.clock import is_stale
from afterhack.graph import HasGraph
from afterhack.lists.filters import Criteria
from afterhack.lists.graph import filter_params, where
from claims.lists import CLAIMS, SOURCES

# Every filter is a $param that is '' when not asked; the ORDER BY is chosen by sort key from the constant
# columns below (graph.order_by), never written from a request. A page's rows are sorted again after their
# reads, on the same columns, so the reads cannot reorder them.


# What an extraction's state reads as on the sources list: queued counts as running.
EXTRACTION_STATE = (
    "CASE WHEN e IS NULL THEN 'none' WHEN e.status IN ['queued', 'running'] THEN 'running' ELSE e.status END"
)
SOURCE_ROWS_MATCH = (
    "MATCH (s:Source)-[:HAS_VERSION]->(v:SourceVersion {current: true}) "
    "WHERE ($q = '' OR toLower(s.title) CONTAINS $q) AND "
    + where(SOURCES.filters, "status", "author", "from", "to")
    # The latest extraction of the current version (by when it started), if any.
    + "OPTIONAL MATCH (v)<-[:OF]-(x:Extraction) "
    "WITH s, v, collect(x) AS runs "
    "WITH s, v, reduce(e = null, x IN runs | CASE WHEN e IS NULL OR x.started_at > e.started_at THEN x ELSE e END) AS e "
    "WITH s, v, e, " + EXTRACTION_STATE + " AS extraction "
    "WHERE " + where(SOURCES.filters, "extraction")
)
SOURCE_ROWS_COUNT = SOURCE_ROWS_MATCH + "RETURN count(s)"
SOURCE_COLUMNS = {
    "created": "s.created_at",
    "title": "toLower(s.title)",
    "claims": "claims",
    "author": "toLower(coalesce(s.created_by, ''))",
}
SOURCE_ROWS_READ = (
    SOURCE_ROWS_MATCH + "OPTIONAL MATCH (c:Claim {version_id: v.id}) WITH s, v, e, extraction, count(c) AS claims "
)
SOURCE_ROW_FIELDS = (
    "RETURN {id: s.id, title: s.title, status: s.status, version: v.version, claims: claims, "
    "created_at: s.created_at, created_by: s.created_by, extraction: extraction, "
    "extraction_updated_at: e.updated_at} AS source"
)


@dataclass(frozen=True)
class SourceRow:
    """A source as its list shows it: title, claims, who added it when, and how its latest extraction went."""

    id: str
    title: str
    status: str
    version: int
    claims: int
    created_at: str
    created_by: str | None
    # 'none', 'running' (queued or running), 'done' or 'failed'.
    extraction: str
    extraction_updated_at: str | None

    @property
    def extraction_stalled(self) -> bool:
        return self.extraction == "running" and is_stale(self.extraction_updated_at)


def _source_params(criteria: Criteria) -> dict[str, Any]:
    return {"q": criteria.q.lower(), **filter_params(SOURCES.filters, criteria)}


def source_rows(*, workspace: HasGraph, criteria: Criteria, offset: int, limit: int) -> list[SourceRow]:
    """One page of the sources that match the criteria, in its order."""
    order = graph.order_by(SOURCE_COLUMNS, sort=criteria.sort, descending=criteria.descending, tiebreak="s.id")
    cypher = SOURCE_ROWS_READ + "WITH s, v, e, extraction, claims" + order + "SKIP $offset LIMIT $limit "
    params = {**_source_params(criteria), "offset": offset, "limit": limit}
    return [SourceRow(**row) for row in graph.ro_records(workspace, cypher + SOURCE_ROW_FIELDS + order, params)]


def source_rows_count(*, workspace: HasGraph, criteria: Criteria) -> int:
    """How many sources match the criteria."""
    return int(graph.ro_query(workspace, SOURCE_ROWS_COUNT, _source_params(criteria))[0][0])


# The claims of a list: every claim (`rank` 0), or the claims a search ranked (`rank` their place in $ids).
CLAIM_ROWS_ALL = "MATCH (c:Claim) WITH c, 0 AS rank "
CLAIM_ROWS_RANKED = "UNWIND range(0, size($ids) - 1) AS rank MATCH (c:Claim {id: $ids[rank]}) WITH c, rank "
CLAIM_ROWS_FILTER = "OPTIONAL MATCH (s:Source {id: c.source_id}) WITH c, rank, s WHERE " + where(
    CLAIMS.filters, "status", "author", "from", "to", "source"
)
CLAIM_COLUMNS = {
    "relevance": "rank",
    "created": "c.created_at",
    "statement": "toLower(c.statement)",
    "status": "c.status",
}
CLAIM_ROW_FIELDS = (
    "RETURN {id: c.id, statement: c.statement, status: c.status, source_id: c.source_id, source_title: s.title, "
    "created_at: c.created_at, created_by: c.created_by, confidence_kind: c.confidence_kind} AS claim"
)


@dataclass(frozen=True)
class ClaimRow:
    """A claim as the claims list shows it: statement, status, its source's title, who added it when."""

    id: str
    statement: str
    status: str
    source_id: str | None
    source_title: str | None
    created_at: str
    created_by: str | None
    confidence_kind: str | None


def _claim_params(criteria: Criteria, ids: list[str] | None) -> dict[str, Any]:
    return {**filter_params(CLAIMS.filters, criteria), "ids": ids or []}


def claim_rows(
    *, workspace: HasGraph, criteria: Criteria, offset: int, limit: int, ids: list[str] | None = None
) -> list[ClaimRow]:
    """One page of the claims that match the criteria's filters, in its order: of all claims, or of those
    `ids` (a search's ranking, best first; sort 'relevance' keeps that order)."""
    order = graph.order_by(CLAIM_COLUMNS, sort=criteria.sort, descending=criteria.descending, tiebreak="c.id")
    head = CLAIM_ROWS_ALL if ids is None else CLAIM_ROWS_RANKED
    cypher = head + CLAIM_ROWS_FILTER + "WITH c, rank, s" + order + "SKIP $offset LIMIT $limit " + CLAIM_ROW_FIELDS
    params = {**_claim_params(criteria, ids), "offset": offset, "limit": limit}
    return [ClaimRow(**row) for row in graph.ro_records(workspace, cypher + order, params)]


def claim_rows_count(*, workspace: HasGraph, criteria: Criteria, ids: list[str] | None = None) -> int:
    """How many claims (of all, or of those `ids`) match the criteria's filters."""
    head = CLAIM_ROWS_ALL if ids is None else CLAIM_ROWS_RANKED
    return int(
        graph.ro_query(workspace, head + CLAIM_ROWS_FILTER + "RETURN count(c)", _claim_params(criteria, ids))[0][0]
    )
