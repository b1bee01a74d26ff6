"""The shards benchmark (`make bench BENCH_ARGS="--only shards"`, docs/benchmarks.md) at a tiny size on the test
cluster, so that it cannot rot: the spread, client processes correcting and searching through the real services,
the CPU read from every node, one failover. Its figures are not judged here (speed is shown by the benchmark).
Runs after test_failover.py (file order) and, like it, puts the killed node back."""

from __future__ import annotations

import random
import uuid

import pytest

from afterhack import graph
from afterhack.cluster import LocalCluster
from benchmarks import corrections_graph as bench_graph
from benchmarks import shards as bench_shards
from tests.conftest import MakeUser
from workspaces.services import workspaces as workspace_services

# Transactions committed: the benchmark's clients are other processes, reading the workspaces from PostgreSQL.
pytestmark = [pytest.mark.cluster, pytest.mark.django_db(transaction=True)]


def test_a_story_makes_as_many_nodes_as_the_benchmarks_count(on_cluster: LocalCluster, make_user: MakeUser) -> None:
    workspace = workspace_services.workspace_create(name="One story", creator=make_user("sam"))
    before = graph.ro_query(workspace, "MATCH (n) RETURN count(n)")[0][0]  # a new workspace's graph has its own node
    story = {k: str(uuid.uuid4()) for k in ("s", "v", "f1", "f2", "a", "b", "c", "d", "e", "x")}
    bench_graph.bench_stories_create(workspace=workspace, stories=[story], now="2026-12-01T00:00:00+00:00")
    assert bench_graph.bench_counts(workspace=workspace)[0] - before == bench_graph.BENCH_NODES_PER_STORY


def test_the_shards_benchmark_runs_at_a_tiny_size(on_cluster: LocalCluster, make_user: MakeUser) -> None:
    user = make_user("bench")
    landed = bench_shards.spread(on_cluster, 30)
    assert sorted(landed) == sorted(on_cluster.primaries())
    assert sum(landed.values()) == 30
    assert len(bench_shards.spread_figures(on_cluster, [30])) == 3

    runs = bench_shards.throughput(
        "3-shard cluster", on_cluster, user, workspaces=3, nodes=300, levels=[1, 2], seconds=0.5, runs=1,
        rng=random.Random(1),  # noqa: S311 - not for secrets
    )  # fmt: skip
    assert [(run.kind, run.clients) for run in runs] == [
        ("corrections", 1), ("corrections", 2), ("searches", 1), ("searches", 2)
    ]  # fmt: skip
    for run in runs:
        assert run.operations > 0, run
        assert run.errors == 0, run
        assert len(run.node_cpu) == 6  # every node's CPU, primaries and replicas
        assert sum(run.node_cpu.values()) > 0
        assert run.client_cpu > 0
        assert sum(int(n) for n in run.placement.split("/")) == 3
    figures = bench_shards.throughput_figures(runs)
    assert [figure.name for figure in figures] == [
        "3-shard cluster: corrections, 1 client process",
        "3-shard cluster: corrections, 2 client processes",
        "3-shard cluster: searches, 1 client process",
        "3-shard cluster: searches, 2 client processes",
    ]
    assert "primary" in figures[0].detail

    # The memory benchmark's INFO on a cluster: every primary's used_memory summed, not one node's.
    largest = max(int(on_cluster.node(port).info("memory")["used_memory"]) for port in on_cluster.primaries()) / 2**20
    assert bench_graph.server_used_memory_mb() > largest + 0.5

    windows = bench_shards.failover_windows(on_cluster, user, 1)
    assert len(windows) == 1
    assert windows[0] > 0
    assert len(on_cluster.running_ports()) == 6  # the killed node is back
