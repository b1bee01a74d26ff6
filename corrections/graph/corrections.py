"""Reads of the workspace's corrections: one (in full, or as staff who may not read its workspace read it), many
by id, and the history's pages (filtered, sorted, counted)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from afterhack import graph
from afterhack.graph import HasGraph
from afterhack.ids import parse_id
from afterhack.lists.filters import Criteria
from afterhack.lists.graph import after_params, filter_params, keyset, where
from corrections.lists import HISTORY


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
# The history's filters, each declared once with its condition and $params (corrections/lists.py): a person, a
# claim (old or replacement), applied in [since, until), and what the correction did.
CORRECTION_WHERE = "MATCH (x:Correction)-[:CORRECTS]->(old:Claim) WHERE " + where(
    HISTORY.filters, "actor", "claim", "since", "until", "kind"
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


# What the API's pages and a claim's corrections read: no filter but (maybe) the claim, newest first.
EVERY_CORRECTION = Criteria(q="", filters={}, sort="applied", descending=True)


def history_params(criteria: Criteria, actors: Sequence[str] = ()) -> dict[str, Any]:
    """The $params of the history's filters for what it was asked, with `actors`: the usernames whose full name
    holds the person filter's words (looked up in PostgreSQL by the selector)."""
    return {**filter_params(HISTORY.filters, criteria), "actors": list(actors)}


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
    criteria = replace(EVERY_CORRECTION, filters={"claim": claim_id})
    params = {**history_params(criteria), "limit": limit, **after_params(after)}
    return [Correction.from_map(row) for row in graph.ro_records(workspace, CORRECTION_LIST, params)]


def correction_count(*, workspace: HasGraph, criteria: Criteria = EVERY_CORRECTION, actors: Sequence[str] = ()) -> int:
    """How many corrections the workspace has (that the history's criteria select, `actors` as history_params)."""
    return int(graph.ro_query(workspace, CORRECTION_COUNT, history_params(criteria, actors))[0][0])


def correction_page(
    *, workspace: HasGraph, criteria: Criteria, actors: Sequence[str], offset: int, limit: int
) -> list[Correction]:
    """One page of the corrections the history's criteria select (`actors` as history_params), in their sort (a
    HISTORY_SORTS key)."""
    sort, descending = criteria.sort, criteria.descending
    query = CORRECTION_PAGES[(sort, descending)]
    params = {**history_params(criteria, actors), "offset": offset, "limit": limit}
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
