"""The workspace's slice of its graph: the graph's lifecycle, its indexes and its revision counter."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from afterhack import graph
from afterhack import history_graph as history
from afterhack.graph import BUMP_REVISION, HasGraph
from afterhack.history_graph import ACTION, CLAIM, DECISION
from agents.statuses import ActionStatus, DecisionKind, DecisionStatus
from claims.statuses import ClaimStatus, JobStatus

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
def is_time(prop: str) -> bool:
    """A property holding a time (ISO 8601 text): `at`, `*_at`, `*_since`."""
    return prop == "at" or prop.endswith(("_at", "_since"))


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
# unanswered question as agents/graph/decisions.py DECISION_KIND says: its `kind`, or, on a graph written before
# decisions stored one, an agent's decision that nothing supports (only the "no answer" decision is made so).
UNANSWERED = """coalesce(d.kind, CASE WHEN d.origin = 'agent' AND size([(x)-[:SUPPORTS]->(d) | x]) = 0
                           THEN $unanswered ELSE 'answered' END) = $unanswered"""
ATTENTION = (
    """
OPTIONAL MATCH (s:Source) WITH count(s) AS sources
OPTIONAL MATCH (c:Claim) WITH sources, count(c) AS claims
OPTIONAL MATCH (d:Decision)
WITH sources, claims, d, d.status = $needs_review AND d.dismissed_at IS NULL AS open,
     """
    + UNANSWERED
    + """ AS unanswered
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
)

# The claims' words for lexical search (claims/fulltext.py says what a match is): English stemming and no stop
# words, so that every word of a phrase counts. That is what FalkorDB 4.x gives an index made without options
# (`createNodeIndex('Claim', 'statement')`, as earlier builds made it: db.indexes reports the same language and
# stop words, and "the" is indexed), so existing graphs keep theirs; the options are spelled out here to say so.
FULLTEXT_CLAIM_STATEMENT = (
    "CALL db.idx.fulltext.createNodeIndex({label: 'Claim', stopwords: [], language: 'english'}, 'statement')"
)


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
    for label, prop, kind in existing:
        # A time range-indexed by an earlier build answers windows wrongly (see EXTRA_RANGE_INDEXES): drop it. The
        # names are the graph's own, checked to be plain names before they go into the query.
        if kind == "RANGE" and is_time(prop) and label.isidentifier() and prop.isidentifier():
            graph.query(workspace, "DROP INDEX FOR (n:" + label + ") ON (n." + prop + ")")
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


# -- the dashboard as of a moment (docs/history.md, "Reading the past") -----------------------------------------
#
# Counted as the present is, then corrected by what changed since: the nodes made by $as_of are counted by their
# present status (scans with a few groups each), and each node changed after $as_of comes with its first change
# since (its status then: the from_status, or a migrated baseline's to_status) for `attention_as_of` to move it
# from its present count to its count then. Only the nodes changed since the moment are read one by one, so the
# cost follows the changes since, not the workspace's size. One query, so one consistent moment of the graph.
# Extractions are not in the history and are left out; the members are PostgreSQL's, counted in the present.
DECISION_OPEN = "d.status = $needs_review AND (d.dismissed_at IS NULL OR d.dismissed_at > $as_of)"

ATTENTION_AS_OF = (
    """
OPTIONAL MATCH (w:Workspace)
CALL { OPTIONAL MATCH (s:Source) WHERE coalesce(s.created_at, '') <= $as_of RETURN count(s) AS sources }
CALL { OPTIONAL MATCH (x:Correction) WHERE x.applied_at <= $as_of
       RETURN count(x) AS corrections,
              sum(CASE WHEN x.applied_at >= $corrections_since THEN 1 ELSE 0 END) AS corrections_recent }
CALL { MATCH (c:Claim) WHERE coalesce(c.created_at, '') <= $as_of
       WITH c.status AS status, count(c) AS n RETURN collect([status, n]) AS claims }
CALL { MATCH (a:Action) WHERE coalesce(a.created_at, '') <= $as_of
       WITH a.status AS status, count(a) AS n RETURN collect([status, n]) AS actions }
CALL { MATCH (d:Decision) WHERE coalesce(d.created_at, '') <= $as_of
       WITH d.status AS status, """ + DECISION_OPEN + " AS open, " + UNANSWERED + """ AS unanswered, count(d) AS n
       RETURN collect([status, open, unanswered, n]) AS decisions }
CALL { MATCH (h:""" + history.CHANGE_LABEL + """) WHERE h.at > $as_of
       WITH h.id AS id, min(h.at) AS first_at, collect(h) AS hs
       WITH [x IN hs WHERE x.at = first_at][0] AS first
       MATCH (first)-[:""" + history.CHANGE_OF + """]->(d) WHERE coalesce(d.created_at, '') <= $as_of
       RETURN collect({kind: first.kind, now: d.status, then: coalesce(first.from_status, first.to_status),
                       open_now: first.kind = 'decision' AND """ + DECISION_OPEN + """,
                       dismissed_then: CASE WHEN first.cause = '""" + history.MIGRATION + """' THEN d.dismissed_at
                                            ELSE first.from_dismissed_at END,
                       unanswered: first.kind = 'decision' AND """ + UNANSWERED + """}) AS changed }
RETURN {history_since: w.history_since, created_at: w.created_at, sources: sources, corrections: corrections,
        corrections_recent: corrections_recent, claims: claims, actions: actions, decisions: decisions,
        changed: changed} AS attention
"""
)  # fmt: skip


@dataclass(frozen=True)
class AttentionThen:
    """What needed attention at a moment and what the graph held then: counts by status, of each kind."""

    lost_support: int = 0
    unanswered: int = 0
    corrections_recent: int = 0
    sources: int = 0
    corrections: int = 0
    claims: dict[str, int] = field(default_factory=dict)
    decisions: dict[str, int] = field(default_factory=dict)
    actions: dict[str, int] = field(default_factory=dict)
    # When the workspace's history began, and when its graph was made ('' when the graph does not say).
    history_since: str = ""
    created_at: str = ""

    @property
    def held(self) -> int:
        return self.actions.get(ActionStatus.HELD, 0)

    @property
    def claims_total(self) -> int:
        return sum(self.claims.values())

    @property
    def decisions_total(self) -> int:
        return sum(self.decisions.values())

    @property
    def actions_total(self) -> int:
        return sum(self.actions.values())


def attention_as_of(*, workspace: HasGraph, as_of: str, corrections_since: str) -> AttentionThen:
    """What needed attention at `as_of` (a graph time; corrections applied since `corrections_since` count as
    recent) and the totals by status then, in one query (docs/history.md, "Reading the past")."""
    params = {
        "as_of": as_of, "corrections_since": corrections_since, "needs_review": DecisionStatus.NEEDS_REVIEW,
        "unanswered": DecisionKind.UNANSWERED,
    }  # fmt: skip
    rows = graph.ro_records(workspace, ATTENTION_AS_OF, params)
    if not rows:
        return AttentionThen()
    row = rows[0]
    counts: dict[str, Counter[str]] = {kind: Counter() for kind in (CLAIM, DECISION, ACTION)}
    for status, n in row["claims"] or []:
        counts[CLAIM][status] += n
    for status, n in row["actions"] or []:
        counts[ACTION][status] += n
    open_counts: Counter[bool] = Counter()  # open decisions, by whether they are unanswered questions
    for status, is_open, unanswered, n in row["decisions"] or []:
        counts[DECISION][status] += n
        open_counts[bool(unanswered)] += n if is_open else 0
    for node in row["changed"] or []:
        # Moved from its present count to its count then.
        counts[node["kind"]][node["now"]] -= 1
        counts[node["kind"]][node["then"]] += 1
        if node["kind"] == DECISION:
            dismissed = node["dismissed_then"]
            open_then = node["then"] == DecisionStatus.NEEDS_REVIEW and (not dismissed or dismissed > as_of)
            open_counts[bool(node["unanswered"])] += int(open_then) - int(bool(node["open_now"]))
    return AttentionThen(
        lost_support=open_counts[False], unanswered=open_counts[True],
        corrections_recent=int(row["corrections_recent"] or 0), sources=int(row["sources"] or 0),
        corrections=int(row["corrections"] or 0),
        claims={str(s): counts[CLAIM][s] for s in ClaimStatus}, decisions={str(s): counts[DECISION][s] for s in DecisionStatus},
        actions={str(s): counts[ACTION][s] for s in ActionStatus},
        history_since=str(row["history_since"] or ""), created_at=str(row["created_at"] or ""),
    )  # fmt: skip


HISTORY_SINCE = "MATCH (w:Workspace) RETURN w.history_since, w.created_at"


def history_since(*, workspace: HasGraph) -> tuple[str, str]:
    """When the workspace's history began (docs/history.md, "Migration") and when its graph was made; '' for what
    the graph does not say."""
    rows = graph.ro_query(workspace, HISTORY_SINCE)
    return (str(rows[0][0] or ""), str(rows[0][1] or "")) if rows else ("", "")
