"""The pictures of a claim's because-chain and of a correction's impact: the nodes and edges that
afterhack/static/afterhack/graph.js draws, built from what corrections/selectors/pictures.py read (no store access here).

A node is a source, a claim, a decision, an action or a correction, coloured by its status; an edge
points from what a thing rests on to what rests on it, so the story reads left to right.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from django.urls import reverse

from afterhack.templatetags.afterhack import in_words

# The most nodes a picture draws: past that a layered layout is unreadable (and slow), so the
# picture says how many it left out and the text list beside it names everything.
MAX_NODES = 200
# From this many nodes on, a picture may be zoomed with the wheel (graph.js reads it from the page), and says so.
ZOOMABLE_FROM = 40
# A node's label: the start of its statement or title; the whole of it is in the text list.
LABEL_CHARS = 70


class NodeKind(StrEnum):
    SOURCE = "source"
    CLAIM = "claim"
    DECISION = "decision"
    ACTION = "action"
    CORRECTION = "correction"


class EdgeKind(StrEnum):
    """How one thing rests on another, named from the left end: a source is cited by a claim, a claim is the basis
    of a claim derived from it, supports a decision, is superseded by its correction's replacement; a decision
    leads to an action."""

    CITES = "cites"
    DERIVED_FROM = "derived_from"
    SUPPORTS = "supports"
    SUPERSEDED_BY = "superseded_by"
    LEADS_TO = "leads_to"
    # A decision or claim the correction reached when it was applied, that no longer rests on the corrected
    # claim by a stored edge (re-justified or revised since): drawn so it is not left floating.
    RESTED_ON = "rested_on"


EDGE_WORDS = {
    EdgeKind.CITES: "cited by",
    EdgeKind.DERIVED_FROM: "basis of",
    EdgeKind.SUPPORTS: "supports",
    EdgeKind.SUPERSEDED_BY: "superseded by",
    EdgeKind.LEADS_TO: "leads to",
    EdgeKind.RESTED_ON: "rested on it then",
}

KIND_WORDS = {
    NodeKind.SOURCE: ("source", "sources"),
    NodeKind.CLAIM: ("claim", "claims"),
    NodeKind.DECISION: ("decision", "decisions"),
    NodeKind.ACTION: ("action", "actions"),
    NodeKind.CORRECTION: ("correction", "corrections"),
}

_URLS = {
    NodeKind.SOURCE: ("claims:source", "source_id"),
    NodeKind.CLAIM: ("claims:claim", "claim_id"),
    NodeKind.DECISION: ("agents:decision", "decision_id"),
    NodeKind.ACTION: ("agents:action", "action_id"),
    NodeKind.CORRECTION: ("corrections:detail", "correction_id"),
}


def status_words(status: str) -> str:
    """A status as a person says it (needs_review → needs review), the same words as the pages' badges."""
    return in_words(status)


def _label(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1].rstrip() + "…"


@dataclass(frozen=True)
class Drawn:
    """A picture ready for the page: `data` goes to json_script for graph.js; the words go around it."""

    data: dict[str, Any]
    # One sentence for screen readers (the picture's aria-label).
    summary: str
    # (status, words) for each status a node has, in the order first drawn: the legend.
    legend: list[tuple[str, str]]
    # (kind, words) for each kind of edge drawn.
    edge_legend: list[tuple[str, str]]
    # What the cap left out, in a sentence; empty when everything is drawn.
    left_out: str
    # Whether its nodes open their pages (not for the staff audit).
    linked: bool = True

    @property
    def node_count(self) -> int:
        return len(self.data["nodes"])

    @property
    def movable(self) -> bool:
        """Whether the picture is big enough to be moved around and zoomed."""
        return self.node_count >= ZOOMABLE_FROM


@dataclass
class Picture:
    """Nodes and edges as they are added: the first node added for an id wins, edges need both ends."""

    workspace_id: str
    # The claim the picture is about: a picture too big to fit the page is first shown from it.
    root: str
    # Links to the pages of what is drawn; off for the staff audit, whose readers are not members.
    linked: bool = True
    nodes: dict[str, dict[str, Any]] = field(default_factory=dict)
    edges: dict[tuple[str, str, str], dict[str, Any]] = field(default_factory=dict)

    def node(self, *, node_id: str, kind: NodeKind, text: str, status: str) -> None:
        """Adds a node, linked to its page."""
        if node_id in self.nodes:
            return
        self.nodes[node_id] = {
            "id": node_id,
            "kind": kind.value,
            "kind_words": KIND_WORDS[kind][0],
            "label": _label(text),
            "text": text,
            "status": status,
            "status_words": status_words(status),
            "href": self._href(kind, node_id),
        }

    def _href(self, kind: NodeKind, target_id: str | None) -> str | None:
        if not self.linked or target_id is None:
            return None
        name, key = _URLS[kind]
        return reverse(name, kwargs={"ws_id": self.workspace_id, key: target_id})

    def edge(self, *, source: str, target: str, kind: EdgeKind) -> None:
        """Adds an edge from what `target` rests on to it, once."""
        key = (source, target, kind.value)
        if key not in self.edges and source != target:
            self.edges[key] = {
                "id": f"{kind.value}:{source}:{target}",
                "source": source,
                "target": target,
                "kind": kind.value,
                "words": EDGE_WORDS[kind],
            }

    def has_incoming(self, node_id: str) -> bool:
        return any(edge["target"] == node_id for edge in self.edges.values())

    def drawn(self, *, what: str, cap: int = MAX_NODES) -> Drawn:
        """The picture capped at `cap` nodes (the first added: the roots and what is nearest them), in words too."""
        kept = list(self.nodes.values())[:cap]
        ids = {node["id"] for node in kept}
        edges = [e for e in self.edges.values() if e["source"] in ids and e["target"] in ids]
        left = len(self.nodes) - len(kept)
        left_out = (
            f"The picture shows the first {len(kept)} of {len(self.nodes)} things; the list below names them all."
            if left
            else ""
        )
        legend = list(dict.fromkeys((node["status"], node["status_words"]) for node in kept))
        edge_legend = list(dict.fromkeys((edge["kind"], edge["words"]) for edge in edges))
        data = {"root": self.root, "nodes": kept, "edges": edges}
        return Drawn(data, _summary(what, kept), legend, edge_legend, left_out, self.linked)


def _summary(what: str, nodes: list[dict[str, Any]]) -> str:
    counts = {kind: sum(1 for node in nodes if node["kind"] == kind.value) for kind in NodeKind}
    parts = [f"{n} {KIND_WORDS[kind][0 if n == 1 else 1]}" for kind, n in counts.items() if n]
    listed = ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1] if parts else "nothing"
    return (
        f"A picture of {what}: {listed}, coloured by status, arrows pointing from what a thing rests on "
        "to what rests on it; the list below says the same in words."
    )
