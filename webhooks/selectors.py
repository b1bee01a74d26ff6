"""Reads of the webhooks app: a workspace's endpoints, and a page of an endpoint's delivery attempts, newest first."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Q, QuerySet

from afterhack.lists.cursors import Paged, page_of
from webhooks.models import Attempt, Endpoint
from workspaces.models import Workspace


def endpoints_of(*, workspace: Workspace) -> QuerySet[Endpoint]:
    """The workspace's endpoints, oldest first."""
    return Endpoint.objects.filter(workspace=workspace).order_by("created_at", "id")


def endpoints_page(*, workspace: Workspace, limit: int, cursor: str | None) -> Paged[Endpoint]:
    """A page of the workspace's endpoints, oldest first."""

    def read(after: Any, n: int) -> list[Endpoint]:
        rows = endpoints_of(workspace=workspace)
        return list((rows.filter(id__gt=after[0]) if after is not None else rows).order_by("id")[:n])

    return page_of(
        scope=f"webhooks:{workspace.id}", cursor=cursor, limit=limit, read=read,
        count=lambda: endpoints_of(workspace=workspace).count(), position=lambda endpoint: [endpoint.pk],
    )  # fmt: skip


def attempts_of(*, endpoint: Endpoint) -> QuerySet[Attempt]:
    """Every attempt to the endpoint, newest first, with its message."""
    return Attempt.objects.filter(message__endpoint=endpoint).select_related("message").order_by("-at", "-id")


def attempts_page(*, endpoint: Endpoint, limit: int, cursor: str | None) -> Paged[Attempt]:
    """A page of the endpoint's attempts, newest first."""

    def read(after: Any, n: int) -> list[Attempt]:
        rows = attempts_of(endpoint=endpoint)
        if after is not None:
            at, attempt_id = datetime.fromisoformat(after[0]), after[1]
            rows = rows.filter(Q(at__lt=at) | Q(at=at, id__lt=attempt_id))
        return list(rows[:n])

    return page_of(
        scope=f"webhook-deliveries:{endpoint.pk}", cursor=cursor, limit=limit, read=read,
        count=lambda: attempts_of(endpoint=endpoint).count(), position=lambda a: [a.at.isoformat(), a.pk],
    )  # fmt: skip
