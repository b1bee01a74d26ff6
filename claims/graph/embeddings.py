"""Embeddings (semantic search): the claims' vector index, storing vectors, the claims still to embed, and the
claims nearest a vector.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from afterhack import graph
from afterhack.cypher import hold_members
from afterhack.graph import HasGraph
from afterhack.ids import parse_id
from claims.statuses import ClaimStatus

#
# A claim's vector is its `embedding` (vecf32), made by the model named in its `embedding_model`; the vector
# index (cosine) covers Claim.embedding at one dimension, the model's. A vector of another model is never
# ranked: the search keeps only claims embedded by the model that embedded the query.

EMBEDDING_INDEX = (
    "CREATE VECTOR INDEX FOR (c:Claim) ON (c.embedding) OPTIONS {dimension: $dimension, similarityFunction: 'cosine'}"
)
EMBEDDING_INDEX_DROP = "DROP VECTOR INDEX FOR (c:Claim) ON (c.embedding)"
EMBEDDING_INDEX_GET = """
CALL db.indexes() YIELD label, types, options
WHERE label = 'Claim'
RETURN {types: types, options: options} AS index
"""

# One write per batch. Embeddings are derived data, like an index: no preview depends on them, so the
# write leaves the workspace revision alone (as extraction progress does), and a claim deleted meanwhile is skipped.
CLAIM_EMBEDDINGS_SET = """
UNWIND $rows AS row
MATCH (c:Claim {id: row.id})
WHERE c.statement = row.statement
SET c.embedding = vecf32(row.vector), c.embedding_model = $model
RETURN count(c)
"""

# Ids only, in one pass: the batches then read their claims by id (indexed), so a backfill stays linear.
CLAIMS_UNEMBEDDED = """
MATCH (c:Claim)
WHERE c.embedding_model IS NULL OR c.embedding_model <> $model
RETURN c.id ORDER BY c.id
"""

CLAIMS_TO_EMBED = """
UNWIND $claim_ids AS claim_id
MATCH (c:Claim {id: claim_id})
WHERE c.embedding_model IS NULL OR c.embedding_model <> $model
RETURN {id: c.id, statement: c.statement} AS claim
"""

CLAIMS_UNEMBEDDED_COUNT = """
MATCH (c:Claim)
WHERE c.embedding_model IS NULL OR c.embedding_model <> $model
RETURN count(c)
"""

# A claim's own vector of the model, to search by its meaning without asking the model again.
CLAIM_VECTOR = """
MATCH (c:Claim {id: $claim_id}) WHERE c.embedding_model = $model
RETURN c.embedding
"""

# Nearest first: the index answers `$k` nodes with their cosine distance (0 alike, 2 opposite).
CLAIM_NEAREST = """
CALL db.idx.vector.queryNodes('Claim', 'embedding', $k, vecf32($vector)) YIELD node, score
WITH node AS c, score
WHERE c.embedding_model = $model AND score <= $max_distance AND ($before = '' OR c.created_at <= $before)
RETURN {id: c.id, statement: c.statement, status: c.status, source_id: c.source_id, distance: score} AS hit
ORDER BY score, c.id
"""


@dataclass(frozen=True)
class NearHit:
    id: str
    statement: str
    status: ClaimStatus
    source_id: str | None
    distance: float

    def __post_init__(self) -> None:
        hold_members(self, status=ClaimStatus)


def embedding_index_dimension(*, workspace: HasGraph) -> int | None:
    """The dimension of the claims' vector index, or None when there is none."""
    for index in graph.ro_records(workspace, EMBEDDING_INDEX_GET):
        if "VECTOR" in (index["types"] or {}).get("embedding", []):
            return int(index["options"]["embedding"]["dimension"])
    return None


def embedding_index_ensure(*, workspace: HasGraph, dimension: int) -> None:
    """Gives the claims a vector index of this dimension, replacing one of another (a new model's vectors)."""
    existing = embedding_index_dimension(workspace=workspace)
    if existing == dimension:
        return
    if existing is not None:
        graph.query(workspace, EMBEDDING_INDEX_DROP)
    graph.query(workspace, EMBEDDING_INDEX, {"dimension": dimension})


def claim_embeddings_set(*, workspace: HasGraph, model: str, rows: list[dict[str, Any]]) -> int:
    """Stores each row's vector on its claim ({id, statement, vector}) in one query, unless the claim's
    statement is no longer the one embedded; returns how many were stored."""
    return int(graph.query(workspace, CLAIM_EMBEDDINGS_SET, {"rows": rows, "model": model})[0][0])


@dataclass(frozen=True)
class ToEmbed:
    id: str
    statement: str


def claims_unembedded(*, workspace: HasGraph, model: str) -> list[str]:
    """The ids of the claims with no vector of `model`, in id order."""
    return [row[0] for row in graph.ro_query(workspace, CLAIMS_UNEMBEDDED, {"model": model})]


def claims_to_embed(*, workspace: HasGraph, model: str, claim_ids: list[str]) -> list[ToEmbed]:
    """Those of these claims that exist and have no vector of `model`, with their statements."""
    claim_ids = [i for i in claim_ids if parse_id(i)]
    params = {"model": model, "claim_ids": claim_ids}
    return [ToEmbed(**row) for row in graph.ro_records(workspace, CLAIMS_TO_EMBED, params)] if claim_ids else []


def claims_unembedded_count(*, workspace: HasGraph, model: str) -> int:
    """How many claims have no vector of `model`."""
    return int(graph.ro_query(workspace, CLAIMS_UNEMBEDDED_COUNT, {"model": model})[0][0])


def claim_vector(*, workspace: HasGraph, claim_id: str, model: str) -> list[float] | None:
    """The claim's vector of `model`, or None when it has none (not embedded yet, or by another model)."""
    rows = graph.ro_query(workspace, CLAIM_VECTOR, {"claim_id": claim_id, "model": model})
    return [float(x) for x in rows[0][0]] if rows and rows[0][0] is not None else None


def claim_nearest(
    *, workspace: HasGraph, model: str, vector: list[float], k: int, max_distance: float, before: str = ""
) -> list[NearHit]:
    """The `k` claims whose `model` vectors are nearest the vector (within `max_distance`), nearest first."""
    params = {"model": model, "vector": vector, "k": k, "max_distance": max_distance, "before": before}
    return [NearHit(**row) for row in graph.ro_records(workspace, CLAIM_NEAREST, params)]
