"""The review queue's reads: the decisions waiting for a reviewer."""

from __future__ import annotations

from afterhack import graph
from afterhack.cypher import word
from afterhack.graph import HasGraph
from agents.graph.decisions import DECISION_ACTIONS, DECISION_FIELDS, DECISION_KIND, DECISION_SUPPORTS, KIND_PARAMS
from agents.graph.shapes import Decision
from agents.statuses import DecisionKind, DecisionStatus

# Decisions waiting for a reviewer, of one side of the queue: questions the agent could not answer,
# or decisions that lost their support. The most recently flagged first.
REVIEW_LIST = (
    f"MATCH (d:Decision) WHERE d.status = {word(DecisionStatus.NEEDS_REVIEW)} AND d.dismissed_at IS NULL "
    "WITH d, " + DECISION_KIND + f" AS kind WHERE (kind = {word(DecisionKind.UNANSWERED)}) = $unanswered "
    "WITH d ORDER BY coalesce(d.status_changed_at, d.created_at) DESC, d.id DESC LIMIT $limit "
    + DECISION_SUPPORTS
    + DECISION_ACTIONS
    + "RETURN "
    + DECISION_FIELDS
    + " ORDER BY coalesce(decision.status_changed_at, decision.created_at) DESC, decision.id DESC"
)


def review_list(*, workspace: HasGraph, unanswered: bool, limit: int) -> list[Decision]:
    """At most `limit` decisions needing review and not dismissed: the unanswered questions, or the others."""
    params = {"unanswered": unanswered, "limit": limit, **KIND_PARAMS}
    return [Decision.from_row(row) for row in graph.ro_records(workspace, REVIEW_LIST, params)]
