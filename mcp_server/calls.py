"""How an MCP tool call runs (issue #11): who is calling (the transport sets `PRINCIPAL`), the MCP session the call
belongs to, and its answer, the API's error in words when it fails.

Every tool takes an optional `session` and every result carries one: the protocol keeps no state between calls,
so the session is a handle the server mints (in PostgreSQL) and the agent passes back. Each call runs in a worker
thread of the SDK, never on the event loop, and hands its database connection back when it ends.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.db import close_old_connections, connections
from mcp_types import CallToolResult, TextContent

from afterhack.errors import INTERNAL_ERROR, GraphError, answered_as
from afterhack.outages import outage_detail, store_outage
from agents.services import mcp as agents_services
from mcp_server import services
from mcp_server.models import McpSession, Transport

logger = logging.getLogger("mcp_server")

UNAUTHORIZED = "Send a valid API token as 'Authorization: Bearer <token>'."


@dataclass
class Principal:
    """Who is calling: the token's user (HTTP) or the command's user (stdio, with its one default session)."""

    user_id: int
    transport: Transport
    # Over stdio, the handle of the process's one session, used by every call that names none; replaced by a new
    # session when it expires (the object is shared by every call of the process, hence mutable and locked).
    default_handle: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)


# Set for each HTTP request by the transport, and once for the stdio process; worker threads inherit it.
PRINCIPAL: ContextVar[Principal | None] = ContextVar("afterhack_mcp_principal", default=None)


class Refused(Exception):
    """A call answered as the API's error: a code and a sentence."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code, self.detail = code, detail


@dataclass(frozen=True)
class Caller:
    user: Any
    session: McpSession
    handle: str

    def run(self) -> agents_services.McpRun:
        who = self.user.get_username()
        label = f"MCP session {self.session.label} of {who} ({self.session.get_transport_display()})"
        return agents_services.McpRun(str(self.session.id), label, self.user)


def _caller(handle: str | None) -> Caller:
    principal = PRINCIPAL.get()
    user = get_user_model().objects.filter(pk=principal.user_id, is_active=True).first() if principal else None
    if principal is None or user is None:
        raise Refused("unauthorized", UNAUTHORIZED)
    try:
        if handle:
            return Caller(user, services.session_resume(user=user, handle=handle), handle)
    except services.SessionRefused as refused:
        raise Refused("not_found", str(refused)) from refused
    if principal.default_handle:
        return _default_caller(user, principal)
    session, handle = services.session_open(user=user, transport=principal.transport)
    return Caller(user, session, handle)


def _default_caller(user: Any, principal: Principal) -> Caller:
    """The stdio process's one session; when it has expired, a new one that becomes the default (leaving
    `session` out must never keep answering that the session ended)."""
    with principal.lock:
        try:
            session = services.session_resume(user=user, handle=principal.default_handle)
        except services.SessionRefused:
            session, principal.default_handle = services.session_open(user=user, transport=principal.transport)
        return Caller(user, session, principal.default_handle)


def refusal(error: Exception) -> tuple[str, str]:
    """The API's error code and sentence for what a tool raised."""
    if isinstance(error, Refused):
        return error.code, error.detail
    if (answered := answered_as(error)) is not None:
        return answered[1], answered[2]
    if (store := store_outage(error)) is not None:
        return "unavailable", outage_detail(store, error)
    log = logger.error if isinstance(error, GraphError) else logger.exception
    log("an MCP tool failed", exc_info=error)
    return "internal_error", INTERNAL_ERROR


def tool_result(body: dict[str, Any], *, error: bool = False) -> CallToolResult:
    text = TextContent(type="text", text=json.dumps(body, ensure_ascii=False))
    return CallToolResult(content=[text], structured_content=None if error else body, is_error=error)


def answer(session: str | None, work: Callable[[Caller], dict[str, Any]]) -> CallToolResult:
    """Runs one call for its caller and session: its answer with the session's handle, or the API's error."""
    close_old_connections()
    caller = None
    try:
        caller = _caller(session)
        return tool_result({**work(caller), "session": caller.handle})
    except Exception as error:  # noqa: BLE001 - every failure is answered in words, never a crash of the session
        code, detail = refusal(error)
        return tool_result(
            {"error": code, "detail": detail, **({"session": caller.handle} if caller else {})}, error=True
        )
    finally:
        # The SDK's worker threads stay alive between calls: none may keep a connection from the pool.
        connections.close_all()


def record_after_write(**step: Any) -> None:
    """Records the step of a write that has already happened (and been audited). Best effort: if the graph fails
    now, the agent still learns that its source or claim exists (answering an error would make it retry into a
    duplicate); the run only misses that step, which the log says."""
    try:
        agents_services.mcp_record(**step)
    except Exception:  # the write stands; only its trajectory step is lost
        logger.warning("an MCP step was not recorded after its write succeeded", exc_info=True)
