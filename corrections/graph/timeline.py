"""The reads of the timeline and diff pages (docs/history.md, "The timeline and the diff"): the recorded changes of
belief a page at a time with what they are of, and what changed between two moments, in a few bounded queries.

Read-only. The item a change is of is joined through `(x:Change)-[:OF]->(n)`; its words are `n.statement` (a claim)
or `n.title` (a decision, an action). Every query is a constant; sort keys pick one of them, never request text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from afterhack import graph
from afterhack.cypher import word
from afterhack.graph import HasGraph
from afterhack.history_graph import CHANGE_LABEL, CHANGE_OF, ChangeKind
from afterhack.lists.filters import Criteria
from afterhack.lists.graph import filter_params, where
from corrections.lists import TIMELINE

# -- the timeline ------------------------------------------------------------------------------------------------

CHANGE_FIELDS = (
    "x {.at, .kind, .id, .from_status, .to_status, .cause, .cause_id, .actor, migrated: coalesce(x.migrated, false), "
    ".follow_up, title: coalesce(n.statement, n.title, ''), question: n.question}"
)
# The timeline's filters, each declared once with its condition and $params (corrections/lists.py): what it is of
# (kind), what caused it, a person and [since, until); and the search, words of the item's statement or title.
TIMELINE_WHERE = (
    "MATCH (x:" + CHANGE_LABEL + ")-[:" + CHANGE_OF + "]->(n) "
    "WHERE " + where(TIMELINE.filters, "kind", "cause", "actor", "since", "until")
    + "AND ($q = '' OR toLower(coalesce(n.statement, n.title, '')) CONTAINS $q) "
)  # fmt: skip
TIMELINE_COUNT = TIMELINE_WHERE + "RETURN count(x)"
# One query per direction. Ties (one write changes many nodes at one moment) read cause first, in either
# direction: the claim, then the decisions resting on it, then their actions; then by id.
CAUSE_FIRST = f"CASE x.kind WHEN {word(ChangeKind.CLAIM)} THEN 0 WHEN {word(ChangeKind.DECISION)} THEN 1 ELSE 2 END"
TIMELINE_PAGES = {
    descending: TIMELINE_WHERE + "WITH x, n ORDER BY x.at" + direction + ", " + CAUSE_FIRST + ", x.id"
    + " SKIP $offset LIMIT $limit RETURN " + CHANGE_FIELDS + " AS change"
    for descending, direction in ((True, " DESC"), (False, " ASC"))
}  # fmt: skip


def timeline_params(criteria: Criteria, actors: Sequence[str]) -> dict[str, Any]:
    """The $params of the timeline's filters and search for what it was asked, with `actors`: the usernames whose
    full name holds the person filter's words (looked up in PostgreSQL by the selector)."""
    return {**filter_params(TIMELINE.filters, criteria), "actors": list(actors), "q": criteria.q.lower()}


def timeline_count(*, workspace: HasGraph, criteria: Criteria, actors: Sequence[str]) -> int:
    rows = graph.ro_query(workspace, TIMELINE_COUNT, timeline_params(criteria, actors))
    return int(rows[0][0]) if rows else 0


def timeline_page(
    *, workspace: HasGraph, criteria: Criteria, actors: Sequence[str], offset: int, limit: int
) -> list[dict[str, Any]]:
    """One page of the changes the criteria select, by when (newest first unless asked; then kind and id), with the
    item's words."""
    params = {**timeline_params(criteria, actors), "offset": offset, "limit": limit}
    return graph.ro_records(workspace, TIMELINE_PAGES[criteria.descending], params)


# -- what the changes name as their cause ------------------------------------------------------------------------

# The things causes name, each by its id (an indexed lookup per label): corrections (with who or what found the
# suggestion one accepted), retracted sources, new versions (with their source), decisions (a revision's new
# decision; a re-justified or dismissed one).
CAUSES_NAMED = (
    "MATCH (x:Correction) WHERE x.id IN $corrections "
    "OPTIONAL MATCH (sg:Suggestion {id: x.suggestion_id}) "
    "RETURN {id: x.id, title: x.statement, reason: x.reason, source_id: null, version: null, "
    "found_by: sg.found_by, rule_kind: sg.rule_kind, flagged_by: sg.created_by} AS named "
    "UNION ALL MATCH (s:Source) WHERE s.id IN $sources "
    "RETURN {id: s.id, title: s.title, reason: null, source_id: s.id, version: null} AS named "
    "UNION ALL MATCH (s:Source)-[:HAS_VERSION]->(v:SourceVersion) WHERE v.id IN $versions "
    "RETURN {id: v.id, title: s.title, reason: null, source_id: s.id, version: v.version} AS named "
    "UNION ALL MATCH (d:Decision) WHERE d.id IN $decisions "
    "RETURN {id: d.id, title: d.title, reason: null, source_id: null, version: null} AS named"
)


def causes_named(
    *, workspace: HasGraph, corrections: list[str], sources: list[str], versions: list[str], decisions: list[str]
) -> dict[str, dict[str, Any]]:
    """What each cause id names (title, and a version's source and number), by id; one query, none when empty."""
    if not (corrections or sources or versions or decisions):
        return {}
    params = {"corrections": corrections, "sources": sources, "versions": versions, "decisions": decisions}
    return {row["id"]: row for row in graph.ro_records(workspace, CAUSES_NAMED, params)}


# -- the diff between two moments --------------------------------------------------------------------------------

# Each node changed in [start, end) that existed at start (created before it; a node without created_at is older
# than the history), with the first change in the window (its from_status: the status at start) and the last (its
# to_status: the status at end). One node changes at most once per write, so `at` orders a node's changes.
# A scan of the changes (no range index on a time: workspaces/graph.py EXTRA_RANGE_INDEXES says why).
DIFF_NODES = (
    "MATCH (x:" + CHANGE_LABEL + ") WHERE x.at >= $start AND x.at < $end "
    "MATCH (x)-[:" + CHANGE_OF + "]->(n) WHERE coalesce(n.created_at, '') < $start "
    "WITH n, collect(x {.at, .kind, .from_status, .to_status, .cause, .cause_id, .actor, .follow_up, "
    "migrated: coalesce(x.migrated, false)}) AS cs "
    "WITH n, cs, reduce(f = head(cs), c IN cs | CASE WHEN c.at < f.at THEN c ELSE f END) AS first, "
    "reduce(l = head(cs), c IN cs | CASE WHEN c.at > l.at THEN c ELSE l END) AS last "
)
# How many nodes went from which status to which (before null: the history began in the window).
DIFF_COUNTS = (
    DIFF_NODES + "WITH first.kind AS kind, first.from_status AS before, last.to_status AS after, count(n) AS moved "
    "RETURN {kind: kind, before: before, after: after, count: moved} AS moved"
)
# The changed nodes themselves, the most recently changed first, at most $limit; each with its changes (at most
# $per_node, the latest) and its words.
DIFF_CHANGED = (
    DIFF_NODES + "WITH n, cs, first, last ORDER BY last.at DESC, n.id LIMIT $limit "
    "RETURN {id: n.id, kind: first.kind, title: coalesce(n.statement, n.title, ''), before: first.from_status, "
    "after: last.to_status, changes: cs} AS node"
)
# What was created in [start, end), by label (a label scan: no range index on a time, see above), counted, and the
# newest $limit of each with its status at end: the from_status of its first change at or after end, else its
# present status (a change before end is before now too).
CREATED_LABELS = (
    ("Claim", "claim", "n.statement"),
    ("Decision", "decision", "n.title"),
    ("Action", "action", "n.title"),
)
DIFF_CREATED_COUNT = " UNION ALL ".join(
    "MATCH (n:" + label + ") WHERE n.created_at >= $start AND n.created_at < $end "
    "WITH count(n) AS made RETURN {kind: '" + kind + "', count: made} AS made"
    for label, kind, _ in CREATED_LABELS
)
DIFF_CREATED = " UNION ALL ".join(
    "MATCH (n:" + label + ") WHERE n.created_at >= $start AND n.created_at < $end "
    "WITH n ORDER BY n.created_at DESC, n.id LIMIT $limit "
    "OPTIONAL MATCH (y:" + CHANGE_LABEL + ")-[:" + CHANGE_OF + "]->(n) WHERE y.at >= $end "
    "WITH n, collect(y) AS later "
    "WITH n, reduce(f = head(later), c IN later | CASE WHEN c.at < f.at THEN c ELSE f END) AS next "
    "RETURN {id: n.id, kind: '" + kind + "', title: coalesce(" + words + ", ''), created_at: n.created_at, "
    "created_by: coalesce(n.created_by, n.extractor), origin: n.origin, run_id: n.run_id, "
    # a migration's baseline (from_status null) answers with the status it records (afterhack/history.py)
    "status: CASE WHEN next IS NULL THEN n.status ELSE coalesce(next.from_status, next.to_status) END} AS made"
    for label, kind, words in CREATED_LABELS
)


def diff_counts(*, workspace: HasGraph, start: str, end: str) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """How many nodes moved from which status to which in [start, end), and how many of each kind were made."""
    params = {"start": start, "end": end}
    moved = graph.ro_records(workspace, DIFF_COUNTS, params)
    made = {row["kind"]: int(row["count"]) for row in graph.ro_records(workspace, DIFF_CREATED_COUNT, params)}
    return moved, made


def diff_nodes(
    *, workspace: HasGraph, start: str, end: str, limit: int
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The nodes changed in [start, end) (the latest `limit`), and those made in it (the newest `limit` a kind)."""
    params = {"start": start, "end": end, "limit": limit}
    return graph.ro_records(workspace, DIFF_CHANGED, params), graph.ro_records(workspace, DIFF_CREATED, params)
