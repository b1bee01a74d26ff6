"""Corrections' counts for the dashboard (workspaces/registry.py `AttentionPart`): the corrections and those applied
since `$since`, and the suggested corrections and agents' claims open for review, now and as of `$as_of`, as Cypher
subqueries workspaces/graph.py composes into one query."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from afterhack.history_graph import ChangeKind
from agents.statuses import ActionStatus, FollowUp

CORRECTIONS = """
OPTIONAL MATCH (x:Correction)
RETURN count(x) AS corrections, sum(CASE WHEN x.applied_at >= $since THEN 1 ELSE 0 END) AS corrections_recent
"""
COLUMNS = ("corrections", "corrections_recent")

CORRECTIONS_THEN = """
OPTIONAL MATCH (x:Correction) WHERE x.applied_at <= $as_of
RETURN count(x) AS corrections, sum(CASE WHEN x.applied_at >= $since THEN 1 ELSE 0 END) AS corrections_recent
"""


def corrections_then(row: Mapping[str, Any], changed: list[Mapping[str, Any]], as_of: str) -> dict[str, int]:
    """The corrections applied by the moment, and those of the days before it."""
    return {"corrections": int(row["corrections"] or 0), "corrections_recent": int(row["corrections_recent"] or 0)}


# Open suggestions: suggested corrections (contradictions) and agents' claims waiting for approval, counted apart (the
# review queue lists them in two sections). A suggestion's status is written with the moment it changed
# (`decided_at`: accepted, turned down or obsolete; an agent's claim approved or rejected), so the count then needs no
# history: made by then and not yet decided then.
SUGGESTED = """
OPTIONAL MATCH (x:Suggestion) WHERE x.status = $suggestion_open
RETURN sum(CASE WHEN x.kind = $suggestion_contradiction THEN 1 ELSE 0 END) AS suggested,
       sum(CASE WHEN x.kind = $suggestion_agent_claim THEN 1 ELSE 0 END) AS awaiting_approval
"""
SUGGESTED_COLUMNS = ("suggested", "awaiting_approval")

SUGGESTED_THEN = """
OPTIONAL MATCH (x:Suggestion) WHERE x.created_at <= $as_of AND (x.decided_at IS NULL OR x.decided_at > $as_of)
RETURN sum(CASE WHEN x.kind = $suggestion_contradiction THEN 1 ELSE 0 END) AS suggested,
       sum(CASE WHEN x.kind = $suggestion_agent_claim THEN 1 ELSE 0 END) AS awaiting_approval
"""


def suggested_then(row: Mapping[str, Any], changed: list[Mapping[str, Any]], as_of: str) -> dict[str, int]:
    """The suggestions that were open at the moment: suggested corrections, and agents' claims waiting then."""
    return {"suggested": int(row["suggested"] or 0), "awaiting_approval": int(row["awaiting_approval"] or 0)}


# Done actions whose follow-up is needed (the review queue's "Already acted on"). As of a moment: those made by then
# counted by their present state, then each changed since moved to its state then (its first change since keeps the
# follow-up state it left; a done action changes nothing else, done being final).
FOLLOW_UPS = """
OPTIONAL MATCH (a:Action) WHERE a.status = $follow_up_action_done AND a.follow_up = $follow_up_needed
RETURN count(a) AS follow_ups_needed
"""
FOLLOW_UPS_COLUMNS = ("follow_ups_needed",)
FOLLOW_UPS_THEN = """
OPTIONAL MATCH (a:Action) WHERE coalesce(a.created_at, '') <= $as_of AND a.status = $follow_up_action_done
  AND a.follow_up = $follow_up_needed
RETURN count(a) AS follow_ups_needed
"""
FOLLOW_UPS_CHANGED = (
    "follow_up_now: d.follow_up, follow_up_then: CASE WHEN first.follow_up IS NULL THEN d.follow_up "
    "ELSE first.from_follow_up END"
)


def follow_ups_params() -> dict[str, str]:
    """The words the follow-up counts name."""
    return {"follow_up_action_done": str(ActionStatus.DONE), "follow_up_needed": str(FollowUp.NEEDED)}


def follow_ups_then(row: Mapping[str, Any], changed: list[Mapping[str, Any]], as_of: str) -> dict[str, int]:
    """The done actions whose follow-up was needed at the moment."""
    needed, done = FollowUp.NEEDED, ActionStatus.DONE
    count = int(row["follow_ups_needed"] or 0)
    for node in changed:
        if node["kind"] != ChangeKind.ACTION:
            continue
        count -= int(node["now"] == done and node.get("follow_up_now") == needed)
        count += int(node["then"] == done and node.get("follow_up_then") == needed)
    return {"follow_ups_needed": count}
