"""The local FalkorDB cluster (3 primaries, a replica each) the cluster tests run on: docs/cluster.md.

Started once per session, and only when a test here runs (`-m "not cluster"` leaves it out; AFTERHACK_TEST_CLUSTER=0
skips these tests). Its six nodes use the first free ports from AFTERHACK_TEST_CLUSTER_PORT (default 17000; 1,000 more
for each xdist worker: tests/conftest.py, worker_port) and each port + 10000; they run in one process group that dies with this process, and are stopped at the end of the session.
PostgreSQL is the suite's own; only FALKORDB_URL points at the cluster, for each test of this folder.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any

import pytest

from afterhack import graph
from afterhack.cluster import LocalCluster, free_ports

# The correction story's fixture, for the cluster tests.
from tests.conftest import worker_port
from tests.corrections.conftest import world as world


@pytest.fixture(scope="session")
def falkordb_cluster() -> Iterator[LocalCluster]:
    if os.environ.get("AFTERHACK_TEST_CLUSTER", "1") == "0":
        pytest.skip("AFTERHACK_TEST_CLUSTER=0: the cluster tests are not run")
    cluster = LocalCluster(free_ports(worker_port(int(os.environ.get("AFTERHACK_TEST_CLUSTER_PORT", "17000")))))
    cluster.start()
    print(f"\nlocal FalkorDB cluster formed in {cluster.formed_in:.1f}s on ports {cluster.ports}")
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(autouse=True)
def on_cluster(falkordb_cluster: LocalCluster, settings: Any) -> LocalCluster:
    """This test's graphs live on the cluster (named by one node: the gateway finds the others)."""
    settings.FALKORDB_URL = falkordb_cluster.url
    return falkordb_cluster


@pytest.fixture(autouse=True)
def _clean_graphs(on_cluster: LocalCluster) -> Iterator[None]:
    """As the suite's: every graph a test made on the cluster is deleted after it."""
    before = set(graph.list_graph_names())
    yield
    deadline = time.monotonic() + 30
    while True:
        try:
            for name in set(graph.list_graph_names()) - before:
                graph.delete_graph_named(name)
            return
        except graph.GraphUnavailable:  # a failover test leaves a shard re-forming for a moment
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
