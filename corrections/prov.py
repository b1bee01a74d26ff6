"""The because-chain as W3C PROV (docs/prov.md): which part of the graph a root's chain is, and the PROV document
of it, with no store access (the read is corrections/graph/prov.py, through corrections/selectors/prov.py)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from prov.model import PROV, Namespace, ProvDocument, QualifiedName

# The most nodes one export holds (the whole workspace, or a root's chain): beyond it the answer is a 422 in
# words, never a document that takes minutes and hundreds of megabytes to build.
MAX_PROV_NODES = 10_000

VOCABULARY = Namespace("ah", "urn:afterhack:vocab#")
PEOPLE = Namespace("person", "urn:afterhack:person:")
SOFTWARE = Namespace("software", "urn:afterhack:software:")


class ProvFormat(StrEnum):
    """The serializations the export answers in."""

    JSON = "json"
    TURTLE = "ttl"
    PROVN = "provn"


CONTENT_TYPES = {
    ProvFormat.JSON: "application/json",
    ProvFormat.TURTLE: "text/turtle; charset=utf-8",
    ProvFormat.PROVN: "text/provenance-notation; charset=utf-8",
}
FILE_SUFFIXES = {ProvFormat.JSON: "json", ProvFormat.TURTLE: "ttl", ProvFormat.PROVN: "provn"}


@dataclass
class ProvGraph:
    """The nodes (by id: their properties and `label`) and the edges an export is built from
    (read by corrections/graph/prov.py)."""

    nodes: dict[str, dict[str, Any]] = field(default_factory=dict)
    edges: list[dict[str, Any]] = field(default_factory=list)


def workspace_namespace(workspace_id: str) -> Namespace:
    """The namespace of a workspace's ids: each node's id is its local name."""
    return Namespace("ws", f"urn:afterhack:workspace:{workspace_id}:")


def local_name(text: str) -> str:
    """`text` as a local name every serialization reads back: letters, digits, _ and - as they are, the rest %XX."""
    return "".join(
        ch if ch.isascii() and (ch.isalnum() or ch in "_-") else "".join(f"%{b:02X}" for b in ch.encode())
        for ch in text
    )


# -- which part of the graph a chain is -------------------------------------------------------------------------


def _neighbours(subgraph: ProvGraph) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """For each node, what it rests on (upstream) and what rests on it (downstream)."""
    upstream: dict[str, set[str]] = {}
    downstream: dict[str, set[str]] = {}

    def rests(node: str, on: str) -> None:
        upstream.setdefault(node, set()).add(on)
        downstream.setdefault(on, set()).add(node)

    for edge in subgraph.edges:
        source, target, kind = edge["source"], edge["target"], edge["type"]
        if kind in ("SUPPORTED_BY", "DERIVED_FROM", "DEPENDS_ON", "FOLLOWS_UP"):
            rests(source, target)
        elif kind in ("HAS_FRAGMENT", "HAS_VERSION", "SUPPORTS"):
            rests(target, source)
    return upstream, downstream


def _closure(start: str, links: dict[str, set[str]]) -> set[str]:
    seen, todo = {start}, [start]
    while todo:
        for other in links.get(todo.pop(), ()):
            if other not in seen:
                seen.add(other)
                todo.append(other)
    return seen


def chain_of(subgraph: ProvGraph, root: str) -> ProvGraph:
    """The root's because-chain: everything it rests on down to the sources, everything resting on it up to the
    actions (with what else those rest on directly), and the corrections, extractions and agent runs that made,
    used or invalidated any of it, with what a correction replaced and wrote."""
    nodes = subgraph.nodes
    upstream, downstream = _neighbours(subgraph)
    below = _closure(root, downstream)
    kept = _closure(root, upstream) | below
    kept |= {other for node in below for other in upstream.get(node, ())}
    corrections = {
        n["id"]
        for n in nodes.values()
        if n["label"] == "Correction" and (n.get("claim_id") in kept or n.get("replacement_claim_id") in kept)
    }
    own_fragments = {e["target"]: e["source"] for e in subgraph.edges if e["type"] == "HAS_FRAGMENT"}
    for correction in corrections:
        kept |= {correction, str(nodes[correction].get("claim_id")), str(nodes[correction].get("replacement_claim_id"))}
    # The suggestion a correction accepted is part of its provenance (with the newer claim that said so).
    for n in nodes.values():
        if n["label"] == "Suggestion" and n.get("correction_id") in corrections:
            kept |= {n["id"], str(n.get("claim_id")), str(n.get("by_claim_id"))}
    kept |= {fragment for fragment, owner in own_fragments.items() if owner in corrections}
    kept |= {n["created_in"] for n in nodes.values() if n["id"] in kept and n.get("created_in") in nodes}
    kept |= {e["source"] for e in subgraph.edges if e["type"] == "PRODUCED" and e["target"] in kept}
    kept = {node for node in kept if node in nodes}
    edges = [e for e in subgraph.edges if e["source"] in kept and e["target"] in kept]
    return ProvGraph({node: nodes[node] for node in kept}, edges)


# -- the PROV document ----------------------------------------------------------------------------------------


def _time(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(value) if isinstance(value, str) and value else None
    except ValueError:
        return None


def _attributes(pairs: Iterable[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """The attributes that have a value (PROV has no null)."""
    return [(name, value) for name, value in pairs if value is not None and value != ""]


class _Builder:
    """Writes one workspace's nodes and edges into a ProvDocument (see docs/prov.md for the mapping)."""

    def __init__(self, subgraph: ProvGraph, workspace_id: str) -> None:
        self.graph = subgraph
        self.document = ProvDocument()
        self.ws = self.document.add_namespace(workspace_namespace(workspace_id))
        for namespace in (VOCABULARY, PEOPLE, SOFTWARE):
            self.document.add_namespace(namespace)
        self.people: set[str] = set()
        self.software: set[str] = set()
        self.generated: set[str] = set()
        # The claim or decision each replacement or revision takes the place of (SUPERSEDES).
        self.supersedes = {e["source"]: e["target"] for e in subgraph.edges if e["type"] == "SUPERSEDES"}
        # The suggestions each correction accepted.
        self.accepted: dict[str, list[str]] = {}
        for node in subgraph.nodes.values():
            if node["label"] == "Suggestion" and node.get("correction_id"):
                self.accepted.setdefault(node["correction_id"], []).append(node["id"])

    def id(self, node_id: str) -> QualifiedName:
        return self.ws[node_id]

    def person(self, username: Any) -> QualifiedName | None:
        if not isinstance(username, str) or not username:
            return None
        name = PEOPLE[local_name(username)]
        if username not in self.people:
            self.people.add(username)
            self.document.agent(name, {PROV["type"]: PROV["Person"], PROV["label"]: username})
        return name

    def program(self, kind: str, label: str) -> QualifiedName:
        name = SOFTWARE[local_name(kind)]
        if kind not in self.software:
            self.software.add(kind)
            self.document.agent(name, {PROV["type"]: PROV["SoftwareAgent"], PROV["label"]: label})
        return name

    def build(self) -> ProvDocument:
        by_label: dict[str, list[dict[str, Any]]] = {}
        for node in sorted(self.graph.nodes.values(), key=lambda n: (n.get("created_at") or "", n["id"])):
            by_label.setdefault(node["label"], []).append(node)
        for label in ("Source", "SourceVersion", "SourceFragment", "Claim", "Decision", "Action", "Suggestion"):
            for node in by_label.get(label, []):
                getattr(self, "entity_" + label.lower())(node)
        for label in ("Extraction", "AgentRun", "Correction"):
            for node in by_label.get(label, []):
                getattr(self, "activity_" + label.lower())(node)
        for edge in self.graph.edges:
            self.relation(edge)
        self.attributions()
        return self.document

    def entity(self, node: dict[str, Any], kind: str, label: Any, *pairs: tuple[str, Any]) -> None:
        attributes = [(PROV["type"], VOCABULARY[kind]), (PROV["label"], label)]
        attributes += [(VOCABULARY[name], value) for name, value in pairs]
        self.document.entity(self.id(node["id"]), _attributes(attributes))

    def entity_source(self, node: dict[str, Any]) -> None:
        self.entity(node, "Source", node.get("title"), ("status", node.get("status")),
                    ("origin_type", node.get("origin_type")), ("retracted_at", node.get("retracted_at")))  # fmt: skip
        if node.get("status") == "retracted":
            self.document.wasInvalidatedBy(self.id(node["id"]), None, _time(node.get("retracted_at")))

    def entity_sourceversion(self, node: dict[str, Any]) -> None:
        self.entity(node, "SourceVersion", f"version {node.get('version')}", ("version", node.get("version")),
                    ("sha256", node.get("sha256")), ("length", node.get("length")),
                    ("current", node.get("current")))  # fmt: skip

    def entity_sourcefragment(self, node: dict[str, Any]) -> None:
        self.entity(node, "SourceFragment", None, ("start", node.get("start")), ("end", node.get("end")),
                    ("origin_type", node.get("origin_type")))  # fmt: skip

    def entity_claim(self, node: dict[str, Any]) -> None:
        self.entity(node, "Claim", node.get("statement"), ("statement", node.get("statement")),
                    ("status", node.get("status")), ("confidence", node.get("confidence")),
                    ("confidence_kind", node.get("confidence_kind")), ("extractor", node.get("extractor")),
                    ("supersedes", self.replaces(node)), ("created_at", node.get("created_at")))  # fmt: skip
        if node.get("status") == "retracted":
            self.document.wasInvalidatedBy(
                self.id(node["id"]), None, _time(node.get("status_changed_at")),
                other_attributes=_attributes([(VOCABULARY["retraction"], node.get("retraction"))]),
            )  # fmt: skip
        creator = self.graph.nodes.get(node.get("created_in") or "")
        if creator is not None and creator["label"] == "Extraction":
            self.generate(node, creator["id"], node.get("created_at"))

    def entity_decision(self, node: dict[str, Any]) -> None:
        flagged_by = node.get("flagged_by")
        self.entity(node, "Decision", node.get("title"), ("title", node.get("title")),
                    ("rationale", node.get("rationale")), ("status", node.get("status")), ("kind", node.get("kind")),
                    ("question", node.get("question")), ("review_reason", node.get("review_reason")),
                    ("flagged_by", self.id(flagged_by) if flagged_by in self.graph.nodes else None),
                    ("supersedes", self.replaces(node)), ("created_at", node.get("created_at")))  # fmt: skip

    def entity_action(self, node: dict[str, Any]) -> None:
        """An action; a done one whose decision lost its support carries its follow-up state (and the reason none is
        needed)."""
        self.entity(node, "Action", node.get("title"), ("title", node.get("title")), ("status", node.get("status")),
                    ("follow_up", node.get("follow_up")), ("follow_up_reason", node.get("follow_up_reason")),
                    ("created_at", node.get("created_at")))  # fmt: skip

    def entity_suggestion(self, node: dict[str, Any]) -> None:
        """A suggested correction that a correction accepted: an entity the correction used, derived from the newer
        claim that said otherwise (when it was found between two claims)."""
        self.entity(node, "Suggestion", node.get("statement"), ("statement", node.get("statement")),
                    ("reason", node.get("reason")), ("found_by", node.get("found_by")),
                    ("rule_kind", node.get("rule_kind")), ("quote", node.get("evidence_quote")),
                    ("created_at", node.get("created_at")))  # fmt: skip
        by = node.get("by_claim_id")
        if by in self.graph.nodes:
            self.document.wasDerivedFrom(self.id(node["id"]), self.id(by))

    def replaces(self, node: dict[str, Any]) -> QualifiedName | None:
        old = self.supersedes.get(node["id"])
        return self.id(old) if old in self.graph.nodes else None

    def generate(self, node: dict[str, Any], activity_id: str, at: Any) -> None:
        self.generated.add(node["id"])
        self.document.wasGeneratedBy(self.id(node["id"]), self.id(activity_id), _time(at))

    def activity_extraction(self, node: dict[str, Any]) -> None:
        done = node.get("status") == "done"
        name = self.id(node["id"])
        self.document.activity(name, _time(node.get("started_at")), _time(node.get("updated_at")) if done else None,
                               _attributes([(PROV["type"], VOCABULARY["Extraction"]),
                                            (VOCABULARY["status"], node.get("status")),
                                            (VOCABULARY["extractor"], node.get("extractor"))]))  # fmt: skip
        extractor = str(node.get("extractor") or "extractor")
        self.document.wasAssociatedWith(name, self.program("extractor-" + extractor, f"extractor {extractor}"))

    def activity_agentrun(self, node: dict[str, Any]) -> None:
        name = self.id(node["id"])
        self.document.activity(name, _time(node.get("created_at")), _time(node.get("finished_at")),
                               _attributes([(PROV["type"], VOCABULARY["AgentRun"]),
                                            (VOCABULARY["question"], node.get("question")),
                                            (VOCABULARY["status"], node.get("status"))]))  # fmt: skip
        agent, model = str(node.get("agent") or "agent"), node.get("model")
        kind = f"agent-{agent}-{model}" if agent == "model" and model else f"agent-{agent}"
        program = self.program(kind, f"{agent} agent {model}" if agent == "model" and model else f"{agent} agent")
        self.document.wasAssociatedWith(name, program)
        person = self.person(node.get("created_by"))
        if person is not None:
            self.document.actedOnBehalfOf(program, person, name)

    def activity_correction(self, node: dict[str, Any]) -> None:
        name, at = self.id(node["id"]), _time(node.get("applied_at"))
        self.document.activity(name, at, at, _attributes([(PROV["type"], VOCABULARY["Correction"]),
                                                         (VOCABULARY["statement"], node.get("statement")),
                                                         (VOCABULARY["reason"], node.get("reason"))]))  # fmt: skip
        person = self.person(node.get("actor"))
        if person is not None:
            self.document.wasAssociatedWith(name, person)
        old, replacement = node.get("claim_id"), node.get("replacement_claim_id")
        if old in self.graph.nodes:
            self.document.used(name, self.id(old), at)
            self.document.wasInvalidatedBy(self.id(old), name, at)
        if replacement in self.graph.nodes:
            self.generate(self.graph.nodes[replacement], node["id"], node.get("applied_at"))
        for accepted in self.accepted.get(node["id"], ()):
            self.document.used(name, self.id(accepted), at)

    def relation(self, edge: dict[str, Any]) -> None:
        source, target, kind = self.id(edge["source"]), self.id(edge["target"]), edge["type"]
        if kind == "HAS_VERSION":
            self.document.wasDerivedFrom(target, source)
        elif kind == "HAS_FRAGMENT" and self.graph.nodes[edge["source"]]["label"] == "Correction":
            self.generate(self.graph.nodes[edge["target"]], edge["source"], None)
        elif kind == "HAS_FRAGMENT":
            self.document.wasDerivedFrom(target, source)
        elif kind == "SUPPORTED_BY":
            self.evidence(edge)
        elif kind in ("DERIVED_FROM", "SUPPORTS", "DEPENDS_ON"):
            derived, used = (target, source) if kind == "SUPPORTS" else (source, target)
            number = edge.get("justification")
            self.document.wasDerivedFrom(derived, used, other_attributes=_attributes(
                [(VOCABULARY["justification"], int(number) if number is not None else None)]))  # fmt: skip
        elif kind == "FOLLOWS_UP":
            # A follow-up action was derived from the done action it follows up.
            self.document.wasDerivedFrom(source, target, other_attributes=_attributes(
                [(PROV["type"], VOCABULARY["FollowUp"])]))  # fmt: skip
        elif kind == "OF":
            self.document.used(source, target)
        elif kind == "PRODUCED":
            self.generate(self.graph.nodes[edge["target"]], edge["source"], None)
        elif kind == "RETRIEVED":
            self.document.used(source, target)

    def evidence(self, edge: dict[str, Any]) -> None:
        """A claim rests on a fragment: with its quote and offsets when it is the claim's own evidence."""
        claim = self.graph.nodes[edge["source"]]
        role = edge.get("role") or "evidence"
        pairs = [(VOCABULARY["role"], role)]
        if role == "evidence":
            pairs += [(VOCABULARY["quote"], claim.get("evidence_quote")), (VOCABULARY["start"], claim.get("start")),
                      (VOCABULARY["end"], claim.get("end"))]  # fmt: skip
        self.document.wasDerivedFrom(self.id(edge["source"]), self.id(edge["target"]),
                                     other_attributes=_attributes(pairs))  # fmt: skip

    def attributions(self) -> None:
        """What a person made themselves (not generated by a run, an extraction or a correction) is theirs."""
        for node in self.graph.nodes.values():
            if node["label"] in ("Source", "Claim", "Decision", "Action") and node["id"] not in self.generated:
                person = self.person(node.get("created_by"))
                if person is not None:
                    self.document.wasAttributedTo(self.id(node["id"]), person)


def document_of(subgraph: ProvGraph, *, workspace_id: str) -> ProvDocument:
    """The PROV document of these nodes and edges of the workspace."""
    return _Builder(subgraph, workspace_id).build()


def serialized(document: ProvDocument, form: ProvFormat) -> str:
    """The document in PROV-JSON, Turtle or PROV-N."""
    if form == ProvFormat.TURTLE:
        return str(document.serialize(format="rdf", rdf_format="turtle"))
    if form == ProvFormat.PROVN:
        return str(document.serialize(format="provn"))
    return str(document.serialize(format="json"))
