"""Claims: recording extracted and manual ones (idempotently, with the rejected ones), creating derived ones, and
reading a claim or several as a Claim (CLAIM_MAP).
"""

from __future__ import annotations

import functools
import uuid
from typing import Any

from afterhack import graph
from afterhack.clock import epoch_ms
from afterhack.cypher import word
from afterhack.graph import BUMP_REVISION, HasGraph
from afterhack.holds import claim_holds
from afterhack.ids import parse_id
from claims.graph.shapes import Claim
from claims.registry import ProposedClaimReview
from claims.statuses import ClaimStatus, ConfidenceKind, JobStatus, SourceStatus

# Each row: key, id, statement, evidence_quote, start, end, confidence, confidence_kind, extractor,
# fragment_ids (the fragments its span overlaps, worked out by the caller). MERGE on the key
# makes the write idempotent: the same claim again is the same node, and `created_in` tells
# which rows this very write created. Every lookup is by an indexed property.
# With a review (an agent's claims where the workspace asks for approval) each claim this write creates is
# `proposed`, and the registered review's clause (claims/registry.py) writes its review in the same query: a
# proposed claim is never stored without it. `current_since_ms` is when a claim became current, as a number (range-
# indexed: claims/graph/attention.py); a proposed claim gets it when it is approved.
CLAIMS_RECORD_HEAD = (
    f"""
MATCH (s:Source)-[:HAS_VERSION]->(v:SourceVersion {{id: $version_id}})
WHERE s.status = {word(SourceStatus.ACTIVE)} AND v.current = true
"""
    + BUMP_REVISION
    + f"""
WITH s, v
CALL {{
  WITH s, v
  UNWIND $claims AS row
  MERGE (c:Claim {{key: row.key}})
  ON CREATE SET c.id = row.id, c.statement = row.statement, c.evidence_quote = row.evidence_quote,
                c.start = row.start, c.end = row.end, c.confidence = row.confidence,
                c.confidence_kind = row.confidence_kind, c.extractor = row.extractor,
                c.status = CASE WHEN $proposed THEN {word(ClaimStatus.PROPOSED)} ELSE {word(ClaimStatus.CURRENT)} END,
                c.revision = 0, c.source_id = s.id, c.version_id = v.id, c.created_at = $now,
                c.current_since_ms = CASE WHEN $proposed THEN null ELSE $now_ms END,
                c.created_by = $created_by, c.created_in = $write_id
  WITH c, row
  UNWIND row.fragment_ids AS fragment_id
  MATCH (f:SourceFragment {{id: fragment_id}})
  MERGE (c)-[:SUPPORTED_BY {{role: 'evidence'}}]->(f)
}}
"""
)
# Run for each claim this write created, when the claims are proposed: the registered review's clause.
CLAIMS_REVIEW = """
CALL {
  WITH v
  UNWIND $claims AS row
  MATCH (c:Claim {key: row.key})
  WITH c, row WHERE c.created_in = $write_id
"""
CLAIMS_RECORD_TAIL = f"""
CALL {{
  WITH v
  UNWIND $rejected AS r
  MERGE (v)-[:REJECTED]->(x:RejectedClaim {{key: r.key}})
  ON CREATE SET x.statement = r.statement, x.evidence_quote = r.evidence_quote, x.reason = r.reason,
                x.detail = r.detail, x.hint_start = r.hint_start, x.hint_end = r.hint_end,
                x.extractor = r.extractor, x.created_at = $now
}}
WITH v
OPTIONAL MATCH (c:Claim) WHERE c.key IN $keys
WITH collect({{key: c.key, id: c.id, created: c.created_in = $write_id}}) AS stored
OPTIONAL MATCH (e:Extraction {{id: $extraction_id}})
FOREACH (x IN CASE WHEN e IS NULL THEN [] ELSE [e] END |
  SET x.status = {word(JobStatus.DONE)}, x.done = x.total, x.updated_at = $now, x.error = null,
      x.claims_added = size([row IN stored WHERE row.created]), x.rejected = size($rejected))
RETURN {{stored: stored}} AS recorded
"""
CLAIMS_RECORD = CLAIMS_RECORD_HEAD + CLAIMS_RECORD_TAIL


@functools.cache
def claims_record_reviewed(clause: str) -> str:
    """CLAIMS_RECORD with a review's clause run for each claim the write creates."""
    return CLAIMS_RECORD_HEAD + CLAIMS_REVIEW + clause + "\n}" + CLAIMS_RECORD_TAIL


def claims_record(
    *,
    workspace: HasGraph,
    version_id: str,
    claims: list[dict[str, Any]],
    rejected: list[dict[str, Any]],
    created_by: str,
    now: str,
    write_id: str,
    extraction_id: str | None = None,
    review: ProposedClaimReview | None = None,
) -> list[tuple[str, bool]] | None:
    """Stores validated claims and rejected ones (and finishes the extraction) in one atomic query; with a `review`,
    the claims it creates are `proposed`, each with the review that clause writes beside it.

    Returns (claim id, created by this write) for each claim row in order, or None when the
    version is not the current one of an active source (it changed, or the source was retracted).
    """
    params = {
        "version_id": version_id, "claims": claims, "rejected": rejected, "created_by": created_by,
        "now": now, "now_ms": epoch_ms(now), "write_id": write_id, "extraction_id": extraction_id or "",
        "keys": [row["key"] for row in claims], "proposed": review is not None,
    }  # fmt: skip
    query = CLAIMS_RECORD
    if review is not None:
        params["claims"] = [{**row, "review_id": str(uuid.uuid4())} for row in claims]
        params.update(review.params)
        query = claims_record_reviewed(review.clause)
    rows = graph.records(workspace, query, params)
    if not rows:
        return None
    stored = {c["key"]: (c["id"], bool(c["created"])) for c in rows[0]["stored"] if c["key"] is not None}
    return [stored[row["key"]] for row in claims]


DERIVED_CLAIM_CREATE = (
    """
UNWIND $premise_ids AS premise_id
OPTIONAL MATCH (p:Claim {id: premise_id})
WITH collect(p) AS premises
WITH premises WHERE size(premises) = $count AND all(p IN premises WHERE """
    + claim_holds("p")
    + f""")
CREATE (c:Claim {{id: $claim_id, key: $claim_id, statement: $statement, status: {word(ClaimStatus.CURRENT)}, revision: 0,
                 confidence_kind: {word(ConfidenceKind.DERIVED)}, extractor: 'derived', created_at: $now, created_by: $created_by,
                 current_since_ms: $now_ms}})
WITH c, premises
UNWIND premises AS p
CREATE (c)-[:DERIVED_FROM {{justification: 0}}]->(p)
WITH DISTINCT c
"""
    + BUMP_REVISION
    + """
RETURN c.id
"""
)


def derived_claim_create(
    *, workspace: HasGraph, claim_id: str, statement: str, premise_ids: list[str], created_by: str, now: str
) -> bool:
    """Creates a claim justified by the premises together, only if all exist and are current."""
    rows = graph.query(
        workspace,
        DERIVED_CLAIM_CREATE,
        {
            "claim_id": claim_id, "statement": statement, "premise_ids": premise_ids,
            "count": len(premise_ids), "created_by": created_by, "now": now, "now_ms": epoch_ms(now),
        },
    )  # fmt: skip
    return bool(rows)


CLAIM_STATUSES = """
UNWIND $claim_ids AS claim_id
MATCH (c:Claim {id: claim_id})
RETURN c {.id, .status} AS claim
"""


def claim_statuses(*, workspace: HasGraph, claim_ids: list[str]) -> dict[str, str]:
    """The status of each of these claims that exists."""
    claim_ids = [i for i in claim_ids if parse_id(i)]
    return {c["id"]: c["status"] for c in graph.ro_records(workspace, CLAIM_STATUSES, {"claim_ids": claim_ids})}


# A claim as Claim.from_map reads it by name; `premises` is aggregated in a WITH before (an aggregate
# inside a map literal mis-groups in FalkorDB).
# Its properties are named (not `c {.*}`): a claim's embedding is hundreds of numbers no reader of a claim needs.
CLAIM_PROPERTIES = (
    "c {.id, .statement, .status, .evidence_quote, .start, .end, .confidence, .confidence_kind, .extractor, "
    ".source_id, .version_id, .created_at, .created_by, .status_changed_at, .retraction, .cited_source_id, "
    ".cited_version_id, .cited_version, .cited_quote, .cited_start, .cited_end}"
)
CLAIM_MAP = (
    "{claim: "
    + CLAIM_PROPERTIES
    + ", fragments: fragments, supersedes: old.id, superseded_by: replacement.id, premises: premises} AS claim"
)

CLAIM_GET = (
    """
MATCH (c:Claim {id: $claim_id})
OPTIONAL MATCH (c)-[r:SUPPORTED_BY]->(f:SourceFragment)
WITH c, f, r ORDER BY f.start
WITH c, collect(f {.id, .start, .end, .text, .origin_type, role: r.role}) AS fragments
OPTIONAL MATCH (c)-[:SUPERSEDES]->(old:Claim)
OPTIONAL MATCH (replacement:Claim)-[:SUPERSEDES]->(c)
OPTIONAL MATCH (c)-[d:DERIVED_FROM]->(p:Claim)
WITH c, fragments, old, replacement, collect([d.justification, p.id]) AS premises
RETURN """
    + CLAIM_MAP
)


def claim_get(*, workspace: HasGraph, claim_id: str) -> Claim | None:
    """The claim with its evidence fragments, what it supersedes or is superseded by, and its premises."""
    if parse_id(claim_id) is None:
        return None
    rows = graph.ro_records(workspace, CLAIM_GET, {"claim_id": claim_id})
    return Claim.from_map(rows[0]) if rows else None


# The claims $claim_ids (in that order: `position`), each with what CLAIM_MAP reads.
CLAIMS_FOUND = """
UNWIND range(0, size($claim_ids) - 1) AS position
MATCH (c:Claim {id: $claim_ids[position]})
OPTIONAL MATCH (c)-[r:SUPPORTED_BY]->(f:SourceFragment)
WITH position, c, f, r ORDER BY f.start
WITH position, c, collect(f {.id, .start, .end, .text, .origin_type, role: r.role}) AS fragments
OPTIONAL MATCH (c)-[:SUPERSEDES]->(old:Claim)
OPTIONAL MATCH (replacement:Claim)-[:SUPERSEDES]->(c)
OPTIONAL MATCH (c)-[d:DERIVED_FROM]->(p:Claim)
WITH position, c, fragments, old, replacement, collect([d.justification, p.id]) AS premises
"""

CLAIMS_GET = (
    CLAIMS_FOUND
    + "RETURN "
    + CLAIM_MAP
    + """
ORDER BY position
"""
)


def claims_get(*, workspace: HasGraph, claim_ids: list[str]) -> list[Claim]:
    """The claims with these ids that exist, in the order given, in one query."""
    claim_ids = [i for i in claim_ids if parse_id(i)]
    if not claim_ids:
        return []
    return [Claim.from_map(row) for row in graph.ro_records(workspace, CLAIMS_GET, {"claim_ids": claim_ids})]
