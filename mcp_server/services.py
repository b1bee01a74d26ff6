"""Writes of the MCP server: opening and resuming a user's MCP session (its handle is shown once; only its hash is
kept), audited like the API's tokens."""

from __future__ import annotations

import secrets
from typing import Any

from django.db import transaction
from django.utils import timezone

from mcp_server.models import SESSION_IDLE, McpSession, Transport
from workspaces.models import hash_token
from workspaces.services.audit import record_event

HANDLE_PREFIX = "ahmcp_"
LEAVE_IT_OUT = "leave out “session” to start a new one"


class SessionRefused(Exception):
    """A session handle that is no session of this user (or no longer one); the message says why, in words."""


def session_open(*, user: Any, transport: Transport) -> tuple[McpSession, str]:
    """A new session of `user` and its handle, which the tools hand back and which is never stored."""
    handle = HANDLE_PREFIX + secrets.token_urlsafe(32)
    with transaction.atomic():
        session = McpSession.objects.create(key_hash=hash_token(handle), user=user, transport=transport)
        record_event(
            actor=user, workspace=None, verb="mcp.session_opened", target=session.label,
            payload={"session_id": str(session.id), "transport": transport},
        )  # fmt: skip
    return session, handle


def session_resume(*, user: Any, handle: str) -> McpSession:
    """The session of `user` this handle names, marked as used now; SessionRefused if there is none (another
    user's handle is refused exactly like an unknown one) or it ended."""
    session = McpSession.objects.filter(key_hash=hash_token(handle), user=user).first()
    if session is None:
        raise SessionRefused(
            f"There is no MCP session of yours with this handle: pass back the “session” a tool result gave you, "
            f"or {LEAVE_IT_OUT}."
        )
    if session.is_expired:
        raise SessionRefused(
            f"This MCP session ended: it was not used for {SESSION_IDLE.days} days. Its runs stay on the runs page; "
            f"{LEAVE_IT_OUT}."
        )
    McpSession.objects.filter(pk=session.pk).update(last_used_at=timezone.now())
    return session
