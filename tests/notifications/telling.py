"""Telling people in tests as the dispatcher does: an audit event, then `notify` with one notice per person."""

from __future__ import annotations

from typing import Any

from notifications.services.notices import Notice, notify
from tests.conftest import Trio
from workspaces.models import AuditEvent
from workspaces.services.audit import record_event


def an_event(trio: Trio, target: str = "The launch is in July.") -> AuditEvent:
    return record_event(actor=trio.reviewer, workspace=trio.workspace, verb="claim.added", target=target)


def notice(user: Any, text: str = "The launch date you relied on was corrected.", reason: str = "you recorded it",
           url: str = "/w/") -> Notice:  # fmt: skip
    return Notice(user_id=user.pk, kind="correction.applied", text=text, reason=reason, url=url)


def tell(trio: Trio, *users: Any, text: str = "The launch date you relied on was corrected.") -> list[int]:
    """One new event told to each of `users`; the ids of the notifications made."""
    return notify(workspace=trio.workspace, event_id=an_event(trio).pk, notices=[notice(u, text) for u in users])
