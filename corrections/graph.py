"""Belief maintenance in the graph: every write that changes what holds, with corrections/review_graph.py
(a reviewer's re-justify, revise and dismiss of a flagged decision).

It creates Correction, CorrectionTombstone, a correction's human_correction SourceFragment and
replacement Claim, CORRECTS and SUPERSEDES (review_graph.py: a revised Decision, its SUPPORTS and
SUPERSEDES); and these two modules alone change the statuses of the other apps' nodes after their
creation: a claim superseded, retracted or unsupported, a source retracted or given a new version,
a decision flagged, re-justified, revised (superseded) or dismissed, and an action held, pending
again or cancelled by those. It reads the claims' and agents' labels (Claim, DERIVED_FROM,
Decision, SUPPORTS, Action, DEPENDS_ON) to know what rests on what.

The writes span the claims' and agents' labels on purpose: each must be one atomic query, and it
belongs to the app that owns the operation (CONVENTIONS.md). What holds is afterhack.holds, the
same rule the propagation engine (corrections/propagation.py) judges by.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from afterhack import graph
from afterhack import history_graph as history
from afterhack.graph import REVISION_PLUS_ONE, HasGraph
from afterhack.history_graph import record_change
from afterhack.holds import claim_holds
from afterhack.ids import parse_id
from afterhack.listing_graph import after_params, keyset
from claims.graph.claims import CLAIM_PROPERTIES
from claims.graph.shapes import CITED_PASSAGE_ROLE, CitedPassage, Claim
from corrections.propagation import DECISION, DERIVED, EVIDENCE, Action, Node

# What rests on the roots, in ONE read (a single query is atomic: the picture can never be mixed): the workspace's
# revision; the roots and the claims derived from them (chains of DERIVED_FROM, claims only), then the decisions those
# claims support and every decision resting on those (SUPPORTS chains: only a decision is ever supported, so every
# hop of one leads to a decision); each member with its justifications (every
# antecedent's kind and status); and the actions on those decisions. It starts from `roots` (a list of Claim nodes)
# and carries `claim` (the corrected claim as claims.graph.CLAIM_MAP reads it, or null) to the end.
# The relationships name no labels at their ends: each joins one pair of labels only (DERIVED_FROM a claim to a claim,
# SUPPORTS a claim or a decision to a decision, DEPENDS_ON an action to a decision: claims/graph.py, agents/graph.py
# and review_graph.py make them so), and a label test is a step of its own for FalkorDB (about 0.1 ms of this read
# at 1M nodes). (Pattern comprehensions instead of OPTIONAL MATCH and collect would save 0.15 ms more, but FalkorDB
# 4.22 caches the plan of one whose relationship type did not exist yet as matching nothing, for ever: a new
# workspace's first preview would blind every later one. docs/benchmarks.md has the reproduction.)
# (Aggregates sit in a WITH of their own: an aggregate inside a map literal, or beside another expression, mis-groups
# in FalkorDB; `CASE size(x) WHEN 0 THEN [null]` keeps the one row when a list is empty.)
PICTURE = """
OPTIONAL MATCH (w:Workspace)
WITH claim, roots, w.revision AS revision
UNWIND (CASE size(roots) WHEN 0 THEN [null] ELSE roots END) AS root
OPTIONAL MATCH (root)<-[:DERIVED_FROM*1..]-(derived)
WITH claim, revision, roots, collect(DISTINCT derived) AS derived
WITH claim, revision, roots + derived AS claims
UNWIND (CASE size(claims) WHEN 0 THEN [null] ELSE claims END) AS c
OPTIONAL MATCH (c)-[:SUPPORTS*1..]->(d)
WITH claim, revision, claims, collect(DISTINCT d) AS decisions
UNWIND (CASE size(claims) WHEN 0 THEN [null] ELSE claims END) AS c
OPTIONAL MATCH (c)-[j:DERIVED_FROM]->(p)
WITH claim, revision, decisions, c, collect(CASE WHEN p IS NULL THEN NULL ELSE
     {justification: j.justification, id: p.id, label: 'Claim', status: p.status, version: p.version_id,
      kind: p.confidence_kind, title: p.statement} END) AS antes
WITH claim, revision, decisions, collect(CASE WHEN c IS NULL THEN NULL ELSE
     {id: c.id, label: 'Claim', status: c.status, version: c.version_id, kind: c.confidence_kind, title: c.statement,
      antes: antes} END) AS claim_members
UNWIND (CASE size(decisions) WHEN 0 THEN [null] ELSE decisions END) AS d
OPTIONAL MATCH (s)-[j:SUPPORTS]->(d)
WITH claim, revision, claim_members, decisions, d, collect(CASE WHEN s IS NULL THEN NULL ELSE
     {justification: j.justification, id: s.id, label: labels(s)[0], status: s.status, version: s.version_id,
      kind: s.confidence_kind, title: coalesce(s.title, s.statement)} END) AS antes
WITH claim, revision, claim_members, decisions, collect(CASE WHEN d IS NULL THEN NULL ELSE
     {id: d.id, label: 'Decision', status: d.status, version: null, kind: null, title: d.title, antes: antes} END)
     AS decision_members
UNWIND (CASE size(decisions) WHEN 0 THEN [null] ELSE decisions END) AS d
OPTIONAL MATCH (a)-[:DEPENDS_ON]->(d)
WITH claim, revision, claim_members, decision_members, collect(DISTINCT a) AS actions
UNWIND (CASE size(actions) WHEN 0 THEN [null] ELSE actions END) AS a
OPTIONAL MATCH (a)-[:DEPENDS_ON]->(on)
WITH claim, revision, claim_members, decision_members, a, collect(on.id) AS on
WITH claim, revision, claim_members, decision_members, collect(CASE WHEN a IS NULL THEN NULL ELSE
     {id: a.id, status: a.status, title: a.title, decision_ids: on} END) AS actions
RETURN {claim: claim, revision: revision, members: claim_members + decision_members, actions: actions} AS picture
"""

# The picture of what rests on several roots (a retraction, a new version): no claim is carried.
SUBGRAPH = (
    """
OPTIONAL MATCH (root:Claim) WHERE root.id IN $roots
WITH null AS claim, collect(root) AS roots
"""
    + PICTURE
)

# The corrected claim's own properties (as claims.graph reads a claim's), then the picture of what rests on it:
# everything a preview or an apply reads, in one query. No such claim: no row.
CORRECTION_PICTURE = "MATCH (c:Claim {id: $claim_id})\nWITH [c] AS roots, " + CLAIM_PROPERTIES + " AS claim\n" + PICTURE

REVISION = "MATCH (w:Workspace) RETURN w.revision"

# A preview's revision is this many bytes of a hash: a whole number that survives any JSON client
# (below 2**53), so no preview ever hands out one above MAX_REVISION.
REVISION_BYTES = 6
MAX_REVISION = 256**REVISION_BYTES - 1


@dataclass(frozen=True)
class Subgraph:
    """What the propagation engine needs about the roots' downstream, and the revision it was read at."""

    revision: int
    nodes: dict[str, Node]
    actions: list[Action]
    # Each node's and action's title (a claim's statement) as read: an Apply keeps them as the impact it had.
    titles: dict[str, str] = field(default_factory=dict)

    def fingerprint(self, *, independent_sources: bool, statement: str) -> int:
        """A number that changes exactly when something a correction of the roots depends on changes:
        the statuses and justifications of everything downstream, the actions on it, the policy,
        and the corrected statement itself (an Apply of another statement than the previewed one is stale)."""
        nodes = [
            [n.id, n.kind, n.status, n.version_id, n.expanded, sorted(sorted(j) for j in n.justifications)]
            for n in sorted(self.nodes.values(), key=lambda n: n.id)
        ]
        actions = [[a.id, a.status, sorted(a.decision_ids)] for a in sorted(self.actions, key=lambda a: a.id)]
        canonical = json.dumps([nodes, actions, independent_sources, statement], separators=(",", ":"))
        return int.from_bytes(hashlib.sha256(canonical.encode()).digest()[:REVISION_BYTES], "big")


def _kind(label: str, confidence_kind: str | None) -> str:
    if label == "Decision":
        return DECISION
    return DERIVED if confidence_kind == "derived" else EVIDENCE


def subgraph(*, workspace: HasGraph, roots: list[str], revision: int | None = None) -> Subgraph:
    """The roots, everything resting on them with its justifications, and the actions on those decisions, read in
    one query (so never a mixed picture), with the revision it was read at.

    A caller that read other things before (a retraction reads the source's claims) passes the revision it read
    first: anything that changed since then makes its write stale.
    """
    roots = [r for r in roots if parse_id(r)]
    rows = graph.ro_records(workspace, SUBGRAPH, {"roots": roots})
    sub = _picture(rows[0])
    return sub if revision is None else Subgraph(revision, sub.nodes, sub.actions, sub.titles)


def correction_picture(*, workspace: HasGraph, claim_id: str) -> tuple[Claim, Subgraph] | None:
    """The claim and the subgraph of what rests on it, in one read; None for no such claim. The claim has its own
    properties only: not its fragments, premises or neighbours by supersession (claim_get reads those)."""
    if parse_id(claim_id) is None:
        return None
    rows = graph.ro_records(workspace, CORRECTION_PICTURE, {"claim_id": claim_id})
    if not rows:
        return None
    own = {"claim": rows[0]["claim"], "fragments": [], "premises": [], "supersedes": None, "superseded_by": None}
    return Claim.from_map(own), _picture(rows[0])


def _picture(picture: dict[str, Any]) -> Subgraph:
    """The Subgraph of a PICTURE row: members expanded with their justifications, antecedents outside as read."""
    nodes: dict[str, Node] = {}
    titles: dict[str, str] = {}
    members = picture["members"]
    for member in members:
        for ante in member["antes"]:
            ante_id = ante["id"]
            titles.setdefault(ante_id, ante["title"] or "")
            if ante_id not in nodes:
                kind = _kind(ante["label"], ante["kind"])
                nodes[ante_id] = Node(ante_id, kind, ante["status"], (), ante["version"], expanded=False)
    for member in members:
        node_id = member["id"]
        kind = DECISION if member["label"] == "Decision" else _kind("Claim", member["kind"])
        titles[node_id] = member["title"] or ""
        groups: dict[int, set[str]] = {}
        for ante in member["antes"]:
            groups.setdefault(int(ante["justification"] or 0), set()).add(ante["id"])
        justifications = tuple(frozenset(ids) for _, ids in sorted(groups.items()))
        nodes[node_id] = Node(
            node_id,
            kind,
            member["status"],
            justifications if kind != EVIDENCE else (),
            member["version"],
            expanded=True,
        )
    actions = []
    for action in picture["actions"]:
        actions.append(Action(action["id"], action["status"], frozenset(action["decision_ids"])))
        titles[action["id"]] = action["title"] or ""
    return Subgraph(int(picture["revision"] or 0), nodes, actions, titles)


def workspace_revision(*, workspace: HasGraph) -> int:
    """The graph's revision counter: it goes up with every change a correction's preview depends on."""
    rows = graph.ro_query(workspace, REVISION)
    return int(rows[0][0]) if rows else 0


# What a decision's review state is besides its status: a flag overwrites it, so its Change keeps it.
DECISION_REVIEW_STATE = ("review_reason", "flagged_by", "dismissed_at")

# Each status it changes is recorded (afterhack/history_graph.py) before it is set: the cause is $cause (a
# correction, a retraction or a new version) and its id the anchor's (the Correction, Source or SourceVersion).
PROPAGATE = (
    """
CALL {
  WITH anchor
  UNWIND $claims_unsupported AS cid
  MATCH (c:Claim {id: cid})
  """
    + record_change("c", kind=history.CLAIM, to_status="'unsupported'", cause="$cause", cause_id="anchor.id",
                    actor="$actor")
    + """  SET c.status = 'unsupported', c.status_changed_at = $now
}
CALL {
  WITH anchor
  UNWIND $decisions_needing_review AS did
  MATCH (d:Decision {id: did})
  """
    + record_change("d", kind=history.DECISION, to_status="'needs_review'", cause="$cause", cause_id="anchor.id",
                    actor="$actor", before=DECISION_REVIEW_STATE)
    + """  SET d.status = 'needs_review', d.review_reason = $review_reason, d.flagged_by = $flagged_by, d.dismissed_at = null,
      d.status_changed_at = $now
}
CALL {
  WITH anchor
  UNWIND $actions_held AS aid
  MATCH (a:Action {id: aid})
  WHERE a.status = 'pending'
  """
    + record_change("a", kind=history.ACTION, to_status="'held'", cause="$cause", cause_id="anchor.id",
                    actor="$actor")
    + """  SET a.status = 'held', a.updated_at = $now
}
"""
)  # fmt: skip

# The whole correction in one query, only if the revision is still the one the preview saw, the
# claim is still current and a cited source version is still the current one of an active source:
# the old claim superseded (kept), the Correction with its own human_correction fragment, the
# replacement citing that fragment (and the fragments of the cited passage, if any), and the propagation.
# (The count of cited versions is grouped by `fenced`: an aggregate over no rows would make a row again.)
CORRECTION_APPLY = (
    """
OPTIONAL MATCH (fence:CorrectionTombstone {id: $correction_id})
WITH count(fence) AS fenced WHERE fenced = 0
OPTIONAL MATCH (v:SourceVersion {id: $cited_version_id})
OPTIONAL MATCH (s:Source {status: 'active'})-[:HAS_VERSION]->(v) WHERE v.current = true
WITH fenced, count(s) AS citable WHERE citable = $cited_versions
MATCH (w:Workspace) WHERE w.revision = $revision
MATCH (old:Claim {id: $claim_id}) WHERE """
    + claim_holds("old")
    + "\n"
    + record_change(
        "old",
        kind=history.CLAIM,
        to_status="'superseded'",
        cause=history.CORRECTION,
        cause_id="$correction_id",
        actor="$actor",
    )
    + """SET """
    + REVISION_PLUS_ONE
    + """, old.status = 'superseded', old.status_changed_at = $now
CREATE (correction:Correction {id: $correction_id, statement: $statement, reason: $reason, actor: $actor,
                               applied_at: $now, revision: $revision, idempotency_key: $idempotency_key,
                               claim_id: old.id, replacement_claim_id: $replacement_id, affected: $affected})
CREATE (correction)-[:CORRECTS]->(old)
CREATE (correction)-[:HAS_FRAGMENT]->(fragment:SourceFragment {id: $fragment_id, start: 0, end: $length,
        text: $statement, origin_type: 'human_correction', origin_name: 'Workspace reviewer correction',
        created_at: $now})
CREATE (replacement:Claim {id: $replacement_id, key: $replacement_id, statement: $statement,
        evidence_quote: $statement, start: 0, end: $length, confidence: 0.0, confidence_kind: 'human_correction',
        status: 'current', revision: 0, extractor: 'correction', source_id: null, version_id: null,
        correction_id: $correction_id, created_at: $now, created_by: $actor, cited_source_id: $cited.source_id,
        cited_version_id: $cited.version_id, cited_version: $cited.version, cited_quote: $cited.quote,
        cited_start: $cited.start, cited_end: $cited.end})
CREATE (replacement)-[:SUPPORTED_BY {role: 'reviewer_correction'}]->(fragment)
CREATE (replacement)-[:SUPERSEDES]->(old)
WITH correction AS anchor, replacement
CALL {
  WITH replacement
  UNWIND $cited_fragment_ids AS fid
  MATCH (:SourceVersion {id: $cited_version_id})-[:HAS_FRAGMENT]->(f:SourceFragment {id: fid})
  CREATE (replacement)-[:SUPPORTED_BY {role: $cited_role}]->(f)
}
WITH anchor
"""
    + PROPAGATE
    + "RETURN anchor.id"
)


def _cited_params(cited: CitedPassage | None) -> dict[str, Any]:
    if cited is None:
        return {"cited": {}, "cited_version_id": "", "cited_versions": 0, "cited_fragment_ids": [],
                "cited_role": CITED_PASSAGE_ROLE}  # fmt: skip
    return {
        "cited": cited.record(), "cited_version_id": cited.version_id, "cited_versions": 1,
        "cited_fragment_ids": [f.id for f in cited.fragments], "cited_role": CITED_PASSAGE_ROLE,
    }  # fmt: skip


def correction_apply(
    *,
    workspace: HasGraph,
    revision: int,
    claim_id: str,
    correction_id: str,
    fragment_id: str,
    replacement_id: str,
    statement: str,
    reason: str,
    actor: str,
    idempotency_key: str,
    affected: dict[str, list[str]],
    review_reason: str,
    now: str,
    cited: CitedPassage | None = None,
) -> bool:
    """Writes the correction and its propagation atomically; False (nothing written) if the revision moved,
    the claim is not current, or the cited version is no longer the current one of an active source."""
    params = {
        **_cited_params(cited),
        "revision": revision, "claim_id": claim_id, "correction_id": correction_id, "fragment_id": fragment_id,
        "replacement_id": replacement_id, "statement": statement, "length": len(statement), "reason": reason,
        "actor": actor, "idempotency_key": idempotency_key, "affected": json.dumps(affected), "now": now,
        "claims_unsupported": affected["claims_unsupported"],
        "decisions_needing_review": affected["decisions_needing_review"],
        "actions_held": affected["actions_held"], "review_reason": review_reason, "flagged_by": correction_id,
        "cause": history.CORRECTION,
    }  # fmt: skip
    return bool(graph.query(workspace, CORRECTION_APPLY, params))


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


# Settling a pending intent as failed first fences its correction id: should its graph write
# still be on its way (the client gave up, the server did not), it then writes nothing.
# (Counted, not `WITH x WHERE x IS NULL`: FalkorDB 4.22 does not filter that before a MERGE.)
CORRECTION_FENCE = """
OPTIONAL MATCH (x:Correction {id: $correction_id})
WITH count(x) AS written WHERE written = 0
MERGE (t:CorrectionTombstone {id: $correction_id})
ON CREATE SET t.created_at = $now
RETURN t.id
"""


def correction_fence(*, workspace: HasGraph, correction_id: str, now: str) -> bool:
    """Makes sure a correction id can never be written; False if the correction is already there."""
    return bool(graph.query(workspace, CORRECTION_FENCE, {"correction_id": correction_id, "now": now}))


CORRECTION_EXISTS = """
MATCH (x:Correction {id: $correction_id})
OPTIONAL MATCH (new:Claim {id: x.replacement_claim_id})
RETURN {replacement_claim_id: x.replacement_claim_id, affected: x.affected,
        cited: new {source_id: new.cited_source_id, version_id: new.cited_version_id, version: new.cited_version,
                    quote: new.cited_quote, start: new.cited_start, end: new.cited_end}} AS written
"""


@dataclass(frozen=True)
class Written:
    """What the graph holds of a correction: its replacement, what it did, and the passage it cites."""

    replacement_claim_id: str
    affected: dict[str, list[str]]
    # {"source_id", "version_id", "version", "quote", "start", "end"}, or None when it cites no passage.
    cited: dict[str, Any] | None


def correction_written(*, workspace: HasGraph, correction_id: str) -> Written | None:
    """The correction as the graph holds it, or None if it was never written (used by recovery and replays)."""
    rows = graph.ro_records(workspace, CORRECTION_EXISTS, {"correction_id": correction_id})
    if not rows:
        return None
    cited = rows[0]["cited"]
    return Written(
        replacement_claim_id=rows[0]["replacement_claim_id"],
        affected=json.loads(rows[0]["affected"] or "{}"),
        cited=cited if cited and cited["version_id"] else None,
    )


# The claim's source, the decisions resting on it (directly, or through claims derived from it), each with
# its actions, the derived claims with the decisions each leads to, and its corrections.
CHAIN = """
MATCH (c:Claim {id: $claim_id})
OPTIONAL MATCH (c)-[:SUPPORTED_BY {role: 'evidence'}]->(:SourceFragment)<-[:HAS_FRAGMENT]-(:SourceVersion)<-[:HAS_VERSION]-(s:Source)
OPTIONAL MATCH (c)-[:SUPPORTS]->(:Decision)-[:SUPPORTS*0..]->(d:Decision)
WITH c, collect(DISTINCT s {.id, .title, .status})[0] AS source, collect(DISTINCT d) AS direct
OPTIONAL MATCH (c)<-[:DERIVED_FROM*1..]-(dc:Claim)
OPTIONAL MATCH (dc)-[:SUPPORTS]->(:Decision)-[:SUPPORTS*0..]->(dd:Decision)
WITH c, source, direct, dc, collect(DISTINCT dd) AS through
WITH c, source, direct, collect(through) AS throughs,
     collect(CASE WHEN dc IS NULL THEN NULL ELSE dc {.id, .statement, .status, decision_ids: [x IN through | x.id]} END)
     AS derived
WITH c, source, derived, reduce(acc = direct, t IN throughs | acc + t) AS decisions
UNWIND (CASE WHEN size(decisions) = 0 THEN [null] ELSE decisions END) AS d
OPTIONAL MATCH (a:Action)-[:DEPENDS_ON]->(d)
WITH c, source, derived, d, collect(DISTINCT a {.id, .title, .status}) AS actions
WITH c, source, derived,
     collect(CASE WHEN d IS NULL THEN NULL ELSE [d {.id, .title, .status, .review_reason}, actions] END) AS decisions
OPTIONAL MATCH (x:Correction) WHERE x.claim_id = c.id OR x.replacement_claim_id = c.id
WITH source, decisions, derived,
     collect(x {.id, .statement, .reason, .actor, .applied_at, .claim_id, .replacement_claim_id}) AS corrections
RETURN {source: source, decisions: decisions, derived: derived, corrections: corrections} AS chain
"""


@dataclass(frozen=True)
class Chain:
    """A claim's because-chain for the product view and for agents."""

    # {"id", "title", "status"} of the source the claim quotes, or None.
    source: dict[str, Any] | None
    # (decision, its actions): each decision {"id", "title", "status", "review_reason", "via"} resting on the
    # claim, where "via" lists the derived claims it rests on the claim through (empty when it rests on it directly).
    decisions: list[tuple[dict[str, Any], list[dict[str, Any]]]]
    # {"id", "statement", "status", "decision_ids"} of each claim derived from the claim, at any depth.
    derived: list[dict[str, Any]]
    corrections: list[dict[str, Any]]


def claim_chain(*, workspace: HasGraph, claim_id: str) -> Chain | None:
    """For the product view: the claim's source, what rests on it (derived claims, decisions and their actions),
    its corrections; None for no such claim."""
    if parse_id(claim_id) is None:
        return None
    rows = graph.ro_records(workspace, CHAIN, {"claim_id": claim_id})
    if not rows:
        return None
    chain = rows[0]
    derived = {claim["id"]: claim for claim in chain["derived"] if claim}
    decisions = []
    for entry in chain["decisions"]:
        if entry:
            decision, actions = entry
            via = [
                {k: v[k] for k in ("id", "statement", "status")}
                for v in derived.values()
                if decision["id"] in v["decision_ids"]
            ]
            decisions.append(({**decision, "via": via}, actions))
    return Chain(chain["source"], decisions, list(derived.values()), [x for x in chain["corrections"] if x])


# -- evidence that goes away -----------------------------------------------------------------------


RETRACT = (
    """
CALL {
  WITH anchor
  UNWIND $retracted AS cid
  MATCH (c:Claim {id: cid})
  WHERE """
    + claim_holds("c")
    + "\n  "
    + record_change(
        "c", kind=history.CLAIM, to_status="'retracted'", cause="$cause", cause_id="anchor.id", actor="$actor"
    )
    + """  SET c.status = 'retracted', c.retraction = $retraction, c.status_changed_at = $now
}
"""
)

SOURCE_RETRACT = (
    "MATCH (w:Workspace) WHERE w.revision = $revision "
    "MATCH (anchor:Source {id: $source_id}) WHERE anchor.status = 'active' "
    "SET "
    + REVISION_PLUS_ONE
    + ", anchor.status = 'retracted', anchor.retracted_at = $now, anchor.retracted_by = $actor "
    "WITH anchor " + RETRACT + PROPAGATE + "RETURN anchor.id"
)


def _propagation_params(affected: dict[str, list[str]], review_reason: str) -> dict[str, Any]:
    return {
        "claims_unsupported": affected["claims_unsupported"],
        "decisions_needing_review": affected["decisions_needing_review"],
        "actions_held": affected["actions_held"],
        "review_reason": review_reason,
        "flagged_by": None,
    }


def source_retract(
    *, workspace: HasGraph, revision: int, source_id: str, retracted: list[str], affected: dict[str, list[str]],
    review_reason: str, actor: str, now: str,
) -> bool:  # fmt: skip
    """Retracts the source and its current claims and writes the propagation, in one query; False if the revision moved."""
    params = {
        "revision": revision, "source_id": source_id, "retracted": retracted, "retraction": "source_retracted",
        "cause": history.RETRACTION, "actor": actor, "now": now, **_propagation_params(affected, review_reason),
    }  # fmt: skip
    return bool(graph.query(workspace, SOURCE_RETRACT, params))


# A claim moved to a new version keeps its status; its Change keeps the evidence it had (version, offsets, and
# each SUPPORTED_BY as 'role:fragment id': the edges are replaced), so an as-of read can show it as it was.
MOVED_RECORD = record_change(
    "c",
    kind=history.CLAIM,
    to_status="c.status",
    cause=history.NEW_VERSION,
    cause_id="anchor.id",
    actor="$actor",
    before=("version_id", "start", "end", "moved_from"),
    also={"from_supported_by": "cited"},
)

# The new version with its fragments; claims whose quote is still in the text move to it (new
# offsets, new fragments); the others are retracted; and the propagation — all in one query.
SOURCE_NEW_VERSION = (
    "MATCH (w:Workspace) WHERE w.revision = $revision "
    "MATCH (s:Source {id: $source_id})-[:HAS_VERSION]->(old:SourceVersion {id: $old_version_id}) "
    "WHERE old.current = true AND s.status = 'active' "
    "SET " + REVISION_PLUS_ONE + ", old.current = false "
    "CREATE (s)-[:HAS_VERSION]->(anchor:SourceVersion {id: $version_id, version: old.version + 1, sha256: $sha256, "
    "text: $text, length: $length, current: true, created_at: $now, created_by: $actor}) "
    "WITH anchor "
    "CALL { WITH anchor UNWIND $fragments AS f "
    "  CREATE (anchor)-[:HAS_FRAGMENT]->(:SourceFragment {id: f.id, start: f.start, end: f.end, text: f.text, "
    "  origin_type: 'document', created_at: $now}) } "
    "CALL { WITH anchor UNWIND $moved AS m MATCH (c:Claim {id: m.id}) "
    "  OPTIONAL MATCH (c)-[was:SUPPORTED_BY]->(wf:SourceFragment) "
    "  WITH anchor, c, m, collect(was.role + ':' + wf.id) AS cited "
    + MOVED_RECORD
    + "  SET c.start = m.start, c.end = m.end, c.version_id = anchor.id, c.moved_from = m.from_version "
    "  WITH c, m OPTIONAL MATCH (c)-[r:SUPPORTED_BY]->() DELETE r "
    "  WITH DISTINCT c, m UNWIND m.fragment_ids AS fid MATCH (f:SourceFragment {id: fid}) "
    "  CREATE (c)-[:SUPPORTED_BY {role: 'evidence'}]->(f) } " + RETRACT + PROPAGATE + "RETURN anchor.id"
)


def source_new_version(
    *, workspace: HasGraph, revision: int, source_id: str, old_version_id: str, version_id: str, text: str,
    sha256: str, fragments: list[dict[str, Any]], moved: list[dict[str, Any]], retracted: list[str],
    affected: dict[str, list[str]], review_reason: str, actor: str, now: str,
) -> bool:  # fmt: skip
    """Writes the new version, moved claims, retracted claims and the propagation in one query; False if anything moved."""
    params = {
        "revision": revision, "source_id": source_id, "old_version_id": old_version_id, "version_id": version_id,
        "text": text, "sha256": sha256, "length": len(text), "fragments": fragments, "moved": moved,
        "retracted": retracted, "retraction": "quote_vanished", "cause": history.NEW_VERSION, "actor": actor, "now": now,
        **_propagation_params(affected, review_reason),
    }  # fmt: skip
    return bool(graph.query(workspace, SOURCE_NEW_VERSION, params))
