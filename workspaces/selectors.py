"""Reads of workspaces, memberships and the audit trail."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

from django.db.models import Q, QuerySet

from afterhack import graph
from afterhack.clock import stale_before
from afterhack.pagination import Paged, page_of
from workspaces import graph as workspace_graph
from workspaces.models import AuditEvent, Membership, Workspace

logger = logging.getLogger("workspaces")


def memberships_for_user(*, user: Any) -> QuerySet[Membership]:
    """The user's memberships, with their workspaces, by workspace name."""
    return Membership.objects.filter(user=user).select_related("workspace").order_by("workspace__name")


def members_of(*, workspace: Workspace) -> QuerySet[Membership]:
    """The workspace's memberships with their users, by username."""
    return Membership.objects.filter(workspace=workspace).select_related("user").order_by("user__username")


def memberships_page(*, user: Any, limit: int, cursor: str | None) -> Paged[Membership]:
    """A page of the user's memberships, by workspace name (then id)."""

    def read(after: Any, n: int) -> list[Membership]:
        rows = memberships_for_user(user=user).order_by("workspace__name", "workspace_id")
        if after is not None:
            name, workspace_id = after
            rows = rows.filter(Q(workspace__name__gt=name) | Q(workspace__name=name, workspace_id__gt=workspace_id))
        return list(rows[:n])

    return page_of(
        scope=f"workspaces:{user.pk}", cursor=cursor, limit=limit, read=read,
        count=lambda: memberships_for_user(user=user).count(),
        position=lambda membership: [membership.workspace.name, str(membership.workspace_id)],
    )  # fmt: skip


def members_page(*, workspace: Workspace, limit: int, cursor: str | None) -> Paged[Membership]:
    """A page of the workspace's members, by username."""

    def read(after: Any, n: int) -> list[Membership]:
        rows = members_of(workspace=workspace)
        return list((rows.filter(user__username__gt=after[0]) if after is not None else rows)[:n])

    return page_of(
        scope=f"members:{workspace.id}", cursor=cursor, limit=limit, read=read,
        count=lambda: members_of(workspace=workspace).count(),
        position=lambda membership: [membership.user.get_username()],
    )  # fmt: skip


def recent_events(*, workspace: Workspace, limit: int = 20) -> QuerySet[AuditEvent]:
    """The workspace's newest audit events."""
    return AuditEvent.objects.filter(workspace=workspace).order_by("-created_at", "-id")[:limit]


def claim_events(*, workspace: Workspace, claim_id: str) -> QuerySet[AuditEvent]:
    """The workspace's audit events about this claim, oldest first."""
    return AuditEvent.objects.filter(workspace=workspace, payload__claim_id=claim_id).order_by("created_at", "id")


def action_events(*, workspace: Workspace, action_id: str) -> QuerySet[AuditEvent]:
    """The workspace's audit events about this action, oldest first: its creation, its marks, and the
    corrections, retractions and new versions that held it."""
    about = Q(payload__action_id=action_id) | Q(payload__affected__actions_held__contains=[action_id])
    return AuditEvent.objects.filter(about, workspace=workspace).order_by("created_at", "id")


def workspaces_by_name() -> QuerySet[Workspace]:
    """Every workspace, by name (for staff auditors)."""
    return Workspace.objects.order_by("name")


def workspace_get(*, workspace_id: UUID | str) -> Workspace | None:
    """The workspace with this id, or None (for staff auditors, whatever their membership)."""
    return Workspace.objects.filter(id=workspace_id).first()


# The dashboard's "recent corrections" are those of the last this many days.
RECENT_DAYS = 7


@dataclass(frozen=True)
class Dashboard:
    members: int
    attention: workspace_graph.Attention
    # The day the recent corrections start from (YYYY-MM-DD, UTC), as the history's "From" filter takes it.
    recent_since: str
    graph_error: str | None


def recent_since() -> str:
    """The first day (UTC) whose corrections count as recent."""
    return (datetime.now(UTC).date() - timedelta(days=RECENT_DAYS - 1)).isoformat()


def attention(*, workspace: Workspace) -> workspace_graph.Attention:
    """What needs attention in the workspace and how much its graph holds, in one graph query."""
    return workspace_graph.attention(workspace=workspace, corrections_since=recent_since(), stale_before=stale_before())


def dashboard(*, workspace: Workspace) -> Dashboard:
    """What needs attention, the graph's totals and the member count for the workspace dashboard."""
    members = Membership.objects.filter(workspace=workspace).count()
    try:
        counts = attention(workspace=workspace)
    except graph.GraphError:
        logger.exception("dashboard of %s: graph unreadable", workspace.id)
        words = "The graph database is not answering right now; the counts below are unknown."
        return Dashboard(members, workspace_graph.Attention(), recent_since(), words)
    return Dashboard(members, counts, recent_since(), None)
