"""Reads of workspaces, memberships and the audit trail."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.db.models import Q, QuerySet

from afterhack import graph
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


def member(*, workspace: Workspace, membership_id: int) -> Membership | None:
    """One membership of the workspace with its user, or None."""
    return members_of(workspace=workspace).filter(pk=membership_id).first()


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


def workspaces_by_name() -> QuerySet[Workspace]:
    """Every workspace, by name (for staff auditors)."""
    return Workspace.objects.order_by("name")


def workspace_get(*, workspace_id: UUID | str) -> Workspace | None:
    """The workspace with this id, or None (for staff auditors, whatever their membership)."""
    return Workspace.objects.filter(id=workspace_id).first()


@dataclass(frozen=True)
class Dashboard:
    members: int
    revision: int | None
    counts: dict[str, int]
    graph_error: str | None


def dashboard(*, workspace: Workspace) -> Dashboard:
    """Member count and the graph's node counts for the workspace dashboard."""
    members = Membership.objects.filter(workspace=workspace).count()
    try:
        revision = workspace_graph.graph_revision(workspace=workspace, workspace_id=str(workspace.id))
        counts = workspace_graph.node_counts(workspace=workspace)
    except graph.GraphError:
        logger.exception("dashboard of %s: graph unreadable", workspace.id)
        words = "The graph database is not answering right now; the counts below are unknown."
        return Dashboard(members, None, dict.fromkeys(workspace_graph.COUNTED_LABELS, 0), words)
    return Dashboard(members, revision, counts, None)
