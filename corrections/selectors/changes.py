"""The changes of belief recorded between two moments, oldest first (the API's and MCP's `changes`; docs/history.md)."""

from __future__ import annotations

from afterhack import history_graph
from afterhack.errors import UserError
from afterhack.history_graph import CAUSES as CAUSES
from afterhack.history_graph import KINDS as KINDS
from afterhack.history_graph import Change as Change
from afterhack.lists.cursors import Paged, page_of
from workspaces.models import Workspace

# What a change is of and its causes are re-exported (`X as X`), so the API names them without a graph module.


def changes_between(*, workspace: Workspace, start: str = "", end: str = "", limit: int = 200) -> list[Change]:
    """The changes of belief recorded with start <= at < end (ISO 8601 UTC; '' for open), oldest first.

    The first `limit` only: `changes_page` pages through them all."""
    return history_graph.changes(workspace=workspace, start=start, end=end, limit=limit)


def changes_page(
    *, workspace: Workspace, start: str = "", end: str = "", limit: int, cursor: str | None
) -> Paged[Change]:
    """A page of the changes of belief with start <= at < end (moments as afterhack.clock.moment_iso gives them;
    '' for an open end), oldest first; one write's changes (one `at`) by kind, then id. The cursor is the
    (at, kind, id) of the last change given out, for this window only. UserError when start is after end."""
    if start and end and start > end:
        raise UserError("“from” must not be after “to”: the changes listed are those from “from” up to “to”.")
    return page_of(
        scope=f"changes:{workspace.id}:{start}:{end}", cursor=cursor, limit=limit,
        read=lambda after, n: history_graph.changes(
            workspace=workspace, start=start, end=end, limit=n, after=(after[0], after[1], after[2]) if after else None
        ),
        count=lambda: history_graph.changes_count(workspace=workspace, start=start, end=end),
        position=lambda change: [change.at, change.kind, change.id],
    )  # fmt: skip
