"""The decision picker: decisions found by their title or question, shown with where they come from."""

from __future__ import annotations

from afterhack.holds import status_holds
from afterhack.ids import storable
from afterhack.picker import PICK_LIMIT, Picker, PickItem, picker_of
from afterhack.text import MAX_SEARCH_CHARS
from agents.graph import decisions as decisions_graph
from agents.graph.shapes import Decision
from agents.selectors.decisions import decisions_get
from agents.statuses import DecisionKind, Origin
from claims.selectors import search as search_selectors
from workspaces.models import Workspace


def pick_item(decision: Decision) -> PickItem:
    """A decision as the pickers show it: where it comes from in words."""
    if decision.kind == DecisionKind.UNANSWERED:
        origin = f"the agent could not answer “{decision.question or 'a question'}”"
    elif decision.origin == Origin.AGENT:
        origin = f"the agent's answer to “{decision.question}”" if decision.question else "the agent's answer"
    else:
        origin = f"by {decision.created_by}" if decision.created_by else "by a reviewer"
    usable = status_holds(decision=True, status=decision.status)
    return PickItem(decision.id, decision.title, decision.status, origin, decision.created_at, usable)


def decision_items(*, workspace: Workspace, decision_ids: list[str]) -> list[PickItem]:
    """These decisions as the pickers show them (those that exist, in order)."""
    return [pick_item(d) for d in decisions_get(workspace=workspace, decision_ids=decision_ids)]


def decision_finds(*, workspace: Workspace, query: str, limit: int = PICK_LIMIT) -> list[PickItem]:
    """The decisions whose title or question has the query or its words (the newest for an empty one)."""
    query = " ".join(storable(query).split())[:MAX_SEARCH_CHARS]
    words = search_selectors.content_words(query)
    ids = decisions_graph.decision_find(workspace=workspace, phrase=query.lower(), words=words, limit=limit)
    return decision_items(workspace=workspace, decision_ids=ids)


def decision_picker(
    *, workspace: Workspace, field: str, query: str = "", chosen: list[str] | tuple[str, ...] = (), **shown: object
) -> Picker:
    """A decision picker (`agents:pick` answers its searches) with its results for `query` and the `chosen` ones."""
    return picker_of(
        find=lambda q: decision_finds(workspace=workspace, query=q),
        get=lambda ids: decision_items(workspace=workspace, decision_ids=ids),
        query=query, chosen=chosen, endpoint="agents:pick", field=field, noun="decision",
        **{"key": field, "label": "Find decisions", **shown},
    )  # fmt: skip
