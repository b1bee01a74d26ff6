"""Agents' counts of what needs attention and of what a workspace holds (workspaces/registry.py `AttentionPart`):
decisions that lost their support, unanswered questions, held actions, and the totals, now and as of a moment, as
Cypher subqueries workspaces/graph.py composes into one query, and how their rows read.

A decision is an unanswered question by the one rule of agents/graph/decisions.py `DECISION_KIND` (which the review page
reads too): its `kind`, or, on a graph written before decisions stored one, an agent's decision with the no-answer
title that nothing supports."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from afterhack.cypher import word
from afterhack.history_graph import ChangeCause, ChangeKind
from agents.graph.decisions import DECISION_KIND, KIND_PARAMS
from agents.statuses import ActionStatus, DecisionKind, DecisionStatus

UNANSWERED = "(" + DECISION_KIND + ") = $unanswered"

DECISIONS = (
    """
OPTIONAL MATCH (d:Decision)
WITH d, d.status = $needs_review AND d.dismissed_at IS NULL AS open, """
    + UNANSWERED
    + """ AS unanswered
RETURN count(d) AS decisions, sum(CASE WHEN open AND NOT unanswered THEN 1 ELSE 0 END) AS lost_support,
       sum(CASE WHEN open AND unanswered THEN 1 ELSE 0 END) AS unanswered
"""
)
ACTIONS = (
    "OPTIONAL MATCH (a:Action) RETURN count(a) AS actions, sum(CASE WHEN a.status = $held THEN 1 ELSE 0 END) AS held"
)
COLUMNS = ("decisions", "lost_support", "unanswered", "actions", "held")

# As of $as_of (docs/history.md, "Reading the past"): the decisions and actions made by then, by their present
# status (and for decisions whether they are open and unanswered), moved to their status then by the changes since.
DECISION_OPEN = "d.status = $needs_review AND (d.dismissed_at IS NULL OR d.dismissed_at > $as_of)"
ACTIONS_THEN = """
MATCH (a:Action) WHERE coalesce(a.created_at, '') <= $as_of
WITH a.status AS status, count(a) AS n RETURN collect([status, n]) AS actions
"""
DECISIONS_THEN = (
    """
MATCH (d:Decision) WHERE coalesce(d.created_at, '') <= $as_of
WITH d.status AS status, """
    + DECISION_OPEN
    + " AS open, "
    + UNANSWERED
    + """ AS unanswered, count(d) AS n
RETURN collect([status, open, unanswered, n]) AS decisions
"""
)
THEN_COLUMNS = ("actions", "decisions")
# What a changed node (`d`, its first change since `first`) says besides its status then, for a decision.
CHANGED = (
    "open_now: first.kind = " + word(ChangeKind.DECISION) + " AND " + DECISION_OPEN + ", "
    "dismissed_then: CASE WHEN first.cause = " + word(ChangeCause.MIGRATION) + " THEN d.dismissed_at "
    "ELSE first.from_dismissed_at END, "
    "unanswered: first.kind = " + word(ChangeKind.DECISION) + " AND " + UNANSWERED
)


def attention_params() -> dict[str, Any]:
    """The statuses and kind the counts name."""
    return {
        "needs_review": DecisionStatus.NEEDS_REVIEW, "unanswered": DecisionKind.UNANSWERED, "held": ActionStatus.HELD,
        **KIND_PARAMS,
    }  # fmt: skip


def agents_then(row: Mapping[str, Any], changed: list[Mapping[str, Any]], as_of: str) -> dict[str, Any]:
    """The decisions and actions by status at the moment, and the open decisions then (lost support, unanswered),
    from the as-of row and the nodes changed since."""
    counts: dict[str, Counter[str]] = {ChangeKind.DECISION: Counter(), ChangeKind.ACTION: Counter()}
    for status, n in row["actions"] or []:
        counts[ChangeKind.ACTION][status] += n
    open_counts: Counter[bool] = Counter()  # open decisions, by whether they are unanswered questions
    for status, is_open, unanswered, n in row["decisions"] or []:
        counts[ChangeKind.DECISION][status] += n
        open_counts[bool(unanswered)] += n if is_open else 0
    for node in changed:
        if node["kind"] not in counts:
            continue
        # Moved from its present count to its count then.
        counts[node["kind"]][node["now"]] -= 1
        counts[node["kind"]][node["then"]] += 1
        if node["kind"] == ChangeKind.DECISION:
            dismissed = node["dismissed_then"]
            open_then = node["then"] == DecisionStatus.NEEDS_REVIEW and (not dismissed or dismissed > as_of)
            open_counts[bool(node["unanswered"])] += int(open_then) - int(bool(node["open_now"]))
    decisions = {str(s): counts[ChangeKind.DECISION][s] for s in DecisionStatus}
    actions = {str(s): counts[ChangeKind.ACTION][s] for s in ActionStatus}
    return {
        "lost_support": open_counts[False], "unanswered": open_counts[True],
        "decisions": decisions, "decisions_total": sum(decisions.values()),
        "actions": actions, "actions_total": sum(actions.values()), "held": actions.get(ActionStatus.HELD, 0),
    }  # fmt: skip
