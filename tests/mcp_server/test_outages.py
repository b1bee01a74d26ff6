"""A store that cannot answer is the API's `unavailable`, naming it, for MCP calls too."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
import redis
from django.db import connection
from django.test import override_settings
from psycopg_pool import PoolTimeout

from tests.conftest import api_for
from tests.mcp_server.conftest import Launch, http_agent


@contextlib.contextmanager
def pool_taken() -> Iterator[None]:
    """Every pooled PostgreSQL connection of this process that can be had taken (a short wait for one), and
    given back afterwards."""
    connection.close()
    pool = connection.pool  # type: ignore[attr-defined]  # the PostgreSQL backend's
    pool.open()
    taken: list[Any] = []
    timeout, pool.timeout = pool.timeout, 0.2
    try:
        with contextlib.suppress(PoolTimeout):
            while len(taken) < pool.max_size:
                taken.append(pool.getconn(timeout=1))
        yield
    finally:
        pool.timeout = timeout
        for held in taken:
            pool.putconn(held)


class McpOutageTests:
    def test_a_tool_names_falkordb_when_it_cannot_be_reached(
        self, launch: Launch, mcp_url: str, tmp_path: Path
    ) -> None:
        agent = http_agent(mcp_url, launch.tokens["reviewer"])
        with override_settings(FALKORDB_URL=f"unix://{tmp_path}/gone.sock"):
            refused = agent.call("search_claims", workspace_id=launch.ws, query="launch")
        assert refused.is_error and refused["error"] == "unavailable"
        assert "FalkorDB (the graph database) is not answering" in refused["detail"]
        assert "sock" not in refused["detail"]
        assert not agent.call("search_claims", workspace_id=launch.ws, query="launch").is_error

    def test_the_token_check_names_postgres_when_no_connection_can_be_had(self, launch: Launch, mcp_url: str) -> None:
        call = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
        headers = {"Authorization": f"Bearer {launch.tokens['reviewer']}"}
        with pool_taken():
            answer = httpx2.post(mcp_url, json=call, headers=headers, timeout=30)
        assert answer.status_code == 503 and answer.headers["Retry-After"] == "5"
        assert answer.json()["error"] == "unavailable" and "PostgreSQL" in answer.json()["detail"]

    def test_a_write_that_succeeded_answers_success_though_its_step_could_not_be_recorded(
        self, launch: Launch, mcp_url: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
    ) -> None:
        agent = http_agent(mcp_url, launch.tokens["reviewer"])
        agent.call("list_workspaces")

        def graph_dropped(**step: Any) -> int:
            # The graph went away after the write's own query: FalkorDB's client raises this.
            raise redis.exceptions.ConnectionError("Connection closed by server.")

        monkeypatch.setattr("agents.graph.mcp.mcp_step", graph_dropped)
        added = agent.call("add_source", workspace_id=launch.ws, title="Notes", text="Ana signs off on Friday.")
        proposed = agent.call("propose_claim", workspace_id=launch.ws, source_id=added["source_id"],
                              statement="Ana signs.", evidence_quote="Ana signs off on Friday")  # fmt: skip
        assert not added.is_error and not proposed.is_error and proposed["status"] == "created"
        api = api_for(launch.trio.viewer)
        assert api.get(f"/workspaces/{launch.ws}/sources").json()["count"] == 2
        assert api.get(f"/workspaces/{launch.ws}/claims/{proposed['claim_id']}").status_code == 200
        assert "an MCP step was not recorded after its write succeeded" in caplog.text
