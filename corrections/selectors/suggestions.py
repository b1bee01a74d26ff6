"""Reads of suggested corrections: one, and the API's keyset pages (newest first, by status and kind)."""

from __future__ import annotations

from afterhack.errors import NotFound, found
from afterhack.lists.cursors import Paged, workspace_page
from corrections.graph import suggestions as suggestions_graph
from corrections.graph.suggestions import Evidence as Evidence
from corrections.graph.suggestions import Suggestion as Suggestion
from workspaces.models import Workspace

# The shapes these reads return are re-exported above (`X as X`), so pages and API modules name no graph module.


class SuggestionNotFound(NotFound):
    thing = "suggestion"


def suggestion_get(*, workspace: Workspace, suggestion_id: str) -> Suggestion | None:
    return suggestions_graph.suggestion_get(workspace=workspace, suggestion_id=suggestion_id)


def suggestion_required(*, workspace: Workspace, suggestion_id: str) -> Suggestion:
    """The suggestion, or SuggestionNotFound (404) when there is none with this id in the workspace."""
    return found(suggestion_get(workspace=workspace, suggestion_id=suggestion_id), SuggestionNotFound())


def suggestions_page(
    *, workspace: Workspace, status: str, kind: str, limit: int, cursor: str | None
) -> Paged[Suggestion]:
    """A page of the workspace's suggestions of this status and kind ('' for any), newest first."""
    return workspace_page(
        "suggestions", workspace=workspace, status=status, kind=kind, cursor=cursor, limit=limit,
        read=suggestions_graph.suggestion_list, count=suggestions_graph.suggestion_count,
    )  # fmt: skip


def suggestion_count(*, workspace: Workspace, status: str = "", kind: str = "") -> int:
    return suggestions_graph.suggestion_count(workspace=workspace, status=status, kind=kind)
