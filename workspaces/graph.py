"""The workspace's slice of its graph: the graph's lifecycle, its indexes, its revision counter, and the one query of
what needs attention composed from the apps' registered parts (workspaces/registry.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from afterhack import graph
from afterhack import history_graph as history
from afterhack.graph import BUMP_REVISION, HasGraph
from workspaces import registry
from workspaces.registry import IndexSet

# Every node the apps create carries an `id`; the labels looked up by it, the other range indexes and the fulltext
# indexes are the apps' own, registered with workspaces/registry.py (`IndexSet`); the history's are named here.
HISTORY_INDEXES = IndexSet(ranges=(("Change", "id"),))


# Other properties the apps look nodes up by EQUALITY (a change of belief by what changed: the as-of reads).
# Never a time or any other string compared with < or <=: FalkorDB 4.22's range index drops such a bound when its
# value is a parameter and answers every node (FalkorDB issue #2239, fixed only in its Rust engine). So the
# history's windows (`Change.at`) and what was made in a window (`created_at`) are read by label scans until the
# times are also kept as numbers; tests/afterhack/test_graph.py keeps both facts checked.
def is_time(prop: str) -> bool:
    """A property holding a time (ISO 8601 text): `at`, `*_at`, `*_since`."""
    return prop == "at" or prop.endswith(("_at", "_since"))


def id_indexed_labels() -> tuple[str, ...]:
    """The labels the registered apps look nodes up by `id`."""
    return tuple(label for indexes in registry.INDEXES for label in indexes.by_id)


def extra_range_indexes() -> tuple[tuple[str, str], ...]:
    """The other (label, property) pairs looked up by equality: the registered apps' and the history's."""
    return tuple(pair for indexes in (*registry.INDEXES, HISTORY_INDEXES) for pair in indexes.ranges)


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


def graph_create(*, workspace: HasGraph, workspace_id: str, created_at: str) -> None:
    """Creates the workspace's graph: its Workspace node (revision 0) and every index the apps need."""
    graph.query(workspace, WORKSPACE_NODE_CREATE, {"workspace_id": workspace_id, "created_at": created_at})
    existing = index_kinds(workspace=workspace)
    for label in id_indexed_labels():
        if (label, "id", "RANGE") not in existing:
            # Labels are module constants, never input, so this cannot inject.
            graph.query(workspace, "CREATE INDEX FOR (n:" + label + ") ON (n.id)")
    for label, prop in extra_range_indexes():
        if (label, prop, "RANGE") not in existing:
            graph.query(workspace, "CREATE INDEX FOR (n:" + label + ") ON (n." + prop + ")")
    for label, prop, kind in existing:
        # A time range-indexed by an earlier build answers windows wrongly (see `is_time`): drop it. The
        # names are the graph's own, checked to be plain names before they go into the query.
        if kind == "RANGE" and is_time(prop) and label.isidentifier() and prop.isidentifier():
            graph.query(workspace, "DROP INDEX FOR (n:" + label + ") ON (n." + prop + ")")
    for label, prop, create in (index for indexes in registry.INDEXES for index in indexes.fulltext):
        if (label, prop, "FULLTEXT") not in existing:
            graph.query(workspace, create)


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


# -- what needs attention (the dashboard and the menu's badges), in one read of the whole graph ----------------
#
# Each app registers its counts (workspaces/registry.py `AttentionPart`): Cypher subqueries, one `CALL { ... }`
# each, composed here into one query, so one consistent moment of the graph; their statuses come in as parameters
# (the apps' StrEnums), what counts as recent as `$since`.


class Attention:
    """What needs a person's attention in a workspace's graph, and how much it holds of each kind: each registered
    column by its name (`attention.held`), 0 where the graph did not say."""

    def __init__(self, counts: Mapping[str, int] | None = None) -> None:
        self._counts = dict(counts or {})

    def __getattr__(self, name: str) -> int:
        if name.startswith("_") or name not in attention_columns():
            raise AttributeError(name)
        return self._counts.get(name, 0)

    def __repr__(self) -> str:
        return f"Attention({self._counts!r})"


def attention_columns() -> set[str]:
    """Every column the registered attention parts count."""
    return {column for part in registry.ATTENTION_PARTS.values() for column in part.columns}


def _params(extra: Mapping[str, Any]) -> dict[str, Any]:
    """The registered parts' parameters with `extra`; two parts never give one name two values."""
    params = dict(extra)
    for part in registry.ATTENTION_PARTS.values():
        for name, value in part.params().items():
            if params.setdefault(name, value) != value:
                raise registry.RegistryConflict(f"attention parameter ${name} given two values")
    return params


def attention_query() -> str:
    """The one query of every registered part's counts, now."""
    parts = list(registry.ATTENTION_PARTS.values())
    calls = "".join("CALL { " + body.strip() + " }\n" for part in parts for body in part.now)
    columns = ", ".join(f"{column}: {column}" for part in parts for column in part.columns)
    return calls + "RETURN {" + columns + "} AS attention"


def attention(*, workspace: HasGraph, since: str) -> Attention:
    """The counts of what needs attention (what happened since `since` counts as recent) and the totals, in one
    query."""
    if not registry.ATTENTION_PARTS:
        return Attention()
    rows = graph.ro_records(workspace, attention_query(), _params({"since": since}))
    # An aggregate over no rows at all is null in FalkorDB: a graph without a single node counts nothing.
    return Attention({name: int(value or 0) for name, value in rows[0].items()}) if rows else Attention()


# -- the dashboard as of a moment (docs/history.md, "Reading the past") -----------------------------------------
#
# Counted as the present is, then corrected by what changed since: the nodes made by $as_of are counted by their
# present status (scans with a few groups each, the parts' `then`), and each node changed after $as_of comes with its
# first change since (its status then: the from_status, or a migrated baseline's to_status, and what the parts'
# `changed` add) for each part's `read_then` to move it from its present count to its count then. Only the nodes
# changed since the moment are read one by one, so the cost follows the changes since, not the workspace's size. One
# query, so one consistent moment of the graph. The members are PostgreSQL's, counted in the present.
CHANGED_SINCE = (
    "MATCH (h:" + history.CHANGE_LABEL + ") WHERE h.at > $as_of\n"
    "WITH h.id AS id, min(h.at) AS first_at, collect(h) AS hs\n"
    "WITH [x IN hs WHERE x.at = first_at][0] AS first\n"
    "MATCH (first)-[:" + history.CHANGE_OF + "]->(d) WHERE coalesce(d.created_at, '') <= $as_of\n"
)
CHANGED_FIELDS = "kind: first.kind, now: d.status, then: coalesce(first.from_status, first.to_status)"


def attention_as_of_query() -> str:
    """The one query of every registered part's counts as of `$as_of`, with the nodes changed since."""
    parts = list(registry.ATTENTION_PARTS.values())
    calls = "".join("CALL { " + body.strip() + " }\n" for part in parts for body in part.then)
    fields = "".join(", " + part.changed for part in parts if part.changed)
    changed = "CALL { " + CHANGED_SINCE + "RETURN collect({" + CHANGED_FIELDS + fields + "}) AS changed }\n"
    columns = "".join(f", {column}: {column}" for part in parts for column in part.then_columns)
    return (
        "OPTIONAL MATCH (w:Workspace)\n" + calls + changed + "RETURN {history_since: w.history_since, "
        "created_at: w.created_at, changed: changed" + columns + "} AS attention"
    )


class AttentionThen:
    """What needed attention at a moment and what the graph held then: each registered part's counts by name
    (`then.held`, `then.claims` by status, `then.claims_total`), and when the workspace's history began and when
    its graph was made ('' when the graph does not say)."""

    def __init__(self, counts: Mapping[str, Any] | None = None, *, history_since: str = "", created_at: str = ""):
        self._counts = dict(counts or {})
        self.history_since = history_since
        self.created_at = created_at

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name not in self._counts:
            raise AttributeError(name)
        return self._counts[name]


def attention_as_of(*, workspace: HasGraph, as_of: str, since: str) -> AttentionThen:
    """What needed attention at `as_of` (a graph time; what happened since `since` counts as recent) and the totals
    by status then, in one query (docs/history.md, "Reading the past")."""
    rows = graph.ro_records(workspace, attention_as_of_query(), _params({"as_of": as_of, "since": since}))
    if not rows:
        return AttentionThen()
    row = rows[0]
    changed = row["changed"] or []
    counts: dict[str, Any] = {}
    for part in registry.ATTENTION_PARTS.values():
        if part.read_then is not None:
            counts.update(part.read_then(row, changed, as_of))
    return AttentionThen(counts, history_since=str(row["history_since"] or ""), created_at=str(row["created_at"] or ""))


HISTORY_SINCE = "MATCH (w:Workspace) RETURN w.history_since, w.created_at"


def history_since(*, workspace: HasGraph) -> tuple[str, str]:
    """When the workspace's history began (docs/history.md, "Migration") and when its graph was made; '' for what
    the graph does not say."""
    rows = graph.ro_query(workspace, HISTORY_SINCE)
    return (str(rows[0][0] or ""), str(rows[0][1] or "")) if rows else ("", "")
