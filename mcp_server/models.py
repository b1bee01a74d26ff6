"""MCP sessions: the handle an outside agent passes back with every tool call, kept server-side (its hash only),
so that any web worker serves any call of the session."""

from __future__ import annotations

import uuid
from datetime import timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone

# A session not used for this long is over: its handle is refused and a call without one starts a new session.
SESSION_IDLE = timedelta(days=7)


class Transport(models.TextChoices):
    HTTP = "http", "streamable HTTP"
    STDIO = "stdio", "stdio"


class McpSession(models.Model):
    """One MCP session of a user: what it searched and retrieved is its runs' trajectories (one run a workspace)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    key_hash = models.CharField(max_length=64, unique=True, editable=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="mcp_sessions")
    transport = models.CharField(max_length=8, choices=Transport.choices)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = "MCP session"

    def __str__(self) -> str:
        return f"MCP session {self.label} of {self.user}"

    @property
    def label(self) -> str:
        """How pages name the session: the start of its id (never of its handle)."""
        return str(self.id)[:8]

    @property
    def is_expired(self) -> bool:
        return self.last_used_at < timezone.now() - SESSION_IDLE
