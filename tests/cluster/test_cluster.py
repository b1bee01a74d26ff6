"""The app on a FalkorDB cluster: workspaces spread over the shards, the correction story, listing, reconciling and
deleting graphs across primaries (docs/cluster.md)."""

from __future__ import annotations

import uuid
from collections import Counter
from dataclasses import dataclass
from typing import Any

import pytest
from django.test import override_settings
from redis.cluster import RedisCluster

from afterhack import graph
from afterhack.cluster import LocalCluster
from agents.selectors import decisions as agents_selectors
from claims.selectors import claims as claims_selectors
from tests.conftest import MakeUser
from tests.corrections.conftest import World, june_to_july
from workspaces import graph as workspace_graph
from workspaces.services import workspaces as workspace_services

pytestmark = [pytest.mark.cluster, pytest.mark.django_db]


class ClusterGatewayTests:
    def test_a_url_naming_one_node_is_found_to_be_a_cluster_and_every_primary_answers(self, on_cluster: Any) -> None:
        assert graph.is_cluster()
        connection = graph.client().connection
        assert isinstance(connection, RedisCluster)
        graph.ping()
        # Every node is reached through the gateway's connections: a write whose answer is lost is never resent.
        for node in connection.get_primaries():
            pool = connection.get_redis_connection(node).connection_pool
            assert issubclass(pool.connection_class, graph._NoBlindWriteResend)
        assert graph.server_version().count(".") == 2

    def test_each_write_waits_for_the_replica_on_its_own_connection(
        self, on_cluster: LocalCluster, make_user: MakeUser
    ) -> None:
        workspace = workspace_services.workspace_create(name="Waited", creator=make_user("olivia"))
        primary = on_cluster.node(on_cluster.primary_of(workspace.graph_name))
        waits_before = _calls(primary, "wait")
        graph.query(workspace, "CREATE (:Note {text: $text})", {"text": "one"})
        graph.query(workspace, "CREATE (:Note {text: $text})", {"text": "two"})
        assert graph.ro_query(workspace, "MATCH (n:Note) RETURN n.text ORDER BY n.text") == [["one"], ["two"]]
        assert _calls(primary, "wait") == waits_before + 2  # the writes, not the read
        replica = on_cluster.node(on_cluster.replica_of(on_cluster.primary_of(workspace.graph_name)))
        # On the replica already when the write was answered.
        replica.execute_command("READONLY")
        assert replica.execute_command("GRAPH.RO_QUERY", workspace.graph_name, "MATCH (n:Note) RETURN count(n)")[1] == [
            [2]
        ]
        with pytest.raises(graph.GraphError, match="refused"):
            graph.query(workspace, "CREATE (:Note {text: $text}", {"text": "broken"})

    def test_a_write_whose_replica_cannot_be_asked_is_of_unknown_outcome_not_acknowledged(
        self, on_cluster: LocalCluster, make_user: MakeUser
    ) -> None:
        # As when the primary dies between answering the write and answering WAIT: the write ran, but nothing says a
        # replica has it, so the app must not answer it as stored (a shuffled run lost such a write in a failover).
        workspace = workspace_services.workspace_create(name="Unasked", creator=make_user("olivia"))
        primary = on_cluster.node(on_cluster.primary_of(workspace.graph_name))
        primary.execute_command("ACL", "SETUSER", "default", "-wait")
        try:
            with pytest.raises(graph.GraphUnavailable) as refused:
                graph.query(workspace, "CREATE (:Note {text: $text})", {"text": "ran"})
        finally:
            primary.execute_command("ACL", "SETUSER", "default", "+wait")
        assert isinstance(refused.value.__cause__, graph.WriteOutcomeUnknown)
        assert "replica could not be asked" in str(refused.value.__cause__)
        # It ran once, and was not sent again.
        assert graph.ro_query(workspace, "MATCH (n:Note) RETURN n.text") == [["ran"]]
        graph.query(workspace, "CREATE (:Note {text: $text})", {"text": "asked"})  # the next write is answered

    def test_the_nodes_can_be_named_instead(self, on_cluster: LocalCluster, settings: Any) -> None:
        settings.FALKORDB_CLUSTER_NODES = on_cluster.nodes
        settings.FALKORDB_URL = "redis://127.0.0.1:1"  # never asked: the nodes name the cluster
        assert graph.is_cluster()
        graph.ping()

    def test_malformed_nodes_are_refused_in_words(self) -> None:
        with (
            override_settings(FALKORDB_CLUSTER_NODES="10.0.0.5"),
            pytest.raises(graph.GraphUnavailable, match="is not host:port"),
        ):
            graph.ping()


def _calls(node: Any, command: str) -> int:
    return int(node.info("commandstats").get(f"cmdstat_{command}", {}).get("calls", 0))


@dataclass(frozen=True)
class _Named:
    graph_name: str


class ShardingTests:
    def test_twelve_workspaces_spread_over_the_three_shards_and_each_keeps_its_graph(
        self, on_cluster: LocalCluster, make_user: MakeUser
    ) -> None:
        owner = make_user("olivia")
        workspaces = [workspace_services.workspace_create(name=f"Team {n}", creator=owner) for n in range(15)]
        shards = Counter(on_cluster.primary_of(w.graph_name) for w in workspaces)
        assert set(shards) == set(on_cluster.primaries()), shards
        for workspace in workspaces:
            # The graph is on the primary its key's slot names, and nowhere else.
            holder = on_cluster.primary_of(workspace.graph_name)
            for port in on_cluster.primaries():
                names = on_cluster.node(port).execute_command("GRAPH.LIST")
                assert (workspace.graph_name in names) == (port == holder)
            # Indexes were created on it, and are listed from it.
            assert ("Claim", "id", "RANGE") in workspace_graph.index_kinds(workspace=workspace)
        assert {w.graph_name for w in workspaces} <= set(graph.list_graph_names())

    def test_reconcile_finds_and_deletes_orphans_on_every_primary(
        self, on_cluster: LocalCluster, make_user: MakeUser
    ) -> None:
        kept = workspace_services.workspace_create(name="Kept", creator=make_user("olivia"))
        # Three orphans on each primary: names drawn until every primary holds three (nine random names all
        # landed on two primaries about one run in thirteen).
        by_primary: dict[int, list[_Named]] = {}
        while len(by_primary) < 3 or min(map(len, by_primary.values())) < 3:
            named = _Named(f"ws_{uuid.uuid4().hex}")
            by_primary.setdefault(on_cluster.primary_of(named.graph_name), []).append(named)
        orphans = [orphan for names in by_primary.values() for orphan in names[:3]]
        for orphan in orphans:
            graph.query(orphan, "CREATE (:Workspace {revision: 0})")
        gone = {orphan.graph_name for orphan in orphans}
        assert len({on_cluster.primary_of(name) for name in gone}) == 3
        report = workspace_services.graphs_reconcile()
        assert gone <= set(report.orphans) and kept.graph_name not in report.orphans
        report = workspace_services.graphs_reconcile(delete_orphans=True)
        assert gone <= set(report.deleted)
        names = set(graph.list_graph_names())
        assert not gone & names and kept.graph_name in names

    def test_deleting_a_workspace_graph_removes_it_from_its_shard(
        self, on_cluster: LocalCluster, make_user: MakeUser
    ) -> None:
        workspace = workspace_services.workspace_create(name="Short-lived", creator=make_user("olivia"))
        holder = on_cluster.primary_of(workspace.graph_name)
        assert workspace.graph_name in on_cluster.node(holder).execute_command("GRAPH.LIST")
        workspace_graph.graph_drop(workspace=workspace)
        assert workspace.graph_name not in on_cluster.node(holder).execute_command("GRAPH.LIST")
        graph.delete_graph_named(workspace.graph_name)  # deleting what is gone is nothing


class CorrectionOnClusterTests:
    def test_june_to_july_preview_apply_and_the_past_read_back(self, world: World) -> None:
        workspace = world.trio.workspace
        launch, announce, before, after = june_to_july(world)
        then = claims_selectors.claim_get(workspace=workspace, claim_id=world.june, as_of=before)
        assert then is not None and (then.status, then.statement) == ("current", "The launch is in June.")
        now = claims_selectors.claim_get(workspace=workspace, claim_id=world.june, as_of=after)
        assert now is not None and now.status == "superseded"
        decision = agents_selectors.decision_get(workspace=workspace, decision_id=launch, as_of=after)
        assert decision is not None and decision.status == "needs_review" and "July" in (decision.review_reason or "")
        action = agents_selectors.action_get(workspace=workspace, action_id=announce)
        assert action is not None and action.status == "held"
        # A stale revision is refused on the cluster too.
        assert world.apply(world.june, 0, key="key-stale").status_code == 409
