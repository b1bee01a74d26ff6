"""History that is never lost: the change record every status-changing write appends (docs/history.md).

Each change of a claim's, decision's or action's status is a `:Change` node, created by the same
Cypher query as the change itself (FalkorDB runs one query atomically; MULTI/EXEC is not), BEFORE
the SET, so it reads the status being left:

    (:Change {at, kind, id, from_status, to_status, cause, cause_id, actor})-[:OF]->(node)

`record_change(var, ...)` is the one fragment that writes it; a test (tests/afterhack/test_history.py)
fails if a query that sets a status lacks it for that variable. It sits below the apps, like
afterhack.holds, because claims, agents and corrections all write statuses.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from afterhack import graph
from afterhack.cypher import word, words
from afterhack.graph import HasGraph
from agents.statuses import DecisionStatus
from claims.statuses import ClaimStatus


class ChangeKind(StrEnum):
    """What a change is of (the API's "kind")."""

    CLAIM = "claim"
    DECISION = "decision"
    ACTION = "action"


class ChangeCause(StrEnum):
    """What caused a change (the API's "cause.kind"); cause_id names the thing when there is one."""

    CORRECTION = "correction"  # cause_id: the Correction
    RETRACTION = "retraction"  # cause_id: the retracted Source
    NEW_VERSION = "new_version"  # cause_id: the new SourceVersion
    REJUSTIFICATION = "rejustification"  # cause_id: the decision re-justified
    REVISION = "revision"  # cause_id: the new Decision that supersedes
    DISMISSAL = "dismissal"  # cause_id: the dismissed decision
    CLAIM_REVIEW = "claim_review"  # cause_id: the agent_claim Suggestion approved (proposed → current) or rejected
    AGENT_RUN = "agent_run"  # cause_id: the AgentRun
    PERSON = "person"  # cause_id: null (a person marked it; actor says who)
    MIGRATION = "migration"  # the state found when the history began (history_begin, run by manage.py reconcile_graphs)


# Their values, in order, for the API's Literal fields.
KINDS = tuple(kind.value for kind in ChangeKind)
CAUSES = tuple(cause.value for cause in ChangeCause)

CHANGE_LABEL = "Change"
CHANGE_OF = "OF"


def record_change(
    var: str,
    *,
    kind: str,
    to_status: str,
    cause: str,
    cause_id: str,
    actor: str,
    before: tuple[str, ...] = (),
    also: dict[str, str] | None = None,
) -> str:
    """Cypher: a Change of the node bound to `var`, to be placed just BEFORE the SET of its status.

    `to_status` and `cause_id`, `actor` are Cypher expressions (a `word(...)`, a $param, a variable);
    `kind` is a ChangeKind, `cause` a ChangeCause or a $param (a write shared by several causes, like
    corrections' PROPAGATE). Never request text: values go in as $params.
    `before` names other properties of the node the write overwrites that an as-of read needs (a decision's
    review_reason, flagged_by, dismissed_at): kept as `from_<name>`. `also` adds named Cypher expressions
    (a re-justification's `justifications_from`: the number of its first new group).
    One CREATE per changed node, no extra read, no extra round trip."""
    param = cause.startswith("$") and cause[1:].isidentifier()
    if (
        kind not in ChangeKind
        or not (param or cause in ChangeCause)
        or not all(n.isidentifier() for n in (var, *before, *(also or {})))
    ):
        raise ValueError(f"record_change({var!r}, kind={kind!r}, cause={cause!r})")
    cause = cause if param else word(ChangeCause(cause))
    return (
        "CREATE (:" + CHANGE_LABEL + " {at: $now, kind: " + word(ChangeKind(kind)) + ", id: " + var + ".id, from_status: "
        + var + ".status, to_status: " + to_status + ", cause: " + cause + ", cause_id: " + cause_id
        + ", actor: " + actor + "".join(", from_" + n + ": " + var + "." + n for n in before)
        + "".join(", " + n + ": " + expression for n, expression in (also or {}).items())
        + "})-[:" + CHANGE_OF + "]->(" + var + ")\n"
    )  # fmt: skip


def marker(var: str) -> str:
    """The text `record_change(var, ...)` always contains: what the completeness test looks for."""
    return "-[:" + CHANGE_OF + "]->(" + var + ")"


@dataclass(frozen=True)
class Change:
    at: str
    kind: ChangeKind
    id: str
    from_status: str | None
    to_status: str
    cause: dict[str, Any]
    actor: str | None
    # A change of a done action's follow-up state (its status stays): the state set (not in the API's item).
    follow_up: str | None = None

    @classmethod
    def from_map(cls, row: dict[str, Any]) -> Change:
        return cls(
            at=row["at"], kind=ChangeKind(row["kind"]), id=row["id"], from_status=row["from_status"], to_status=row["to_status"],
            cause={"kind": row["cause"], "id": row["cause_id"]}, actor=row["actor"], follow_up=row.get("follow_up"),
        )  # fmt: skip

    def record(self) -> dict[str, Any]:
        """As docs/api.md (The past) has it: {"at", "kind", "id", "from_status", "to_status", "cause", "actor"}."""
        return {
            "at": self.at, "kind": self.kind, "id": self.id, "from_status": self.from_status,
            "to_status": self.to_status, "cause": self.cause, "actor": self.actor,
        }  # fmt: skip


# Changes in [start, end), oldest first; ties (one write changes many nodes at one `at`) by kind and id.
# Keyset paging: after ($after_at, $after_kind, $after_id), '' for the first page.
CHANGES_WHERE = "MATCH (x:" + CHANGE_LABEL + ") WHERE ($start = '' OR x.at >= $start) AND ($end = '' OR x.at < $end) "
CHANGES_BETWEEN = (
    CHANGES_WHERE + "AND ($after_at = '' OR x.at > $after_at OR (x.at = $after_at AND (x.kind > $after_kind "
    "OR (x.kind = $after_kind AND x.id > $after_id)))) "
    "WITH x ORDER BY x.at, x.kind, x.id LIMIT $limit "
    "RETURN x {.at, .kind, .id, .from_status, .to_status, .cause, .cause_id, .actor} AS change"
)
CHANGES_COUNT = CHANGES_WHERE + "RETURN count(x)"


def changes(
    *, workspace: HasGraph, start: str = "", end: str = "", limit: int = 200, after: tuple[str, str, str] | None = None
) -> list[Change]:
    """The recorded changes with start <= at < end ('' for open), oldest first, at most `limit`, after a keyset."""
    after_at, after_kind, after_id = after or ("", "", "")
    params = {"start": start, "end": end, "limit": limit, "after_at": after_at, "after_kind": after_kind,
              "after_id": after_id}  # fmt: skip
    return [Change.from_map(row) for row in graph.ro_records(workspace, CHANGES_BETWEEN, params)]


def changes_count(*, workspace: HasGraph, start: str = "", end: str = "") -> int:
    rows = graph.ro_query(workspace, CHANGES_COUNT, {"start": start, "end": end})
    return int(rows[0][0]) if rows else 0


# The changes of one node (a claim, decision or action, by id: the range index on Change.id), newest first.
NODE_CHANGES = (
    "MATCH (x:" + CHANGE_LABEL + " {id: $id}) WITH x ORDER BY x.at DESC LIMIT $limit "
    "RETURN x {.at, .kind, .id, .from_status, .to_status, .cause, .cause_id, .actor, .follow_up} AS change"
)


def node_changes(*, workspace: HasGraph, node_id: str, limit: int = 50) -> list[Change]:
    """The recorded changes of the claim, decision or action with this id, newest first, at most `limit`."""
    return [Change.from_map(row) for row in graph.ro_records(workspace, NODE_CHANGES, {"id": node_id, "limit": limit})]


# -- reading the past (docs/history.md, "Reading the past"; the rewinds are afterhack/history.py) ----------------

# Every field of a Change an as-of read uses, as one map (a null field comes back as None).
CHANGE_FIELDS = (
    "{.at, .kind, .id, .from_status, .to_status, .cause, .cause_id, .actor, .from_version_id, .from_start, .from_end, "
    ".from_moved_from, .from_supported_by, .from_review_reason, .from_flagged_by, .from_dismissed_at, "
    ".justifications_from, .moved_from, .migrated, .follow_up, .from_follow_up, .from_follow_up_id, "
    ".from_follow_up_reason}"
)


def changes_after(node: str, *, keep: str, alias: str) -> str:
    """Cypher: the Changes of the node bound to `node` made after $as_of, collected as `alias` (a list of maps,
    in no order: the rewinds sort them), carrying the variables `keep` (a comma-separated list of the query's
    own constants). Found through the index on Change.id, then filtered by `at`."""
    if (
        not node.isidentifier()
        or not alias.isidentifier()
        or not all(k.strip().isidentifier() for k in keep.split(","))
    ):
        raise ValueError(f"changes_after({node!r}, keep={keep!r}, alias={alias!r})")
    return (
        "OPTIONAL MATCH (past_x:" + CHANGE_LABEL + " {id: " + node + ".id}) WHERE past_x.at > $as_of "
        "WITH " + keep + ", collect(past_x " + CHANGE_FIELDS + ") AS " + alias + " "
    )


CHANGES_AFTER = (
    "UNWIND $ids AS node_id MATCH (x:" + CHANGE_LABEL + " {id: node_id}) WHERE x.at > $as_of "
    "RETURN x " + CHANGE_FIELDS + " AS change"
)


def changes_after_of(*, workspace: HasGraph, ids: list[str], as_of: str) -> dict[str, list[dict[str, Any]]]:
    """The Changes made after `as_of` of each of these nodes (one query for all), by node id, oldest first."""
    found: dict[str, list[dict[str, Any]]] = {}
    if ids:
        for row in graph.ro_records(workspace, CHANGES_AFTER, {"ids": list(dict.fromkeys(ids)), "as_of": as_of}):
            found.setdefault(row["id"], []).append(row)
    return {node_id: sorted(rows, key=lambda row: row["at"]) for node_id, rows in found.items()}


# -- the history's beginning: existing workspaces (docs/history.md, "Migration") -------------------------------

# Run once per workspace graph (w.history_since marks it; new graphs get it at creation), in one query:
# what is known exactly becomes the change it was (a claim superseded by a Correction: from current, at its
# applied_at, by its actor; a decision superseded by a revision: from needs_review, at superseded_at); every
# other claim, decision or action that may have changed since its creation gets its present status as a
# baseline change FROM null (unknown before), at the last time it changed where that is known (status_changed_at,
# updated_at), else its creation. Nodes that never changed need nothing: no change after a moment means the
# present status held then. A node that already has a change (written by this code before the history began here:
# a worker or web server that started before `graph_ensure` ran) is left as recorded, and the history then began
# with the earliest change already written.
UNRECORDED = "NOT ({})<-[:" + CHANGE_OF + "]-(:" + CHANGE_LABEL + ")"
HISTORY_BEGIN = (
    "MATCH (w:Workspace) WHERE w.history_since IS NULL "
    "OPTIONAL MATCH (first:" + CHANGE_LABEL + ") WITH w, first ORDER BY first.at LIMIT 1 "
    "SET w.history_since = CASE WHEN first IS NULL OR first.at > $now THEN $now ELSE first.at END WITH w "
    "CALL { MATCH (x:Correction)-[:CORRECTS]->(c:Claim {status: " + word(ClaimStatus.SUPERSEDED) + "}) WHERE "
    + UNRECORDED.format("c") + " "
    "  CREATE (:" + CHANGE_LABEL + " {at: x.applied_at, kind: " + word(ChangeKind.CLAIM) + ", id: c.id, from_status: "
    + word(ClaimStatus.CURRENT) + ", "
    "  to_status: " + word(ClaimStatus.SUPERSEDED) + ", cause: " + word(ChangeCause.CORRECTION) + ", cause_id: x.id, "
    "actor: x.actor, migrated: true})"
    "-[:" + CHANGE_OF + "]->(c) } "
    "CALL { MATCH (c:Claim) WHERE NOT c.status IN "
    + words(ClaimStatus.CURRENT, ClaimStatus.SUPERSEDED, ClaimStatus.PROPOSED)
    + " AND "
    + UNRECORDED.format("c") + " "
    "  CREATE (:" + CHANGE_LABEL + " {at: coalesce(c.status_changed_at, c.created_at, $now), kind: "
    + word(ChangeKind.CLAIM) + ", "
    "  id: c.id, from_status: null, to_status: c.status, cause: " + word(ChangeCause.MIGRATION) + ", cause_id: null, "
    "actor: null, "
    "  migrated: true})-[:" + CHANGE_OF + "]->(c) } "
    "CALL { MATCH (d:Decision) WHERE d.status = " + word(DecisionStatus.SUPERSEDED) + " AND "
    + UNRECORDED.format("d") + " "
    "  CREATE (:" + CHANGE_LABEL + " {at: coalesce(d.superseded_at, d.status_changed_at, d.created_at, $now), "
    "  kind: " + word(ChangeKind.DECISION) + ", id: d.id, from_status: " + word(DecisionStatus.NEEDS_REVIEW) + ", "
    "to_status: " + word(DecisionStatus.SUPERSEDED) + ", cause: " + word(ChangeCause.REVISION) + ", "
    "cause_id: d.superseded_by, actor: d.superseded_by_actor, migrated: true})-[:" + CHANGE_OF + "]->(d) } "
    "CALL { MATCH (d:Decision) WHERE d.status <> " + word(DecisionStatus.SUPERSEDED) + " AND "
    "d.status_changed_at IS NOT NULL AND " + UNRECORDED.format("d") + " "
    "  CREATE (:" + CHANGE_LABEL + " {at: d.status_changed_at, kind: " + word(ChangeKind.DECISION) + ", id: d.id, "
    "from_status: null, "
    "  to_status: d.status, cause: " + word(ChangeCause.MIGRATION) + ", cause_id: null, actor: null, migrated: true})"
    "-[:" + CHANGE_OF + "]->(d) } "
    "CALL { MATCH (a:Action) WHERE a.updated_at IS NOT NULL AND a.updated_at <> a.created_at AND "
    + UNRECORDED.format("a") + " "
    "  CREATE (:" + CHANGE_LABEL + " {at: a.updated_at, kind: " + word(ChangeKind.ACTION) + ", id: a.id, "
    "from_status: null, "
    "  to_status: a.status, cause: " + word(ChangeCause.MIGRATION) + ", cause_id: null, actor: null, migrated: true})"
    "-[:" + CHANGE_OF + "]->(a) } "
    "RETURN w.history_since"
)  # fmt: skip


def history_begin(*, workspace: HasGraph, now: str) -> bool:
    """Begins the workspace's history if it has not begun (idempotent); True if it began now."""
    return bool(graph.query(workspace, HISTORY_BEGIN, {"now": now}))
