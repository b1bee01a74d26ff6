"""The list pages' rows of decisions, actions and runs (afterhack/lists/spec.py): one page as the criteria ask, and
how many match."""

from __future__ import annotations

from afterhack.lists.filters import Criteria
from agents.graph import lists as lists_graph
from agents.graph.shapes import Action, Decision, Run
from workspaces.models import Workspace


def decision_rows(*, workspace: Workspace, criteria: Criteria, offset: int, limit: int) -> list[Decision]:
    """One page of the decisions list, filtered, sorted and paged as the criteria ask."""
    return lists_graph.decision_rows(workspace=workspace, criteria=criteria, offset=offset, limit=limit)


def decision_rows_count(*, workspace: Workspace, criteria: Criteria) -> int:
    """How many decisions the decisions list has with these filters."""
    return lists_graph.decision_rows_count(workspace=workspace, criteria=criteria)


def action_rows(*, workspace: Workspace, criteria: Criteria, offset: int, limit: int) -> list[Action]:
    """One page of the actions list, filtered, sorted and paged as the criteria ask."""
    return lists_graph.action_rows(workspace=workspace, criteria=criteria, offset=offset, limit=limit)


def action_rows_count(*, workspace: Workspace, criteria: Criteria) -> int:
    """How many actions the actions list has with these filters."""
    return lists_graph.action_rows_count(workspace=workspace, criteria=criteria)


def run_rows(*, workspace: Workspace, criteria: Criteria, offset: int, limit: int) -> list[Run]:
    """One page of the runs list, filtered, sorted and paged as the criteria ask."""
    return lists_graph.run_rows(workspace=workspace, criteria=criteria, offset=offset, limit=limit)


def run_rows_count(*, workspace: Workspace, criteria: Criteria) -> int:
    """How many runs the runs list has with these filters."""
    return lists_graph.run_rows_count(workspace=workspace, criteria=criteria)
