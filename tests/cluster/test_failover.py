"""A primary holding a workspace's graph is killed (kill -9): its replica takes over, the app answers again for that
workspace, and every write it acknowledged is there (docs/cluster.md, "Failover"). Runs after the other cluster
tests (file order) and puts the killed node back, as a replica, before it ends."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from afterhack import graph
from afterhack.cluster import LocalCluster
from claims.selectors import claims as claims_selectors
from tests.corrections.conftest import World
from tests.waiting import wait_until

pytestmark = [pytest.mark.cluster, pytest.mark.django_db]


class FailoverTests:
    def test_after_its_primary_dies_the_workspace_answers_again_with_every_acknowledged_write(
        self, on_cluster: LocalCluster, world: World
    ) -> None:
        workspace = world.trio.workspace
        primary = on_cluster.primary_of(workspace.graph_name)
        replica = on_cluster.replica_of(primary)
        acknowledged = [world.derived(f"Checkpoint {n} of the launch plan.", world.june) for n in range(20)]
        # And a writer that does not stop: the primary dies between, or during, its writes.
        notes = _Writer(workspace)
        notes.start()
        wait_until(lambda: len(notes.acknowledged) >= 20, seconds=60, every=0.01, what="the writer's first 20 notes")

        claims: list[Any] = []
        try:
            seen = on_cluster.failover(  # kill -9, right after acknowledged writes: no pause for replication
                primary,
                lambda: claims.append(claims_selectors.claim_get(workspace=workspace, claim_id=acknowledged[-1])),
                retry_on=(graph.GraphUnavailable,),  # answered 503 by the app, never a wrong answer
            )
            killed = time.monotonic() - seen.seconds
            print(
                f"\nfailover: primary {primary} killed, replica {replica} answered after {seen.seconds:.2f}s "
                f"({seen.refused} refusals)"
            )
            claim = claims[0]
            assert claim is not None
            assert on_cluster.node(replica).info("replication")["role"] == "master"  # promoted
            for claim_id in acknowledged:
                assert claims_selectors.claim_get(workspace=workspace, claim_id=claim_id) is not None
            while len(notes.acknowledged) < notes.count_at_failover + 20:
                assert time.monotonic() - killed < 30, "the writer did not write again"
                time.sleep(0.01)
            notes.stop()
            present = {row[0] for row in graph.ro_query(workspace, "MATCH (n:Note) RETURN n.n")}
            assert set(notes.acknowledged) <= present, sorted(set(notes.acknowledged) - present)
            assert present <= set(notes.acknowledged) | set(notes.unknown)  # nothing written twice or invented
            print(
                f"writer: {len(notes.acknowledged)} acknowledged, {len(notes.refused)} refused, "
                f"{len(notes.unknown)} of unknown outcome ({len(set(notes.unknown) & present)} of them ran)"
            )
            # Writes work again, on the new primary.
            after = world.derived("Written after the failover.", world.june)
            assert claims_selectors.claim_get(workspace=workspace, claim_id=after) is not None
        finally:
            notes.stop()
            # The killed node comes back on its files and rejoins as the new primary's replica.
            on_cluster.rejoin(primary)


class _Writer(threading.Thread):
    """Writes numbered notes to a workspace's graph, one query each, until stopped; sorts them by their outcome."""

    def __init__(self, workspace: Any) -> None:
        super().__init__(daemon=True)
        self.workspace = workspace
        self.acknowledged: list[int] = []
        self.refused: list[int] = []  # answered "unavailable": not run
        self.unknown: list[int] = []  # the connection broke while the answer was awaited
        self.count_at_failover = 0
        self._stopping = threading.Event()

    def run(self) -> None:
        n = 0
        while not self._stopping.is_set():
            n += 1
            try:
                graph.query(self.workspace, "CREATE (:Note {n: $n})", {"n": n})
                self.acknowledged.append(n)
            except graph.GraphUnavailable as error:
                if isinstance(error.__cause__, graph.WriteOutcomeUnknown):
                    self.unknown.append(n)
                else:
                    self.refused.append(n)
                if not self.count_at_failover:
                    self.count_at_failover = len(self.acknowledged)
                # The writer's pace while refused, as a client backing off: the behaviour under test.
                time.sleep(0.02)

    def stop(self) -> None:
        self._stopping.set()
        if self.is_alive():
            self.join(timeout=10)
