"""Corrections' counts for the dashboard (workspaces/registry.py `AttentionPart`): the corrections and those applied
since `$since`, and the suggested corrections and agents' claims open for review, now and as of `$as_of`, as Cypher
subqueries workspaces/graph.py composes into one query."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

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
