"""The memory benchmark (`make bench BENCH_ARGS="--only memory"`) on a small workspace: its stories, its Change
records, its vectors and FalkorDB's own report come through (the figures themselves need a quiet server)."""

from __future__ import annotations

import pytest

from afterhack import graph
from benchmarks.memory import bench_memory
from tests.conftest import Trio

pytestmark = [pytest.mark.load, pytest.mark.django_db]


def test_the_memory_benchmark_reports_the_server_and_the_graph_on_a_small_workspace(trio: Trio) -> None:
    before = set(graph.list_graph_names())
    figures = bench_memory(trio.owner, [1_000], [8])
    names = [figure.name for figure in figures]
    # 96 stories of 10 nodes and 11 relationships, 10 of them corrected (4 Change nodes, 4 OF each), the Workspace.
    assert names == [
        "1,001 nodes, 1,096 relationships, 288 claims x 8 dims: server memory (INFO used_memory growth)",
        "1,001 nodes, 1,096 relationships, 288 claims x 8 dims: GRAPH.MEMORY USAGE total",
        "1,001 nodes, 1,096 relationships, 288 claims: server memory (INFO used_memory growth)",
        "1,001 nodes, 1,096 relationships, 288 claims: GRAPH.MEMORY USAGE total",
    ]
    assert figures[1].value >= 0 and "indices" in figures[1].detail
    assert set(graph.list_graph_names()) == before  # its workspaces' graphs are gone
