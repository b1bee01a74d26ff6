"""Reads of the workspace's corrections: one (in full, or as staff who may not read its workspace read it), many
by id, and the history's pages (filtered, sorted, counted)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from afterhack import graph
from afterhack.graph import HasGraph
from afterhack.ids import parse_id
from afterhack.lists.graph import after_params, keyset


@dataclass(frozen=True)
class Correction:
    id: str
    claim_id: str
    replacement_claim_id: str
    statement: str
    reason: str
    actor: str
    applied_at: str
    revision: int
    affected: dict[str, list[str]]
    old_statement: str | None = None
    old_quote: str | None = None
    old_source_id: str | None = None
    replacement_status: str | None = None

    @classmethod
    def from_map(cls, row: dict[str, Any]) -> Correction:
        return cls(
            id=row["id"], claim_id=row["claim_id"], replacement_claim_id=row["replacement_claim_id"],
            statement=row["statement"], reason=row["reason"], actor=row["actor"], applied_at=row["applied_at"],
            revision=int(row["revision"]), affected=json.loads(row["affected"] or "{}"),
            old_statement=row.get("old_statement"), old_quote=row.get("old_quote"),
            old_source_id=row.get("old_source_id"), replacement_status=row.get("replacement_status"),
        )  # fmt: skip


CORRECTION_FIELDS = """x {.id, .claim_id, .replacement_claim_id, .statement, .reason, .actor, .applied_at, .revision,
     .affected, old_statement: old.statement, old_quote: old.evidence_quote, old_source_id: old.source_id,
     replacement_status: new.status}"""

CORRECTION_GET = (
    "MATCH (x:Correction {id: $correction_id})-[:CORRECTS]->(old:Claim) "
    "OPTIONAL MATCH (new:Claim {id: x.replacement_claim_id}) "
    "RETURN " + CORRECTION_FIELDS
)


@dataclass(frozen=True)
class CorrectionOutline:
    """A correction as staff who may not read its workspace read it (workspaces/disclosure.py): from, to, why, by
    whom and when, the ids of what it touched, the statuses both claims have now, and whether the corrected claim
    quoted a source and the correction cited a passage of one (neither the quotes nor the sources)."""

    id: str
    claim_id: str
    replacement_claim_id: str
    old_statement: str
    statement: str
    reason: str
    actor: str
    applied_at: str
    affected: dict[str, list[str]]
    old_status: str
    old_quoted: bool
    replacement_status: str | None
    cites_passage: bool

    @classmethod
    def from_map(cls, row: dict[str, Any]) -> CorrectionOutline:
        return cls(**{**row, "affected": json.loads(row["affected"] or "{}")})


# Field by field: nothing else of either claim leaves the graph (their quotes, the passage cited, the sources).
CORRECTION_OUTLINE_GET = (
    "MATCH (x:Correction {id: $correction_id})-[:CORRECTS]->(old:Claim) "
    "OPTIONAL MATCH (new:Claim {id: x.replacement_claim_id}) "
    "RETURN x {.id, .claim_id, .replacement_claim_id, .statement, .reason, .actor, .applied_at, .affected, "
    "old_statement: old.statement, old_status: old.status, old_quoted: old.evidence_quote IS NOT NULL, "
    "replacement_status: new.status, cites_passage: new.cited_source_id IS NOT NULL}"
)


def correction_outline_get(*, workspace: HasGraph, correction_id: str) -> CorrectionOutline | None:
    """One correction as staff who may not read its workspace read it, or None."""
    rows = graph.ro_records_of(workspace, CORRECTION_OUTLINE_GET, correction_id=correction_id)
    return CorrectionOutline.from_map(rows[0]) if rows else None


CORRECTION_AFTER, CORRECTION_ORDER = keyset("x", at="applied_at")
# The history's filters: a person by part of their username (any case) or by the usernames their full name
# matched, a claim (old or replacement), applied in [since, until), and what the correction did ($impact: see
# CorrectionImpact; `affected` is stored as JSON, so "nothing there" is the exact empty list it was written with).
CORRECTION_WHERE = (
    "MATCH (x:Correction)-[:CORRECTS]->(old:Claim) "
    "WHERE ($actor = '' OR toLower(x.actor) CONTAINS $actor OR x.actor IN $actors) "
    "AND ($claim_id = '' OR x.claim_id = $claim_id OR x.replacement_claim_id = $claim_id) "
    "AND ($since = '' OR x.applied_at >= $since) AND ($until = '' OR x.applied_at < $until) "
    "AND ($impact = '' OR ($impact = 'review' AND NOT x.affected CONTAINS $no_review) "
    "OR ($impact = 'held' AND NOT x.affected CONTAINS $no_held) "
    "OR ($impact = 'unsupported' AND NOT x.affected CONTAINS $no_unsupported) "
    "OR ($impact = 'none' AND x.affected CONTAINS $no_review AND x.affected CONTAINS $no_held "
    "AND x.affected CONTAINS $no_unsupported)) "
)
CORRECTION_LIST = (
    CORRECTION_WHERE + "AND " + CORRECTION_AFTER + " "
    "WITH x, old ORDER BY " + CORRECTION_ORDER + " LIMIT $limit "
    "OPTIONAL MATCH (new:Claim {id: x.replacement_claim_id}) "
    "RETURN " + CORRECTION_FIELDS + " AS correction ORDER BY correction.applied_at DESC, correction.id DESC"
)
CORRECTION_COUNT = CORRECTION_WHERE + "RETURN count(x)"
# The history's pages, one query per sort (the sort expressions are constants, never request text).
HISTORY_SORTS = {"applied": "x.applied_at", "actor": "toLower(x.actor)"}
CORRECTION_PAGES = {
    (key, descending): CORRECTION_WHERE + "WITH x, old ORDER BY " + expression + direction + ", x.id" + direction
    + " SKIP $offset LIMIT $limit OPTIONAL MATCH (new:Claim {id: x.replacement_claim_id}) "
    "RETURN " + CORRECTION_FIELDS + " AS correction"
    for key, expression in HISTORY_SORTS.items()
    for descending, direction in ((True, " DESC"), (False, " ASC"))
}  # fmt: skip


@dataclass(frozen=True)
class CorrectionFilters:
    """What the history selects: `actor` part of a username (lowercased) or one of `actors`, a claim id, applied
    in [since, until) (ISO), and what it did (a CorrectionImpact value, '' for any)."""

    actor: str = ""
    actors: tuple[str, ...] = ()
    claim_id: str = ""
    since: str = ""
    until: str = ""
    impact: str = ""

    def params(self) -> dict[str, Any]:
        return {
            "actor": self.actor, "actors": list(self.actors), "claim_id": self.claim_id, "since": self.since,
            "until": self.until, "impact": self.impact, **NOTHING_AFFECTED,
        }  # fmt: skip


# `affected` as correction_apply stores it (json.dumps), for each key the text that says its list is empty.
NOTHING_AFFECTED = {
    name: json.dumps({key: []})[1:-1]
    for name, key in (
        ("no_review", "decisions_needing_review"), ("no_held", "actions_held"),
        ("no_unsupported", "claims_unsupported"),
    )
}  # fmt: skip


def correction_get(*, workspace: HasGraph, correction_id: str) -> Correction | None:
    """One correction with what it corrected, or None."""
    if parse_id(correction_id) is None:
        return None
    rows = graph.ro_records(workspace, CORRECTION_GET, {"correction_id": correction_id})
    return Correction.from_map(rows[0]) if rows else None


def correction_list(
    *,
    workspace: HasGraph,
    claim_id: str = "",
    limit: int = 200,
    after: tuple[str, str] | None = None,
) -> list[Correction]:
    """Corrections, newest first (after the (applied_at, id) position `after`), of a claim (old or replacement)."""
    params = {**CorrectionFilters(claim_id=claim_id).params(), "limit": limit, **after_params(after)}
    return [Correction.from_map(row) for row in graph.ro_records(workspace, CORRECTION_LIST, params)]


def correction_count(*, workspace: HasGraph, filters: CorrectionFilters | None = None) -> int:
    """How many corrections the workspace has (that the filters select)."""
    params = (filters or CorrectionFilters()).params()
    return int(graph.ro_query(workspace, CORRECTION_COUNT, params)[0][0])


def correction_page(
    *, workspace: HasGraph, filters: CorrectionFilters, sort: str, descending: bool, offset: int, limit: int
) -> list[Correction]:
    """One page of the corrections the filters select, sorted by `sort` (a HISTORY_SORTS key)."""
    query = CORRECTION_PAGES[(sort, descending)]
    params = {**filters.params(), "offset": offset, "limit": limit}
    page = [Correction.from_map(row) for row in graph.ro_records(workspace, query, params)]
    # The OPTIONAL MATCH after the paging may reorder rows: put the page back in the order it was cut in.
    key = (lambda c: (c.actor.lower(), c.id)) if sort == "actor" else (lambda c: (c.applied_at, c.id))
    return sorted(page, key=key, reverse=descending)


# The same read as CORRECTION_GET, for many ids at once (the review queue names each decision's correction).
CORRECTIONS_GET = "UNWIND $correction_ids AS correction_id " + CORRECTION_GET.replace("$correction_id", "correction_id")


def corrections_get(*, workspace: HasGraph, correction_ids: list[str]) -> list[Correction]:
    """The corrections with these ids that exist (each once), in the order given, in one query."""
    ids = list(dict.fromkeys(canonical for i in correction_ids if (canonical := parse_id(i))))
    if not ids:
        return []
    rows = graph.ro_records(workspace, CORRECTIONS_GET, {"correction_ids": ids})
    found = {c.id: c for c in (Correction.from_map(row) for row in rows)}
    return [found[i] for i in ids if i in found]
