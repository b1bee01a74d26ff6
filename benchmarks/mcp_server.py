"""Benchmark of the MCP server (run by `make bench`): one tool call beside the same REST call, over real HTTP."""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import anyio
import httpx2
from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client

from afterhack import graph
from benchmarks.claims import Figure
from config.demo import demo_fill
from workspaces.services import tokens as token_services
from workspaces.services import workspaces as workspace_services

QUERY = "When is the product launch?"
CALLS = 200


class QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def served() -> Iterator[str]:
    """The app as `config.wsgi` serves it (/mcp included), on a threaded HTTP server of this process."""
    from config.wsgi import application

    server = ThreadedWSGIServer(("127.0.0.1", 0), QuietHandler, allow_reuse_address=False)
    server.daemon_threads = True
    server.set_app(application)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _timed(call: Callable[[], Any], calls: int) -> list[float]:
    call()  # warm up: the MCP endpoint starts its event loop on its first request
    times = []
    for _ in range(calls):
        started = time.perf_counter()
        call()
        times.append((time.perf_counter() - started) * 1000)
    return times


async def _timed_async(call: Callable[[], Awaitable[Any]], calls: int) -> list[float]:
    await call()
    times = []
    for _ in range(calls):
        started = time.perf_counter()
        await call()
        times.append((time.perf_counter() - started) * 1000)
    return times


def _rest(base: str, token: str, ws: str, calls: int) -> list[float]:
    with httpx2.Client(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http:
        url = f"{base}/api/v1/workspaces/{ws}/claims"

        def search() -> None:
            http.get(url, params={"q": QUERY, "limit": 10}).raise_for_status()

        return _timed(search, calls)


def _mcp(base: str, token: str, ws: str, calls: int) -> list[float]:
    async def run() -> list[float]:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60)
        async with Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client:
            first = await client.call_tool("search_claims", {"workspace_id": ws, "query": QUERY})
            arguments = {"workspace_id": ws, "query": QUERY, "session": (first.structured_content or {})["session"]}

            async def search() -> None:
                assert not (await client.call_tool("search_claims", arguments)).is_error

            return await _timed_async(search, calls)

    return anyio.run(run)


def _percentile(times: list[float], share: int) -> float:
    return statistics.quantiles(times, n=100)[share - 1]


def bench_mcp_overhead(user: Any, calls: int = CALLS) -> list[Figure]:
    """The same search on the demo workspace, `calls` times each: GET …/claims?q= and MCP's search_claims."""
    workspace = workspace_services.workspace_create(name="Benchmark MCP", creator=user)
    demo_fill(workspace, user)
    _, token = token_services.token_issue(user=user, name="bench mcp")
    try:
        with served() as base:
            rest = _rest(base, token, str(workspace.id), calls)
            mcp = _mcp(base, token, str(workspace.id), calls)
    finally:
        graph.graph_delete(workspace)
    overhead = statistics.median(mcp) - statistics.median(rest)
    return [
        Figure("search through the REST API (GET …/claims?q=, 10 results)", statistics.median(rest), "ms",
               f"p95 {_percentile(rest, 95):.1f} ms; {calls} calls, one keep-alive connection, threaded server"),
        Figure("the same search as an MCP tool call (search_claims, official client)", statistics.median(mcp), "ms",
               f"p95 {_percentile(mcp, 95):.1f} ms; {overhead:+.1f} ms beside REST at the median (session check, "
               "source titles, the trajectory step written to the graph, JSON-RPC)"),
    ]  # fmt: skip
