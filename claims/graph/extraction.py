"""Extraction runs (queued, running, done or failed; one at a time per version), the claims they refused, and the
claims of a source that were retracted since.
"""

from __future__ import annotations

from dataclasses import dataclass

from afterhack import graph
from afterhack.cypher import hold_members, word, words
from afterhack.graph import HasGraph
from afterhack.ids import parse_id
from afterhack.lists.graph import after_params, keyset
from claims.graph.shapes import BackgroundJob
from claims.statuses import ClaimStatus, JobStatus


@dataclass(frozen=True)
class Extraction(BackgroundJob):
    id: str
    version_id: str
    status: JobStatus
    done: int
    total: int
    error: str | None
    extractor: str
    claims_added: int
    rejected: int
    started_at: str
    updated_at: str

    def __post_init__(self) -> None:
        hold_members(self, status=JobStatus)


@dataclass(frozen=True)
class RejectedClaim:
    statement: str
    evidence_quote: str
    reason: str
    detail: str
    hint_start: int | None
    hint_end: int | None
    extractor: str
    created_at: str
    key: str = ""


REJECTED_OF = (
    "MATCH (:Source {id: $source_id})-[:HAS_VERSION]->(v:SourceVersion {current: true})-[:REJECTED]->(x:RejectedClaim) "
)
REJECTED_AFTER, REJECTED_ORDER = keyset("x", key="key", newest_first=False)
REJECTED_LIST = f"""{REJECTED_OF}
WHERE {REJECTED_AFTER}
WITH x ORDER BY {REJECTED_ORDER} LIMIT $limit
RETURN x {{.statement, .evidence_quote, .reason, .detail, .hint_start, .hint_end, .extractor, .created_at, .key}} AS rejected
"""
REJECTED_COUNT = REJECTED_OF + "RETURN count(x)"


def rejected_list(
    *, workspace: HasGraph, source_id: str, after: tuple[str, str] | None = None, limit: int = 1_000
) -> list[RejectedClaim]:
    """Claims refused for the source's current version, with why, oldest first (after the
    (created_at, key) position `after`)."""
    if parse_id(source_id) is None:
        return []
    params = {"source_id": source_id, "limit": limit, **after_params(after)}
    return [RejectedClaim(**row) for row in graph.ro_records(workspace, REJECTED_LIST, params)]


def rejected_count(*, workspace: HasGraph, source_id: str) -> int:
    """How many claims were refused for the source's current version."""
    if parse_id(source_id) is None:
        return 0
    return int(graph.ro_query(workspace, REJECTED_COUNT, {"source_id": source_id})[0][0])


EXTRACTION_START = f"""
MATCH (v:SourceVersion {{id: $version_id}})
OPTIONAL MATCH (v)<-[:OF]-(busy:Extraction)
WHERE busy.status IN {words(JobStatus.QUEUED, JobStatus.RUNNING)} AND busy.updated_at > $stale_before
WITH v, collect(busy.id) AS busy_ids
WITH v, busy_ids WHERE size(busy_ids) = 0
CREATE (v)<-[:OF]-(e:Extraction {{id: $extraction_id, version_id: v.id, status: {word(JobStatus.QUEUED)}, done: 0,
                                 total: $total, error: null, extractor: $extractor, claims_added: 0,
                                 rejected: 0, started_at: $now, updated_at: $now}})
RETURN e.id
"""


def extraction_start(
    *, workspace: HasGraph, extraction_id: str, version_id: str, total: int, extractor: str, now: str, stale_before: str
) -> bool:
    """Queues an extraction of the version unless one is already queued or running (and not stale)."""
    params = {
        "extraction_id": extraction_id, "version_id": version_id, "total": total,
        "extractor": extractor, "now": now, "stale_before": stale_before,
    }  # fmt: skip
    return bool(graph.query(workspace, EXTRACTION_START, params))


EXTRACTION_PROGRESS = f"""
MATCH (e:Extraction {{id: $extraction_id}})
WHERE e.status IN {words(JobStatus.QUEUED, JobStatus.RUNNING)}
SET e.status = {word(JobStatus.RUNNING)}, e.done = $done, e.updated_at = $now
RETURN e.id
"""


def extraction_progress(*, workspace: HasGraph, extraction_id: str, done: int, now: str) -> bool:
    """Records how many fragments are done; False if the run is no longer active."""
    params = {"extraction_id": extraction_id, "done": done, "now": now}
    return bool(graph.query(workspace, EXTRACTION_PROGRESS, params))


EXTRACTION_FAIL = f"""
MATCH (e:Extraction {{id: $extraction_id}})
SET e.status = {word(JobStatus.FAILED)}, e.error = $error, e.updated_at = $now
"""


def extraction_fail(*, workspace: HasGraph, extraction_id: str, error: str, now: str) -> None:
    """Marks the run failed with a sentence saying why; it wrote no claims."""
    graph.query(workspace, EXTRACTION_FAIL, {"extraction_id": extraction_id, "error": error, "now": now})


EXTRACTION_FIELDS = """e {.id, .version_id, .status, .done, .total, .error, .extractor,
       .claims_added, .rejected, .started_at, .updated_at} AS extraction"""

EXTRACTION_GET = "MATCH (e:Extraction {id: $extraction_id}) RETURN " + EXTRACTION_FIELDS

EXTRACTION_LATEST = (
    "MATCH (:Source {id: $source_id})-[:HAS_VERSION]->(:SourceVersion {current: true})<-[:OF]-(e:Extraction) "
    "WITH e ORDER BY e.started_at DESC LIMIT 1 RETURN " + EXTRACTION_FIELDS
)


def extraction_get(*, workspace: HasGraph, extraction_id: str) -> Extraction | None:
    """One extraction run, or None."""
    if parse_id(extraction_id) is None:
        return None
    rows = graph.ro_records(workspace, EXTRACTION_GET, {"extraction_id": extraction_id})
    return Extraction(**rows[0]) if rows else None


def extraction_latest(*, workspace: HasGraph, source_id: str) -> Extraction | None:
    """The newest extraction run of the source's current version, or None."""
    if parse_id(source_id) is None:
        return None
    rows = graph.ro_records(workspace, EXTRACTION_LATEST, {"source_id": source_id})
    return Extraction(**rows[0]) if rows else None


VANISHED = f"""
MATCH (:Source {{id: $source_id}})-[:HAS_VERSION]->(v:SourceVersion)
MATCH (c:Claim {{version_id: v.id}})
WHERE c.status = {word(ClaimStatus.RETRACTED)}
WITH c, v ORDER BY v.version DESC, c.start
RETURN {{id: c.id, statement: c.statement, evidence_quote: c.evidence_quote, version: v.version, why: c.retraction}}
       AS retracted
"""


@dataclass(frozen=True)
class Retracted:
    id: str
    statement: str
    evidence_quote: str | None
    version: int
    why: str


def retracted_claims(*, workspace: HasGraph, source_id: str) -> list[Retracted]:
    """The source's claims that were retracted: their quote vanished from a new version, or the source was retracted."""
    return [Retracted(**row) for row in graph.ro_records_of(workspace, VANISHED, source_id=source_id)]
