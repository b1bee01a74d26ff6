"""Telling people: the dispatcher's `notify` writes one notification per person and event, in its transaction; a
person marks theirs read."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db import connection
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme

from afterhack.errors import UserError
from afterhack.lists.cursors import MAX_LIMIT
from notifications.models import MAX_NOTICE_CHARS, MAX_REASON_CHARS, MAX_URL_CHARS, Notification
from workspaces.models import Workspace

MAX_IDS = MAX_LIMIT
NOT_IDS = "Give the notifications to mark read as a list of their ids (whole numbers)."


@dataclass(frozen=True)
class Notice:
    """What to tell one person: the event's kind (e.g. "correction.applied"), one sentence, why they are told (e.g.
    "you recorded it") and the path of the page to look at (e.g. "/w/<ws>/decisions/<id>/")."""

    user_id: int
    kind: str
    text: str
    reason: str
    url: str


# One statement: the notices of current members only (someone who left the workspace is told nothing of it), each
# person once per event (the unique constraint: an event told again makes nothing new). RETURNING answers only the
# rows inserted.
INSERT = """
INSERT INTO notifications_notification (user_id, workspace_id, event_id, kind, text, reason, url, created_at)
SELECT n.user_id, %(workspace_id)s, %(event_id)s, n.kind, n.text, n.reason, n.url, %(now)s
FROM unnest(%(user_ids)s::bigint[], %(kinds)s::text[], %(texts)s::text[], %(reasons)s::text[], %(urls)s::text[])
     AS n(user_id, kind, text, reason, url)
WHERE EXISTS (SELECT 1 FROM workspaces_membership m WHERE m.user_id = n.user_id
              AND m.workspace_id = %(workspace_id)s)
ON CONFLICT DO NOTHING
RETURNING id
"""


def notify(*, workspace: Workspace, event_id: int | None, notices: list[Notice]) -> list[int]:
    """Writes the notices of one event of the workspace as notifications, in the caller's transaction, and answers
    the ids of the new ones (for `email_soon` after the commit). A person named twice is told once, by their first
    notice (so list the strongest reason first); a person who is not a member, or was told of this event already,
    gets nothing new."""
    first: dict[int, Notice] = {}
    for notice in notices:
        first.setdefault(notice.user_id, notice)
    if not first:
        return []
    rows = list(first.values())
    params: dict[str, Any] = {
        "workspace_id": workspace.pk, "event_id": event_id, "now": timezone.now(),
        "user_ids": [n.user_id for n in rows], "kinds": [n.kind[:64] for n in rows],
        "texts": [n.text[:MAX_NOTICE_CHARS] for n in rows], "reasons": [n.reason[:MAX_REASON_CHARS] for n in rows],
        "urls": [local_path(n.url) for n in rows],
    }  # fmt: skip
    with connection.cursor() as cursor:
        cursor.execute(INSERT, params)
        return [row[0] for row in cursor.fetchall()]


def local_path(url: str) -> str:
    """A path of this app, or "/": anything else (another host, a scheme, or what a browser reads as one, such as
    "//evil.example" or "/\\evil.example") would send a reader elsewhere."""
    if len(url) > MAX_URL_CHARS or not url.startswith("/"):
        return "/"
    return url if url_has_allowed_host_and_scheme(url, allowed_hosts=set(), require_https=False) else "/"


def mark_read(*, user: Any, ids: object) -> int:
    """Marks the person's notifications with these ids read (others' ids are passed over); answers how many."""
    return Notification.objects.filter(user=user, pk__in=clean_ids(ids), read_at__isnull=True).update(
        read_at=timezone.now()
    )


def clean_ids(ids: object) -> list[int]:
    """Notification ids as given (numbers, or their digits from a form), at most a page of them, or a UserError."""
    if isinstance(ids, (str, bytes)) or not isinstance(ids, Iterable):
        raise UserError(NOT_IDS)
    cleaned = []
    for value in ids:
        if isinstance(value, str) and value.isascii() and value.isdecimal() and len(value) < 19:
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 2**63:
            raise UserError(NOT_IDS)
        cleaned.append(value)
    if len(cleaned) > MAX_IDS:
        raise UserError(f"Mark at most {MAX_IDS} notifications read at a time, or all of them.")
    return cleaned


def mark_all_read(*, user: Any) -> int:
    """Marks every unread notification of the person read; answers how many."""
    return Notification.objects.filter(user=user, read_at__isnull=True).update(read_at=timezone.now())
