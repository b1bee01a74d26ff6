"""What changed in what a person relied on (`GET …/changes?cited_by=me`, MCP `what_changed`; docs/api.md, "What
changed in what you relied on"): ONE read of the Change records after a position whose claim or decision the person
(or an agent holding their token: their runs and MCP sessions) relied on, with what each change asks of them.

Relied on, for the person named `$me` (a username, as `created_by` holds it):
- a decision they recorded: `d.created_by = $me` (through the pages, the API, `record_decision` over MCP, a
  revision they made, and every decision their agent runs produced, which carry the run's `created_by`);
- a claim one of those decisions cites (a SUPPORTS edge into it, from any of its justifications, old ones too);
- a claim they made: `c.created_by = $me` (`propose_claim` over MCP, a claim added or derived through the API or the
  pages, the replacement of a correction they applied);
- a claim one of their runs or MCP sessions retrieved (read its passage): a RETRIEVED edge of an AgentRun with
  `created_by = $me` into a fragment the claim quotes now, naming the claim (`claim_id`).

The read starts from the changes (a scan of Change, filtered by the position, then each change's node tested
against those four patterns through its own edges), never from what the person relied on: its cost follows the
changes since the position, not how many decisions, runs or citations the person has. The page's next steps
(the claim or decision that replaced one, whether it changed again since) are read in the same query.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from afterhack import graph
from afterhack.cypher import word, words
from afterhack.graph import HasGraph
from afterhack.history_graph import CHANGE_LABEL, CHANGE_OF, Change, ChangeKind

# Whether the node `n` of the change `x` is one the person `$me` relied on (the module's docstring says why each).
RELIED_ON = (
    f"((x.kind = {word(ChangeKind.DECISION)} AND n.created_by = $me) OR (x.kind = {word(ChangeKind.CLAIM)} AND ("
    "n.created_by = $me OR (n)-[:SUPPORTS]->(:Decision {created_by: $me}) "
    "OR (n)-[:SUPPORTED_BY]->(:SourceFragment)<-[:RETRIEVED {claim_id: n.id}]-(:AgentRun {created_by: $me}))))"
)

# The changes after the position ($after_at, $after_kind, $after_id: the last change given out, or a moment with
# '' '' to start at it), oldest first by (at, kind, id) as GET …/changes orders them; all of them are collected to
# count them, the page is the first $limit. For each change of the page: whether its node changed again since, and
# the end of the chain of what superseded it (the claim or decision to use now).
RELIED_ON_CHANGES = (
    "MATCH (x:" + CHANGE_LABEL + ") WHERE x.kind IN " + words(ChangeKind.CLAIM, ChangeKind.DECISION) + " "
    "AND x.at >= $after_at AND (x.at > $after_at OR x.kind > $after_kind OR (x.kind = $after_kind AND x.id > $after_id)) "
    "AND x.at < $settled "
    "MATCH (x)-[:" + CHANGE_OF + "]->(n) WHERE " + RELIED_ON + " "
    "WITH x ORDER BY x.at, x.kind, x.id "
    "WITH collect(x) AS found "
    "WITH size(found) AS total, found[0..$limit] AS page "
    "UNWIND range(0, size(page) - 1) AS i "
    "WITH total, i, page[i] AS x "
    "MATCH (x)-[:" + CHANGE_OF + "]->(n) "
    "OPTIONAL MATCH (later:" + CHANGE_LABEL + " {id: n.id}) WHERE later.at > x.at "
    "WITH total, i, x, n, count(later) AS later_changes "
    "OPTIONAL MATCH (claim:Claim)-[:SUPERSEDES*1..]->(n) WHERE x.kind = " + word(ChangeKind.CLAIM) + " "
    "AND NOT (:Claim)-[:SUPERSEDES]->(claim) "
    "OPTIONAL MATCH (decision:Decision)-[:SUPERSEDES*1..]->(n) WHERE x.kind = " + word(ChangeKind.DECISION) + " "
    "AND NOT (:Decision)-[:SUPERSEDES]->(decision) "
    "WITH total, i, x, n, later_changes, head(collect(claim {.id, .statement, .status})) AS claim, "
    "head(collect(decision {.id, .title, .status})) AS decision "
    "RETURN {total: total, i: i, change: x {.at, .kind, .id, .from_status, .to_status, .cause, .cause_id, .actor}, "
    "title: coalesce(n.title, n.statement), changed_again: later_changes > 0, claim: claim, decision: decision} AS row "
    "ORDER BY row.i"
)


@dataclass(frozen=True)
class Replacement:
    """What superseded a claim or a decision, at the end of its chain: its id, its statement (a claim's) or title
    (a decision's), and its status now."""

    id: str
    text: str
    status: str


@dataclass(frozen=True)
class ReliedChange:
    """A change of something the person relied on: the change, the statement or title of what changed, whether
    it changed again since, and what superseded it (None if nothing did)."""

    change: Change
    text: str
    changed_again: bool
    replacement: Replacement | None


@dataclass(frozen=True)
class ReliedChanges:
    """A page of them, oldest first, and how many there are from the position on (this page's included)."""

    changes: list[ReliedChange]
    total: int


def _replacement(row: dict[str, Any]) -> Replacement | None:
    found = row["claim"] or row["decision"]
    if not found:
        return None
    return Replacement(found["id"], found.get("statement") or found.get("title") or "", found["status"])


def relied_on_changes(
    *, workspace: HasGraph, me: str, after: tuple[str, str, str], limit: int, settled: str
) -> ReliedChanges:
    """The first `limit` changes after the position `after` ((at, kind, id); (moment, '', '') starts at a moment)
    and before the moment `settled` to the claims and decisions `me` relied on, oldest first, and how many there are
    from the position on."""
    after_at, after_kind, after_id = after
    params = {"me": me, "after_at": after_at, "after_kind": after_kind, "after_id": after_id, "limit": limit,
              "settled": settled}  # fmt: skip
    rows = [record for record in graph.ro_records(workspace, RELIED_ON_CHANGES, params)]
    changes = [
        ReliedChange(Change.from_map(row["change"]), row["title"] or "", bool(row["changed_again"]), _replacement(row))
        for row in rows
    ]
    return ReliedChanges(changes, int(rows[0]["total"]) if rows else 0)
