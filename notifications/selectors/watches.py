"""Who watches what."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection
from typing import Any

from notifications.models import Watch
from workspaces.models import Membership, Workspace


def watchers(*, workspace: Workspace, node_ids: Collection[str]) -> dict[int, set[str]]:
    """The people watching any of these nodes of the workspace, each with the ids among them they watch: only
    current members (one query)."""
    found: dict[int, set[str]] = defaultdict(set)
    members = Membership.objects.filter(workspace=workspace).values("user_id")
    rows = Watch.objects.filter(workspace=workspace, node_id__in=list(node_ids), user_id__in=members)
    for user_id, node_id in rows.values_list("user_id", "node_id"):
        found[user_id].add(node_id)
    return dict(found)


def is_watching(*, user: Any, workspace: Workspace, node_id: str) -> bool:
    """Whether the person watches this node of the workspace."""
    return Watch.objects.filter(user=user, workspace=workspace, node_id=node_id).exists()
