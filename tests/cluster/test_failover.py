"""A primary holding a workspace's graph is killed (kill -9): its replica takes over, the app answers again for that
workspace, and every write it acknowledged is there (docs/cluster.md, "Failover"). Runs after the other cluster
tests (file order) and puts the killed node back, as a replica, before it ends."""

from __future__ import annotations

import time

import pytest

from afterhack import graph
from afterhack.cluster import LocalCluster
from claims import selectors as claims_selectors
from tests.corrections.conftest import World

pytestmark = [pytest.mark.cluster, pytest.mark.django_db]


class FailoverTests:
    def test_after_its_primary_dies_the_workspace_answers_again_with_every_acknowledged_write(
        self, on_cluster: LocalCluster, world: World
    ) -> None:
        workspace = world.trio.workspace
        primary = on_cluster.primary_of(workspace.graph_name)
        replica = on_cluster.replica_of(primary)
        acknowledged = [world.derived(f"Checkpoint {n} of the launch plan.", world.june) for n in range(20)]

        on_cluster.kill(primary)  # right after the last acknowledged write: no pause for replication
        killed = time.monotonic()
        refused = 0
        try:
            while True:
                try:
                    claim = claims_selectors.claim_get(workspace=workspace, claim_id=acknowledged[-1])
                    break
                except graph.GraphUnavailable:
                    refused += 1  # answered 503 by the app, never a wrong answer
                assert time.monotonic() - killed < 30, "the replica was not promoted in 30s"
                time.sleep(0.05)
            window = time.monotonic() - killed
            print(
                f"\nfailover: primary {primary} killed, replica {replica} answered after {window:.2f}s ({refused} refusals)"
            )
            assert claim is not None
            assert on_cluster.primary_of(workspace.graph_name) == replica
            for claim_id in acknowledged:
                assert claims_selectors.claim_get(workspace=workspace, claim_id=claim_id) is not None
            # Writes work again, on the new primary.
            after = world.derived("Written after the failover.", world.june)
            assert claims_selectors.claim_get(workspace=workspace, claim_id=after) is not None
        finally:
            # The killed node comes back on its files and rejoins as the new primary's replica.
            on_cluster.start_node(primary)
            on_cluster.wait_ok(time.monotonic() + 60)
