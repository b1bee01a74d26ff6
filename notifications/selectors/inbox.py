"""A person's notifications as the inbox, the bell and the API read them: only those of workspaces the person is
still a member of (someone who left is shown nothing of it), newest first."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Exists, OuterRef, Q, QuerySet

from afterhack.lists.cursors import Paged, page_of
from afterhack.lists.filters import Criteria, Filter, FilterKind
from afterhack.lists.orm import filtered
from afterhack.lists.spec import Listing, ListSpec
from notifications.models import EmailPreference, Notification
from notifications.statuses import EmailMode
from workspaces.models import Membership

# The bell shows the count up to this, and "99+" beyond: counting stops there, so a count is cheap however many.
BELL_CAP = 100
UNREAD = "unread"

INBOX = ListSpec(
    name="inbox",
    noun=("notification", "notifications"),
    sorts={"when": "When"},
    default_sort="-when",
    filters={
        "show": Filter(
            "Status", kind=FilterKind.CHOICE, choices=((UNREAD, "Unread"),), blank="All",
            orm=lambda value: Q(read_at__isnull=True),
        ),
    },
)  # fmt: skip


def visible(*, user: Any) -> QuerySet[Notification]:
    """The person's notifications of the workspaces they are still a member of."""
    member = Membership.objects.filter(user_id=OuterRef("user_id"), workspace_id=OuterRef("workspace_id"))
    return Notification.objects.filter(Exists(member), user=user)


def unread_count(*, user: Any) -> int:
    """How many of the person's visible notifications are unread, counted up to BELL_CAP (one indexed query)."""
    return visible(user=user).filter(read_at__isnull=True)[:BELL_CAP].count()


def bell_words(count: int) -> str:
    """The bell's count as shown: nothing for none, "99+" from BELL_CAP on."""
    if count <= 0:
        return ""
    return f"{BELL_CAP - 1}+" if count >= BELL_CAP else str(count)


def inbox_listing(params: Any, *, user: Any, path: str) -> Listing[Notification]:
    """The page of the person's notifications the query string asks for (`?show=unread`, `?page=`)."""

    def rows(criteria: Criteria) -> QuerySet[Notification]:
        return filtered(visible(user=user), INBOX, criteria).order_by("-created_at", "-id")

    return INBOX.listing(
        params, path=path,
        read=lambda criteria, offset, limit: list(rows(criteria).select_related("workspace")[offset : offset + limit]),
        count=lambda criteria: rows(criteria).count(),
    )  # fmt: skip


def inbox_page(*, user: Any, unread: bool, limit: int, cursor: str | None) -> Paged[Notification]:
    """A page of the person's notifications for the API, newest first, only the unread ones when asked."""
    rows = visible(user=user).order_by("-created_at", "-id")
    if unread:
        rows = rows.filter(read_at__isnull=True)

    def read(after: Any, n: int) -> list[Notification]:
        if after is None:
            return list(rows[:n])
        at, pk = datetime.fromisoformat(after[0]), after[1]
        return list(rows.filter(Q(created_at__lt=at) | Q(created_at=at, id__lt=pk))[:n])

    return page_of(
        scope=f"notifications:{user.pk}:{UNREAD if unread else ''}", cursor=cursor, limit=limit, read=read,
        count=rows.count, position=lambda notification: [notification.created_at.isoformat(), notification.pk],
    )  # fmt: skip


def email_mode(*, user: Any) -> EmailMode:
    """How the person wants their notifications emailed (instant until they choose)."""
    mode = EmailPreference.objects.filter(user=user).values_list("mode", flat=True).first()
    return EmailMode(mode) if mode else EmailMode.INSTANT
