"""MCP clients of the official SDK against the real WSGI app (config.wsgi.application, /mcp included) served
by a real threaded HTTP server on the real stores, and over stdio (`manage.py mcp --user`)."""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import anyio
import httpx2
import pytest
from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from claims.services import claims as claims_services
from claims.services import sources as sources_services
from tests.conftest import Trio
from workspaces.services import tokens as token_services

ROOT = Path(__file__).resolve().parents[2]


class QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def mcp_url(transactional_db: None) -> Iterator[str]:
    """The URL of /mcp on a threaded WSGI server running the app as gunicorn runs it."""
    from config.wsgi import application

    server = ThreadedWSGIServer(("127.0.0.1", 0), QuietHandler, allow_reuse_address=False)
    server.daemon_threads = True
    server.set_app(application)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/mcp"
    finally:
        server.shutdown()
        server.server_close()


@dataclass
class Answer:
    """A tool's result as the client got it: its JSON, and whether it is an error."""

    body: dict[str, Any]
    is_error: bool

    def __getitem__(self, key: str) -> Any:
        return self.body[key]


def answer_of(result: Any) -> Answer:
    return Answer(json.loads(result.content[0].text), bool(result.is_error))


@dataclass
class Agent:
    """An MCP client that keeps one session: it passes back the `session` every result gives it."""

    connect: Any
    session: str | None = None
    seen: list[Answer] = field(default_factory=list)
    # The protocol version the client and the server agreed on.
    protocol: str = ""

    def call(self, tool: str, /, **arguments: Any) -> Answer:
        if self.session is not None and "session" not in arguments:
            arguments["session"] = self.session
        got = self.calls([(tool, arguments)])[0]
        self.session = got.body.get("session", self.session)
        return got

    def calls(self, calls: list[tuple[str, dict[str, Any]]]) -> list[Answer]:
        """The calls, one after another, over one connection of the client."""

        async def run() -> list[Answer]:
            async with self.connect() as client:
                self.protocol = client.protocol_version
                return [answer_of(await client.call_tool(tool, arguments)) for tool, arguments in calls]

        # In a thread of its own: the browser tests' Playwright keeps an event loop running in this one.
        with ThreadPoolExecutor(max_workers=1) as thread:
            answers = thread.submit(anyio.run, run).result()
        self.seen += answers
        return answers


def http_agent(url: str, token: str | None, *, mode: str = "auto") -> Agent:
    def connect() -> AbstractAsyncContextManager[Client]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        http = httpx2.AsyncClient(headers=headers, timeout=60)
        return Client(streamable_http_client(url, http_client=http), mode=mode)

    return Agent(connect)


def store_env() -> dict[str, str]:
    """The environment of a `manage.py` child process on this test run's stores and test database."""
    from django.conf import settings
    from django.db import connection

    database = urlparse(settings.SERVICES.database_url)._replace(path="/" + connection.settings_dict["NAME"])
    return {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "DATABASE_URL": database.geturl(),
            "FALKORDB_URL": settings.FALKORDB_URL, "AFTERHACK_DB_POOL_SIZE": "2"}  # fmt: skip


def stdio_parameters(username: str) -> StdioServerParameters:
    env = store_env()
    return StdioServerParameters(
        command=sys.executable, args=["manage.py", "mcp", "--user", username], env=env, cwd=str(ROOT)
    )


def stdio_agent(username: str) -> Agent:
    return Agent(lambda: Client(stdio_parameters(username)))


PLAN = """Launch plan

The product launch is in June. Ana owns the launch checklist.

The launch budget is 40,000 EUR. The office moves to Berlin in July."""


@dataclass
class Launch:
    """The launch plan in the trio's workspace, with its claims, and each member's API token."""

    trio: Trio
    source_id: str
    june: str
    ana: str
    budget: str
    berlin: str
    tokens: dict[str, str]

    @property
    def ws(self) -> str:
        return str(self.trio.workspace.id)


def _claim(trio: Trio, source_id: str, quote: str) -> str:
    return claims_services.claim_add(
        workspace=trio.workspace, source_id=source_id, statement=quote + ".", evidence_quote=quote, actor=trio.reviewer
    ).id


@pytest.fixture
def launch(trio: Trio, mcp_url: str) -> Launch:
    source = sources_services.source_add(workspace=trio.workspace, title="Launch plan", text=PLAN, actor=trio.reviewer)
    tokens = {
        name: token_services.token_issue(user=getattr(trio, name))[1]
        for name in ("owner", "reviewer", "viewer", "outsider")
    }
    return Launch(
        trio, source.id,
        june=_claim(trio, source.id, "The product launch is in June"),
        ana=_claim(trio, source.id, "Ana owns the launch checklist"),
        budget=_claim(trio, source.id, "The launch budget is 40,000 EUR"),
        berlin=_claim(trio, source.id, "The office moves to Berlin in July"),
        tokens=tokens,
    )  # fmt: skip
