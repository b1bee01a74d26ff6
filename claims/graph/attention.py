"""Claims' counts of what needs attention and of what a workspace holds (workspaces/registry.py `AttentionPart`):
Cypher subqueries that workspaces/graph.py composes into its one attention query, and how their rows read."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from afterhack.history_graph import ChangeKind
from claims.statuses import ClaimStatus, JobStatus

SOURCES = "OPTIONAL MATCH (s:Source) RETURN count(s) AS sources"
CLAIMS = "OPTIONAL MATCH (c:Claim) RETURN count(c) AS claims"
# A source's extraction is the newest of its current version's: failed, or stalled (busy but silent since
# $stale_before), or running.
EXTRACTIONS = """
OPTIONAL MATCH (:Source)-[:HAS_VERSION]->(v:SourceVersion {current: true})<-[:OF]-(e:Extraction)
WITH v, max(e.started_at) AS newest, collect(e) AS runs
WITH [r IN runs WHERE r.started_at = newest][0] AS latest
WITH latest, latest.status IN $busy AS busy, latest.updated_at < $stale_before AS stale
RETURN sum(CASE WHEN latest.status = $failed OR (busy AND stale) THEN 1 ELSE 0 END) AS extractions_failed,
       sum(CASE WHEN busy AND NOT stale THEN 1 ELSE 0 END) AS extractions_running
"""
COLUMNS = ("sources", "claims", "extractions_failed", "extractions_running")

# As of $as_of: the sources made by then, and the claims made by then by their present status (moved to their
# status then by the changes since, in `claims_then`). Extractions are not in the history.
SOURCES_THEN = "OPTIONAL MATCH (s:Source) WHERE coalesce(s.created_at, '') <= $as_of RETURN count(s) AS sources"
CLAIMS_THEN = """
MATCH (c:Claim) WHERE coalesce(c.created_at, '') <= $as_of
WITH c.status AS status, count(c) AS n RETURN collect([status, n]) AS claims
"""
THEN_COLUMNS = ("sources", "claims")


def attention_params(stale_before: str) -> dict[str, Any]:
    """The extraction statuses the counts name, and since when a busy extraction that said nothing is stalled."""
    return {"busy": [JobStatus.QUEUED, JobStatus.RUNNING], "failed": JobStatus.FAILED, "stale_before": stale_before}


def claims_then(row: Mapping[str, Any], changed: list[Mapping[str, Any]], as_of: str) -> dict[str, Any]:
    """The sources and the claims by status at the moment, from the as-of row and the nodes changed since."""
    counts: Counter[str] = Counter()
    for status, n in row["claims"] or []:
        counts[status] += n
    for node in changed:
        if node["kind"] == ChangeKind.CLAIM:
            counts[node["now"]] -= 1
            counts[node["then"]] += 1
    claims = {str(s): counts[s] for s in ClaimStatus}
    return {"sources": int(row["sources"] or 0), "claims": claims, "claims_total": sum(claims.values())}


# -- the indexes claims' labels need in every workspace's graph (workspaces/registry.py `IndexSet`) ---------------

ID_INDEXED = ("Source", "SourceVersion", "SourceFragment", "Claim", "Extraction")
# Looked up by equality, never a time held as text (workspaces/graph.py `is_time` says why); and `current_since_ms`,
# when a claim became current as a number (afterhack/clock.py `epoch_ms`), whose windows the index answers rightly:
# corrections' contradiction watch reads the claims that became current in the last day through it.
RANGE_INDEXED = (("Claim", "key"), ("Claim", "version_id"), ("Claim", "current_since_ms"), ("RejectedClaim", "key"))
# The claims' words for lexical search (claims/fulltext.py says what a match is): English stemming and no stop
# words, so that every word of a phrase counts. That is what FalkorDB 4.x gives an index made without options
# (`createNodeIndex('Claim', 'statement')`, as earlier builds made it: db.indexes reports the same language and
# stop words, and "the" is indexed), so existing graphs keep theirs; the options are spelled out here to say so.
FULLTEXT_CLAIM_STATEMENT = (
    "CALL db.idx.fulltext.createNodeIndex({label: 'Claim', stopwords: [], language: 'english'}, 'statement')"
)
FULLTEXT_INDEXED = (("Claim", "statement", FULLTEXT_CLAIM_STATEMENT),)
