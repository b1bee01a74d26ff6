"""The graph read of the W3C PROV export (corrections/prov.py builds the document, with no store).

It reads every label of the because-chain (Source, SourceVersion, SourceFragment, Claim, Extraction, AgentRun,
Decision, Action, Correction, and a Suggestion a correction accepted) and the edges between them: corrections is the top graph app, the one that may read
all of them. Large texts (a version's text, a run's trajectory) are left out on purpose: the export names them by
hash and id; the quote a claim rests on is kept.
"""

from __future__ import annotations

from afterhack import graph
from afterhack.cypher import word
from afterhack.graph import HasGraph
from corrections.prov import ProvGraph
from corrections.statuses import SuggestionStatus

# The labels the export reads, and how many of their nodes there are (checked against the cap before reading).
PROV_LABELS = (
    "Source",
    "SourceVersion",
    "SourceFragment",
    "Claim",
    "Extraction",
    "AgentRun",
    "Decision",
    "Action",
    "Correction",
)
# A suggestion is part of the export once a correction accepted it (the correction used it): an agent's claim
# approved is `accepted` too, with no correction, and is not (its claim is, with its history).
ACCEPTED_BY_A_CORRECTION = f"n.status = {word(SuggestionStatus.ACCEPTED)} AND n.correction_id IS NOT NULL"
PROV_COUNT = (
    "MATCH (n) WHERE " + " OR ".join("n:" + label for label in PROV_LABELS)
    + f" OR (n:Suggestion AND {ACCEPTED_BY_A_CORRECTION}) RETURN count(n)"
)  # fmt: skip

# One map a node, the properties the export writes (by label; never a version's text or a run's trajectory).
PROV_NODES = (
    """
MATCH (n:Source) RETURN n {.id, .title, .status, .origin_type, .created_at, .created_by, .retracted_at,
       .retracted_by, label: 'Source'} AS node
UNION ALL MATCH (n:SourceVersion) RETURN n {.id, .version, .sha256, .length, .current, .created_at, .created_by,
       label: 'SourceVersion'} AS node
UNION ALL MATCH (n:SourceFragment) RETURN n {.id, .start, .end, .origin_type, .created_at,
       label: 'SourceFragment'} AS node
UNION ALL MATCH (n:Claim) RETURN n {.id, .statement, .status, .evidence_quote, .start, .end, .confidence,
       .confidence_kind, .extractor, .created_at, .created_by, .created_in, .status_changed_at, .retraction,
       .correction_id, label: 'Claim'} AS node
UNION ALL MATCH (n:Extraction) RETURN n {.id, .status, .extractor, .started_at, .updated_at, .version_id,
       label: 'Extraction'} AS node
UNION ALL MATCH (n:AgentRun) RETURN n {.id, .question, .status, .agent, .model, .created_at, .finished_at,
       .created_by, label: 'AgentRun'} AS node
UNION ALL MATCH (n:Decision) RETURN n {.id, .title, .rationale, .status, .kind, .question, .review_reason,
       .created_at, .created_by, .flagged_by, .run_id, label: 'Decision'} AS node
UNION ALL MATCH (n:Action) RETURN n {.id, .title, .status, .follow_up, .follow_up_reason, .created_at, .created_by,
  label: 'Action'} AS node
UNION ALL MATCH (n:Correction) RETURN n {.id, .statement, .reason, .actor, .applied_at, .claim_id,
       .replacement_claim_id, label: 'Correction'} AS node
UNION ALL MATCH (n:Suggestion) WHERE """
    + ACCEPTED_BY_A_CORRECTION
    + """
       RETURN n {.id, .statement, .reason, .found_by, .rule_kind, .claim_id, .by_claim_id, .correction_id,
       .created_at, .decided_at, .decided_by, .evidence_source_id, .evidence_quote, label: 'Suggestion'} AS node
"""
)

# One map an edge of the chain: from, to, type, and the justification number or the evidence role it carries.
PROV_EDGE_TYPES = [
    "HAS_VERSION", "HAS_FRAGMENT", "SUPPORTED_BY", "DERIVED_FROM", "SUPPORTS", "DEPENDS_ON", "CORRECTS",
    "SUPERSEDES", "OF", "PRODUCED", "RETRIEVED", "FOLLOWS_UP",
]  # fmt: skip
# A history record (:Change)-[:OF]->(node) shares the OF type with an extraction's edge to its version, and carries
# the id of the node it describes: it is not part of the chain (docs/history.md), so it is left out.
PROV_EDGES = """
MATCH (a)-[r]->(b) WHERE type(r) IN $types AND a.id IS NOT NULL AND b.id IS NOT NULL AND NOT a:Change
RETURN {source: a.id, target: b.id, type: type(r), justification: r.justification, role: r.role} AS edge
"""


def prov_node_count(*, workspace: HasGraph) -> int:
    """How many nodes the whole-workspace export would hold."""
    return int(graph.ro_query(workspace, PROV_COUNT)[0][0])


def prov_graph(*, workspace: HasGraph) -> ProvGraph:
    """Every node and edge of the workspace's because-chains (two reads; see the module's docstring)."""
    nodes = {node["id"]: node for node in graph.ro_records(workspace, PROV_NODES) if node.get("id")}
    edges = graph.ro_records(workspace, PROV_EDGES, {"types": PROV_EDGE_TYPES})
    return ProvGraph(nodes, edges)
