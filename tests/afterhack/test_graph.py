"""The FalkorDB gateway: parameters, one error type in words, read timeouts, graphs per workspace."""

from __future__ import annotations

import logging
import os
import threading
import time

import pytest
from django.test import override_settings

from afterhack import graph
from tests.conftest import Trio
from tests.waiting import poll, wait_until
from workspaces.graph import index_kinds, is_time
from workspaces.services.workspaces import graph_ensure

pytestmark = pytest.mark.django_db


class GatewayTests:
    def test_it_passes_parameters_without_interpreting_them(self, trio: Trio) -> None:
        hostile = "x'}) DETACH DELETE n //"
        graph.query(trio.workspace, "CREATE (:Source {id: $id, title: $title})", {"id": "s1", "title": hostile})
        assert graph.ro_query(trio.workspace, "MATCH (s:Source {id: $id}) RETURN s.title", {"id": "s1"}) == [[hostile]]

    def test_it_maps_a_refused_query_to_graph_error_in_words(self, trio: Trio) -> None:
        with pytest.raises(graph.GraphError, match="The graph refused a query"):
            graph.query(trio.workspace, "MATCH (n RETURN n")

    def test_it_refuses_writes_in_a_read_only_query(self, trio: Trio) -> None:
        with pytest.raises(graph.GraphError):
            graph.ro_query(trio.workspace, "CREATE (:Source {id: 'sneaky'})")
        assert graph.ro_query(trio.workspace, "MATCH (s:Source) RETURN count(s)") == [[0]]

    def test_it_stops_a_read_that_runs_too_long(self, trio: Trio) -> None:
        slow = "UNWIND range(1, 5000000) AS i WITH i WHERE i % 7 = 123456789 RETURN count(i)"
        with (
            override_settings(GRAPH_READ_TIMEOUT_MS=5),
            pytest.raises(graph.GraphError, match=r"(?i)timed out|timeout"),
        ):
            graph.ro_query(trio.workspace, slow)

    def test_it_maps_an_unreachable_server_to_graph_error(self, trio: Trio, tmp_path: object) -> None:
        with (
            override_settings(FALKORDB_URL=f"unix://{tmp_path}/gone.sock"),
            pytest.raises(graph.GraphError, match="could not be reached"),
        ):
            graph.ro_query(trio.workspace, "RETURN 1")

    def test_it_logs_the_time_each_query_took(self, trio: Trio, caplog: pytest.LogCaptureFixture) -> None:
        with caplog.at_level(logging.DEBUG, logger="afterhack.graph"):
            graph.ro_query(trio.workspace, "RETURN 1")
        assert any(trio.workspace.graph_name in r.getMessage() and "ms" in r.getMessage() for r in caplog.records)


EMBEDDED_BROKER = not os.environ.get("FALKORDB_URL") and not os.environ.get("CELERY_BROKER_URL")


@pytest.mark.skipif(not EMBEDDED_BROKER, reason="checks the embedded default broker; a broker URL is set")
class BrokerTests:
    @pytest.mark.filterwarnings("ignore:task_always_eager has no effect on send_task")
    def test_it_queues_celery_messages_in_another_db_of_the_same_server(self) -> None:
        import redis
        from django.conf import settings

        from config.celery import app

        assert settings.CELERY_BROKER_URL.endswith("virtual_host=1")
        app.send_task("afterhack.no_such_task_for_this_test", queue="ah-test-queue")
        server = redis.Redis(unix_socket_path=settings.FALKORDB_URL.removeprefix("unix://").split("?")[0], db=1)
        try:
            assert server.llen("ah-test-queue") == 1
            assert not redis.Redis(unix_socket_path=server.connection_pool.connection_kwargs["path"], db=0).exists(
                "ah-test-queue"
            )
        finally:
            server.delete("ah-test-queue")


def kill_client_running(command: str) -> bool:
    """Breaks the connection of whichever client is running `command` on the real server, as a crash would.

    Running, not merely last run: an idle pooled connection keeps its last command's name in CLIENT LIST, so the
    client must also be blocked (flag "b": FalkorDB runs a query in its thread pool with its client blocked)."""
    admin = graph.client().connection

    def killed() -> bool:
        for entry in admin.client_list():
            if entry.get("cmd", "").lower() == command and "b" in entry.get("flags", ""):
                admin.client_kill_filter(_id=entry["id"])
                return True
        return False

    return poll(killed, seconds=10, every=0.005) is not None


class ReconnectTests:
    def test_a_write_whose_connection_breaks_mid_answer_is_never_sent_again(self, trio: Trio) -> None:
        outcome: dict[str, object] = {}

        def write() -> None:
            try:
                graph.query(trio.workspace, "UNWIND range(1, 3000000) AS i CREATE (:Bulk {i: i})")
            except graph.GraphError as error:
                outcome["error"] = error

        writer = threading.Thread(target=write)
        writer.start()
        assert kill_client_running("graph.query")
        writer.join(timeout=120)
        error = outcome.get("error")
        assert isinstance(error, graph.GraphUnavailable), error
        assert "before the write was confirmed" in str(error)
        # The server finishes (or drops) the one write it got; a resend would have doubled it.
        written = graph.ro_query(trio.workspace, "MATCH (b:Bulk) RETURN count(b)")[0][0]
        assert written in (0, 3_000_000)

    def test_a_read_whose_connection_breaks_is_answered_on_a_new_one(self, trio: Trio) -> None:
        slow = "UNWIND range(1, 20000000) AS i WITH i WHERE i % 7 = 123456789 RETURN count(i)"
        answers: list[object] = []
        reader = threading.Thread(target=lambda: answers.append(graph.ro_query(trio.workspace, slow)))
        reader.start()
        assert kill_client_running("graph.ro_query")
        reader.join(timeout=120)
        assert answers == [[[0]]]

    def test_connections_left_from_a_server_that_restarted_are_replaced(self, trio: Trio) -> None:
        graph.ro_query(trio.workspace, "RETURN 1")
        admin = graph.client().connection
        # Every connection but the one asking is cut, as a server restart would.
        for entry in admin.client_list():
            if entry.get("cmd", "").lower() != "client|list":
                admin.client_kill_filter(_id=entry["id"])
        # The behaviour under test: the pool PINGs a connection idle for over a second (health_check_interval) before
        # using it, so the time must pass for the left-over connections to be found and replaced.
        time.sleep(1.1)
        graph.query(trio.workspace, "CREATE (:Source {id: 'after-restart'})")
        assert graph.ro_query(trio.workspace, "MATCH (s:Source {id: 'after-restart'}) RETURN count(s)") == [[1]]


class StringRangeIndexTests:
    """FalkorDB 4.22's range index drops a `<` or `<=` bound on a string when the value is a parameter, and answers
    every node (FalkorDB issue #2239). Times are strings here, and windows of time are read with `<`: so no time
    is range-indexed (workspaces/graph.py `extra_range_indexes`, `is_time`)."""

    def test_the_upstream_bug_is_still_there(self, trio: Trio) -> None:
        # When this fails, FalkorDB answers correctly: times may be indexed again (see workspaces/graph.py `is_time`).
        target = trio.workspace
        graph.query(target, "UNWIND ['2026-01-01', '2026-02-01', '2026-03-01'] AS t CREATE (:Probe {at: t})")
        below = "MATCH (p:Probe) WHERE p.at < $before RETURN count(p)"
        assert graph.ro_query(target, below, {"before": "2026-02-15"}) == [[2]]
        graph.query(target, "CREATE INDEX FOR (p:Probe) ON (p.at)")
        # FalkorDB fills an index made over existing nodes in the background, and plans without it until then (the
        # right answer, by chance): on a busy machine the query came first.
        read = "CALL db.indexes() YIELD label, status WHERE label = 'Probe' RETURN status"
        wait_until(lambda: graph.ro_query(target, read) == [["OPERATIONAL"]], seconds=30, what="the Probe index")
        assert graph.ro_query(target, below, {"before": "2026-02-15"}) == [[3]], "FalkorDB fixed #2239"

    def test_no_time_is_range_indexed_in_a_workspace_graph(self, trio: Trio) -> None:
        ranged = {(label, prop) for label, prop, kind in index_kinds(workspace=trio.workspace) if kind == "RANGE"}
        assert ("Change", "id") in ranged  # the as-of reads' lookup stays indexed
        assert not [(label, prop) for label, prop in ranged if is_time(prop)]

    def test_a_time_an_earlier_build_indexed_is_dropped_when_the_graph_is_ensured(self, trio: Trio) -> None:
        graph.query(trio.workspace, "CREATE INDEX FOR (n:Change) ON (n.at)")
        graph.query(trio.workspace, "CREATE INDEX FOR (n:Claim) ON (n.created_at)")
        assert ("Change", "at", "RANGE") in index_kinds(workspace=trio.workspace)
        graph_ensure(workspace=trio.workspace)
        kinds = index_kinds(workspace=trio.workspace)
        assert ("Change", "at", "RANGE") not in kinds and ("Claim", "created_at", "RANGE") not in kinds
        assert ("Change", "id", "RANGE") in kinds
