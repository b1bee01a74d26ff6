"""The subgraph a correction, a retraction or a new version reads: what rests on the roots, in one read, and the
workspace's revision counter (the preview's fingerprint and the writes' compare-and-set)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from afterhack import graph
from afterhack.graph import HasGraph
from afterhack.ids import parse_id
from claims.graph.claims import CLAIM_PROPERTIES
from claims.graph.shapes import Claim
from corrections.propagation import DECISION, DERIVED, EVIDENCE, Action, Node

# What rests on the roots, in ONE read (a single query is atomic: the picture can never be mixed): the workspace's
# revision; the roots and the claims derived from them (chains of DERIVED_FROM, claims only), then the decisions those
# claims support and every decision resting on those (SUPPORTS chains: only a decision is ever supported, so every
# hop of one leads to a decision); each member with its justifications (every
# antecedent's kind and status); and the actions on those decisions. It starts from `roots` (a list of Claim nodes)
# and carries `claim` (the corrected claim as claims.graph.claims.CLAIM_MAP reads it, or null) to the end.
# The relationships name no labels at their ends: each joins one pair of labels only (DERIVED_FROM a claim to a claim,
# SUPPORTS a claim or a decision to a decision, DEPENDS_ON an action to a decision: claims/graph/claims.py, agents/graph/
# and corrections/graph/review.py make them so), and a label test is a step of its own for FalkorDB (about 0.1 ms of this read
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

# The corrected claim's own properties (as claims.graph.claims reads a claim's), then the picture of what rests on it:
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
