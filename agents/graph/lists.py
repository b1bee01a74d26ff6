"""The list pages' queries of decisions, actions and runs (afterhack/lists/spec.py): one query for a page, one for the
count, each a NodeList (afterhack/lists/graph.py).

Each filter's condition is declared once with the list (agents/lists.py) and read here with `where`; every filter
is a $param that is '' when not asked; the ORDER BY is chosen by sort key from the constant
columns below (graph.order_by), never written from a request. What a row shows of its neighbours is read by
pattern comprehensions (no aggregation, so the page keeps its order), and the page is sorted again at the end.
"""

from __future__ import annotations

from typing import Any

from afterhack.graph import HasGraph
from afterhack.lists.filters import Criteria
from afterhack.lists.graph import NodeList, filter_params, where
from agents.graph.actions import ACTION_FIELDS
from agents.graph.decisions import DECISION_FIELDS, DECISION_KIND, KIND_PARAMS, SUPPORT_FIELDS
from agents.graph.runs import RUN_FIELDS
from agents.graph.shapes import Action, Decision, Run
from agents.lists import ACTIONS, DECISIONS, RUNS

DECISION_ROWS_MATCH = (
    "MATCH (d:Decision) WHERE "
    + where(DECISIONS.filters, "status", "author", "from", "to")
    + "AND ($q = '' OR toLower(d.title) CONTAINS $q) "
    + "WITH d, "
    + DECISION_KIND
    + " AS kind WHERE "
    + where(DECISIONS.filters, "kind")
)
DECISION_ROWS = NodeList(
    "d",
    match=DECISION_ROWS_MATCH,
    columns={"created": "d.created_at", "title": "toLower(d.title)", "status": "d.status"},
    read="WITH d, [(s)-[j:SUPPORTS]->(d) | {" + SUPPORT_FIELDS + "}] AS supports, "
    "[(a:Action)-[:DEPENDS_ON]->(d) | a.id] AS action_ids RETURN " + DECISION_FIELDS,
)


def _decision_params(criteria: Criteria) -> dict[str, Any]:
    return {"q": criteria.q.lower(), **filter_params(DECISIONS.filters, criteria), **KIND_PARAMS}


def decision_rows(*, workspace: HasGraph, criteria: Criteria, offset: int, limit: int) -> list[Decision]:
    """One page of the decisions that match the criteria, in its order, each with its supports and actions."""
    params = _decision_params(criteria)
    rows = DECISION_ROWS.page(workspace, criteria=criteria, params=params, offset=offset, limit=limit)
    return [Decision.from_row(row) for row in rows]


def decision_rows_count(*, workspace: HasGraph, criteria: Criteria) -> int:
    """How many decisions match the criteria."""
    return DECISION_ROWS.count(workspace, params=_decision_params(criteria))


ACTION_ROWS_MATCH = (
    "MATCH (a:Action) WHERE "
    + where(ACTIONS.filters, "status", "author", "from", "to")
    + "AND ($q = '' OR toLower(a.title) CONTAINS $q) "
    "WITH a, [(a)-[:DEPENDS_ON]->(x:Decision) | x.id] AS depends_on WHERE " + where(ACTIONS.filters, "decision")
)
ACTION_ROWS = NodeList(
    "a",
    match=ACTION_ROWS_MATCH,
    columns={"created": "a.created_at", "title": "toLower(a.title)", "status": "a.status"},
    read="WITH a, [(a)-[:DEPENDS_ON]->(d:Decision) | [d.id, d.title]] AS pairs "
    "WITH a, [p IN pairs | p[0]] AS decision_ids, [p IN pairs | p[1]] AS titles RETURN " + ACTION_FIELDS,
)


def _action_params(criteria: Criteria) -> dict[str, Any]:
    return {"q": criteria.q.lower(), **filter_params(ACTIONS.filters, criteria)}


def action_rows(*, workspace: HasGraph, criteria: Criteria, offset: int, limit: int) -> list[Action]:
    """One page of the actions that match the criteria, in its order, each with the decisions it depends on."""
    params = _action_params(criteria)
    return [
        Action.from_row(row)
        for row in ACTION_ROWS.page(workspace, criteria=criteria, params=params, offset=offset, limit=limit)
    ]


def action_rows_count(*, workspace: HasGraph, criteria: Criteria) -> int:
    """How many actions match the criteria."""
    return ACTION_ROWS.count(workspace, params=_action_params(criteria))


RUN_ROWS_MATCH = "MATCH (r:AgentRun) WHERE ($q = '' OR toLower(r.question) CONTAINS $q) AND " + where(
    RUNS.filters, "status", "origin", "person", "from", "to"
)
# A run as a list shows it: without its trajectory, with the decisions it recorded.
RUN_ROWS = NodeList(
    "r",
    match=RUN_ROWS_MATCH,
    columns={"created": "r.created_at", "question": "toLower(r.question)", "status": "r.status"},
    read="WITH r, '{}' AS trajectory, [(r)-[:PRODUCED]->(d:Decision) | d.id] AS decision_ids, [] AS action_ids "
    "RETURN " + RUN_FIELDS,
)


def _run_params(criteria: Criteria) -> dict[str, Any]:
    return {"q": criteria.q.lower(), **filter_params(RUNS.filters, criteria)}


def run_rows(*, workspace: HasGraph, criteria: Criteria, offset: int, limit: int) -> list[Run]:
    """One page of the runs that match the criteria, in its order (without their trajectories)."""
    params = _run_params(criteria)
    return [
        Run.from_row(row)
        for row in RUN_ROWS.page(workspace, criteria=criteria, params=params, offset=offset, limit=limit)
    ]


def run_rows_count(*, workspace: HasGraph, criteria: Criteria) -> int:
    """How many runs match the criteria."""
    return RUN_ROWS.count(workspace, params=_run_params(criteria))
