"""The search benchmark's Cypher (run by `make bench-search`, never by the product): claims in bulk, each with a
synthetic vector drawn by the server (so a million vectors never cross the wire as text)."""

from __future__ import annotations

from typing import Any

from afterhack import graph
from afterhack.graph import HasGraph

BENCH_CLAIMS = """
UNWIND $rows AS row
CREATE (c:Claim {id: row.id, key: row.id, statement: row.statement, status: row.status, revision: 0,
                 confidence_kind: 'manual', extractor: 'bench', created_at: $now, embedding_model: $model,
                 embedding: vecf32([i IN range(1, $dimension) | rand() - 0.5])})
RETURN count(c)
"""

# The same claims without a vector (`--search-dims 0`): lexical search alone, a million claims in minutes.
BENCH_CLAIMS_WORDS = """
UNWIND $rows AS row
CREATE (c:Claim {id: row.id, key: row.id, statement: row.statement, status: row.status, revision: 0,
                 confidence_kind: 'manual', extractor: 'bench', created_at: $now})
RETURN count(c)
"""


def bench_claims_create(
    *, workspace: HasGraph, rows: list[dict[str, Any]], model: str, dimension: int, now: str
) -> None:
    """Adds claims ({id, statement, status}) with random vectors of `dimension` made by `model` (none when it is
    0), in one query."""
    if not dimension:
        graph.query(workspace, BENCH_CLAIMS_WORDS, {"rows": rows, "now": now})
        return
    graph.query(workspace, BENCH_CLAIMS, {"rows": rows, "model": model, "dimension": dimension, "now": now})


def graph_memory_mb(*, workspace: HasGraph) -> float | None:
    """What FalkorDB reports the workspace's graph uses (GRAPH.MEMORY USAGE), in MB, or None if it cannot say."""
    try:
        answer = graph.client().connection.execute_command("GRAPH.MEMORY", "USAGE", workspace.graph_name)
    except Exception:  # noqa: BLE001 - an older server without the command: the figure is left out
        return None
    fields = answer if isinstance(answer, dict) else dict(zip(answer[::2], answer[1::2], strict=False))
    return float(fields.get("total_graph_sz_mb", 0.0))


def server_memory_mb() -> float:
    """The FalkorDB server's resident memory as it reports it (INFO memory, used_memory_rss), in MB."""
    info = graph.client().connection.execute_command("INFO", "memory")
    return float(info["used_memory_rss"]) / 2**20
