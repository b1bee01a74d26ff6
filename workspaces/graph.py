"""The workspace's slice of its graph: the graph's lifecycle, its indexes and its revision counter."""

from __future__ import annotations

from afterhack import graph
from afterhack.graph import BUMP_REVISION, HasGraph

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
# Other properties the apps look nodes up by.
EXTRA_RANGE_INDEXES = (("Claim", "key"), ("Claim", "version_id"), ("RejectedClaim", "key"))

WORKSPACE_NODE_CREATE = """
MERGE (w:Workspace {id: $workspace_id})
ON CREATE SET w.revision = 0, w.created_at = $created_at
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

COUNTED_LABELS = ("Source", "Claim", "Decision", "Action", "Correction")

NODE_COUNTS = """
MATCH (n)
WHERE n:Source OR n:Claim OR n:Decision OR n:Action OR n:Correction
WITH labels(n)[0] AS label, count(n) AS total
RETURN {label: label, total: total} AS count
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


def node_counts(*, workspace: HasGraph) -> dict[str, int]:
    """How many Sources, Claims, Decisions, Actions and Corrections the graph holds."""
    counts = dict.fromkeys(COUNTED_LABELS, 0)
    for row in graph.ro_records(workspace, NODE_COUNTS):
        counts[row["label"]] = int(row["total"])
    return counts


NODE_TOTAL = "MATCH (n) RETURN count(n)"


def node_total(*, workspace: HasGraph) -> int:
    """How many nodes the workspace's graph holds, of every label."""
    return int(graph.ro_query(workspace, NODE_TOTAL)[0][0])


REVISION_BUMP = BUMP_REVISION + " RETURN w.revision"


def revision_bump(*, workspace: HasGraph) -> None:
    """Raises the revision: something a correction preview depends on changed outside the graph (a policy)."""
    graph.query(workspace, REVISION_BUMP)
