"""Reads of the corrections app for the JSON API: the workspace's corrections, a page at a time."""

from __future__ import annotations

from afterhack.pagination import Paged, page_of
from corrections import graph as corrections_graph
from workspaces.models import Workspace


def corrections_page(*, workspace: Workspace, limit: int, cursor: str | None) -> Paged[corrections_graph.Correction]:
    """A page of the workspace's corrections, newest first."""
    return page_of(
        scope=f"corrections:{workspace.id}", cursor=cursor, limit=limit,
        read=lambda after, n: corrections_graph.correction_list(workspace=workspace, limit=n, after=after),
        count=lambda: corrections_graph.correction_count(workspace=workspace),
        position=lambda correction: [correction.applied_at, correction.id],
    )  # fmt: skip
