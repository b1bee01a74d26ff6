"""The workspace's slice of its graph: the graph's lifecycle, its indexes and its revision counter."""

from __future__ import annotations

from dataclasses import dataclass

from afterhack import graph
from afterhack.graph import BUMP_REVISION, HasGraph
from agents.statuses import ActionStatus, DecisionKind, DecisionStatus
from claims.statuses import JobStatus

# Every node the apps create carries an `id`; these labels are looked up by it.
ID_INDEXED_LABELS = (
    "Source",
    "SourceVersion",
    "SourceFragment",
    "Claim",
    "Decision",
    "Action",
    "Correction",
    "AgentRun",
    "Handoff",
    "Extraction",
)
# Other properties the apps look nodes up by EQUALITY (a change of belief by what changed: the as-of reads).
# Never a time or any other string compared with < or <=: FalkorDB 4.22's range index drops such a bound when its
# value is a parameter and answers every node (FalkorDB issue #2239, fixed only in its Rust engine). So the
# history's windows (`Change.at`) and what was made in a window (`created_at`) are read by label scans until the
# times are also kept as numbers; tests/afterhack/test_graph.py keeps both facts checked.
EXTRA_RANGE_INDEXES = (("Claim", "key"), ("Claim", "version_id"), ("RejectedClaim", "key"), ("Change", "id"))

WORKSPACE_NODE_CREATE = """
MERGE (w:Workspace {id: $workspace_id})
ON CREATE SET w.revision = 0, w.created_at = $created_at, w.history_since = $created_at
RETURN w.revision
"""

WORKSPACE_REVISION_GET = """
MATCH (w:Workspace {id: $workspace_id})
RETURN w.revision
"""

INDEX_LIST = """
CALL db.indexes() YIELD label, types
RETURN {label: label, types: types} AS index
"""

# What needs a person's attention, and how much there is, in one read of the whole graph. Each step counts one
# label and carries the counts so far; the statuses come in as parameters (the apps' StrEnums). A decision is an
# unanswered question as agents/graph.py DECISION_KIND says: its `kind`, or, on a graph written before decisions
# stored one, an agent's decision that nothing supports (only the "no answer" decision is made so).
ATTENTION = """
OPTIONAL MATCH (s:Source) WITH count(s) AS sources
OPTIONAL MATCH (c:Claim) WITH sources, count(c) AS claims
OPTIONAL MATCH (d:Decision)
WITH sources, claims, d, d.status = $needs_review AND d.dismissed_at IS NULL AS open,
     coalesce(d.kind, CASE WHEN d.origin = 'agent' AND size([(x)-[:SUPPORTS]->(d) | x]) = 0
                           THEN $unanswered ELSE 'answered' END) = $unanswered AS unanswered
WITH sources, claims, count(d) AS decisions,
     sum(CASE WHEN open AND NOT unanswered THEN 1 ELSE 0 END) AS lost_support,
     sum(CASE WHEN open AND unanswered THEN 1 ELSE 0 END) AS unanswered
OPTIONAL MATCH (a:Action)
WITH sources, claims, decisions, lost_support, unanswered, count(a) AS actions,
     sum(CASE WHEN a.status = $held THEN 1 ELSE 0 END) AS held
OPTIONAL MATCH (x:Correction)
WITH sources, claims, decisions, lost_support, unanswered, actions, held, count(x) AS corrections,
     sum(CASE WHEN x.applied_at >= $corrections_since THEN 1 ELSE 0 END) AS corrections_recent
OPTIONAL MATCH (:Source)-[:HAS_VERSION]->(v:SourceVersion {current: true})<-[:OF]-(e:Extraction)
WITH sources, claims, decisions, lost_support, unanswered, actions, held, corrections, corrections_recent,
     v, max(e.started_at) AS newest, collect(e) AS runs
WITH sources, claims, decisions, lost_support, unanswered, actions, held, corrections, corrections_recent,
     [r IN runs WHERE r.started_at = newest][0] AS latest
WITH sources, claims, decisions, lost_support, unanswered, actions, held, corrections, corrections_recent,
     latest, latest.status IN $busy AS busy, latest.updated_at < $stale_before AS stale
WITH sources, claims, decisions, lost_support, unanswered, actions, held, corrections, corrections_recent,
     sum(CASE WHEN latest.status = $failed OR (busy AND stale) THEN 1 ELSE 0 END) AS extractions_failed,
     sum(CASE WHEN busy AND NOT stale THEN 1 ELSE 0 END) AS extractions_running
RETURN {sources: sources, claims: claims, decisions: decisions, lost_support: lost_support, unanswered: unanswered,
        actions: actions, held: held, corrections: corrections, corrections_recent: corrections_recent,
        extractions_failed: extractions_failed, extractions_running: extractions_running} AS attention
"""

FULLTEXT_CLAIM_STATEMENT = "CALL db.idx.fulltext.createNodeIndex('Claim', 'statement')"


def graph_create(*, workspace: HasGraph, workspace_id: str, created_at: str) -> None:
    """Creates the workspace's graph: its Workspace node (revision 0) and every index the apps need."""
    graph.query(workspace, WORKSPACE_NODE_CREATE, {"workspace_id": workspace_id, "created_at": created_at})
    existing = index_kinds(workspace=workspace)
    for label in ID_INDEXED_LABELS:
        if (label, "id", "RANGE") not in existing:
            # Labels are module constants, never input, so this cannot inject.
            graph.query(workspace, "CREATE INDEX FOR (n:" + label + ") ON (n.id)")
    for label, prop in EXTRA_RANGE_INDEXES:
        if (label, prop, "RANGE") not in existing:
            graph.query(workspace, "CREATE INDEX FOR (n:" + label + ") ON (n." + prop + ")")
    if ("Claim", "statement", "FULLTEXT") not in existing:
        graph.query(workspace, FULLTEXT_CLAIM_STATEMENT)


def graph_revision(*, workspace: HasGraph, workspace_id: str) -> int | None:
    """The workspace graph's revision counter, or None when the graph has no Workspace node."""
    rows = graph.ro_query(workspace, WORKSPACE_REVISION_GET, {"workspace_id": workspace_id})
    return int(rows[0][0]) if rows else None


def graph_drop(*, workspace: HasGraph) -> None:
    """Deletes the workspace's graph."""
    graph.graph_delete(workspace)


def index_kinds(*, workspace: HasGraph) -> set[tuple[str, str, str]]:
    """The (label, property, kind) triples indexed in the workspace's graph, kind RANGE or FULLTEXT."""
    return {
        (index["label"], prop, kind)
        for index in graph.ro_records(workspace, INDEX_LIST)
        for prop, kinds in index["types"].items()
        for kind in kinds
    }


NODE_TOTAL = "MATCH (n) RETURN count(n)"


def node_total(*, workspace: HasGraph) -> int:
    """How many nodes the workspace's graph holds, of every label."""
    return int(graph.ro_query(workspace, NODE_TOTAL)[0][0])


REVISION_BUMP = BUMP_REVISION + " RETURN w.revision"


def revision_bump(*, workspace: HasGraph) -> None:
    """Raises the revision: something a correction preview depends on changed outside the graph (a policy)."""
    graph.query(workspace, REVISION_BUMP)


@dataclass(frozen=True)
class Attention:
    """What needs a person's attention in a workspace's graph, and how much it holds of each kind."""

    lost_support: int = 0
    unanswered: int = 0
    held: int = 0
    extractions_failed: int = 0
    extractions_running: int = 0
    corrections_recent: int = 0
    sources: int = 0
    claims: int = 0
    decisions: int = 0
    actions: int = 0
    corrections: int = 0


def attention(*, workspace: HasGraph, corrections_since: str, stale_before: str) -> Attention:
    """The counts of what needs attention (corrections applied since `corrections_since`; an extraction that has
    not reported progress since `stale_before` counts as failed) and the totals, in one query."""
    params = {
        "needs_review": DecisionStatus.NEEDS_REVIEW, "unanswered": DecisionKind.UNANSWERED,
        "held": ActionStatus.HELD, "failed": JobStatus.FAILED, "busy": [JobStatus.QUEUED, JobStatus.RUNNING],
        "corrections_since": corrections_since, "stale_before": stale_before,
    }  # fmt: skip
    rows = graph.ro_records(workspace, ATTENTION, params)
    # An aggregate over no rows at all is null in FalkorDB: a graph without a single node counts nothing.
    return Attention(**{name: int(value or 0) for name, value in rows[0].items()}) if rows else Attention()
