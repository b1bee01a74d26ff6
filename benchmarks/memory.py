"""Memory per graph node (run by `make bench BENCH_ARGS="--only memory"`): workspaces of realistic stories (a
source, its version and fragments, claims with statements, a derived claim, decisions, an action) with one story in
ten corrected and its Change records written, at 100k and 1M nodes; FalkorDB's own memory report read before and
after. Optionally each claim gets a vector (`--memory-dims 384`) under the workspace's vector index."""

from __future__ import annotations

import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from afterhack import graph
from afterhack.clock import now_iso
from benchmarks import corrections_graph as bench_graph
from benchmarks.claims import Figure
from claims.graph import embeddings as embeddings_graph
from workspaces.services import workspaces as workspace_services

BATCH = 2_000
# One story in ten is corrected: 4 Change nodes (and their OF edges) each.
CORRECTED_EVERY = 10
BENCH_MODEL = "bench-synthetic"
# The figures here divide by the nodes counted in the graph anyway.
NODES_PER_STORY = bench_graph.BENCH_NODES_PER_STORY


def grow_realistic(workspace: Any, nodes: int) -> int:
    """Stories (10 nodes) and, for one in ten, a correction's Change records (4 nodes), to about `nodes` nodes in
    all; returns the claims' count."""
    began = datetime.now(UTC) - timedelta(days=60)
    stories_count = int(nodes / (NODES_PER_STORY + 4 / CORRECTED_EVERY))
    claims = 0
    for start in range(0, stories_count, BATCH):
        stories = [
            {k: str(uuid.uuid4()) for k in ("s", "v", "f1", "f2", "a", "b", "c", "d", "e", "x")}
            for _ in range(min(BATCH, stories_count - start))
        ]
        bench_graph.bench_stories_create(workspace=workspace, stories=stories, now=began.isoformat())
        events = [
            {"a": s["a"], "c": s["c"], "e": s["e"], "x": s["x"], "correction": str(uuid.uuid4()), "at": now_iso()}
            for s in stories[::CORRECTED_EVERY]
        ]
        bench_graph.bench_history_create(workspace=workspace, events=events)
        claims += 3 * len(stories)
    return claims


def embed_all(workspace: Any, dimension: int) -> None:
    """A random vector of `dimension` on every claim, under the workspace's vector index."""
    embeddings_graph.embedding_index_ensure(workspace=workspace, dimension=dimension)
    ids = bench_graph.bench_claim_ids(workspace=workspace)
    for start in range(0, len(ids), BATCH):
        bench_graph.bench_embed(
            workspace=workspace, ids=ids[start : start + BATCH], model=BENCH_MODEL, dimension=dimension
        )


def settled_memory_mb() -> float:
    """The server's used memory once it stops falling (FalkorDB frees a deleted graph in the background)."""
    last = bench_graph.server_used_memory_mb()
    for _ in range(60):
        time.sleep(1)
        now = bench_graph.server_used_memory_mb()
        if abs(now - last) < 1:
            return now
        last = now
    return last


def measure(user: Any, size: int, dimension: int | None) -> list[Figure]:
    workspace = workspace_services.workspace_create(name=f"Bench memory {size}", creator=user)
    try:
        before = settled_memory_mb()
        started = time.perf_counter()
        claims = grow_realistic(workspace, size)
        if dimension:
            embed_all(workspace, dimension)
        seconds = time.perf_counter() - started
        used = bench_graph.server_used_memory_mb() - before
        report = bench_graph.memory_report(workspace=workspace)
        nodes, edges = bench_graph.bench_counts(workspace=workspace)
    finally:
        graph.graph_delete(workspace)
    label = f"{nodes:,} nodes, {edges:,} relationships, {claims:,} claims" + (
        f" x {dimension} dims" if dimension else ""
    )
    own = report.get("total_graph_sz_mb")
    parts = ", ".join(
        f"{name.removesuffix('_sz_mb').replace('amortized_', '')} {value:,.0f}"
        for name, value in report.items()
        if name != "total_graph_sz_mb"
    )
    per_million = used * 1_000_000 / nodes
    return [
        Figure(
            f"{label}: server memory (INFO used_memory growth)",
            used,
            "MB",
            f"{per_million:,.0f} MB per 1M nodes; loaded in {seconds:.0f} s",
        ),
        Figure(
            f"{label}: GRAPH.MEMORY USAGE total",
            own if own is not None else float("nan"),
            "MB",
            f"parts (MB): {parts}" if parts else "the server cannot say (no GRAPH.MEMORY)",
        ),
    ]


def bench_memory(user: Any, sizes: list[int], dimensions: list[int]) -> list[Figure]:
    figures = []
    for dimension in dimensions:
        figures.extend(measure(user, sizes[0], dimension))
    for size in sizes:
        figures.extend(measure(user, size, None))
    return figures
