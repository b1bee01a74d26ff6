"""Truth maintenance, in plain Python with no store access: which nodes still hold once claims stop holding.

A node (a derived claim or a decision) has justifications, each a set of antecedents that
together suffice (AND); it holds if any justification holds (OR). An evidence-backed claim
holds while it is current; a derived claim or a decision already flagged stays down until a person
re-justifies it. Which stored status holds (current for a claim, supported for a decision) is
afterhack.holds, the rule the queries that check it inline as Cypher. Labels are the least fixed point: start from "nothing derived
holds" and add what is justified until nothing changes, so a cycle with no outside support
cannot hold itself up (well-founded).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from afterhack.holds import status_holds
from agents.statuses import ActionStatus

EVIDENCE = "evidence"  # an evidence-backed claim: holds while current
DERIVED = "derived"  # a claim inferred from others
DECISION = "decision"


@dataclass(frozen=True)
class Node:
    id: str
    kind: str
    status: str
    justifications: tuple[frozenset[str], ...] = ()
    version_id: str | None = None
    # False for an antecedent whose own justifications were not loaded: it lies outside what
    # the roots can reach, so it holds exactly as its stored status says.
    expanded: bool = True


@dataclass(frozen=True)
class Action:
    id: str
    status: str
    decision_ids: frozenset[str]


@dataclass(frozen=True)
class Impact:
    """What retracting the roots does: exactly what Apply will write (a done action it names stays done and gets
    `follow_up: needed`: it already acted on what stopped holding)."""

    decisions_needing_review: list[str]
    decisions_still_supported: list[str]
    actions_held: list[str]
    claims_unsupported: list[str]
    # For each still-supported decision, the justification that keeps it up.
    still_supported_by: dict[str, list[str]] = field(default_factory=dict)
    # Done actions of the decisions needing review: they happened, so they stay done, and get `follow_up: needed`.
    actions_already_done: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, list[str]]:
        return {
            "decisions_needing_review": self.decisions_needing_review,
            "decisions_still_supported": self.decisions_still_supported,
            "actions_held": self.actions_held,
            "claims_unsupported": self.claims_unsupported,
            "actions_already_done": self.actions_already_done,
        }


def _stored_holds(node: Node) -> bool:
    """Whether the node's stored status is one that holds (current for a claim, supported for a decision)."""
    return status_holds(decision=node.kind == DECISION, status=node.status)


def _holds_outside(node: Node | None) -> bool:
    """Whether an antecedent the subgraph does not expand holds: judged by its stored status."""
    return node is not None and _stored_holds(node)


def holding(
    nodes: dict[str, Node],
    *,
    retracted: Iterable[str] = (),
    excluded_version: str | None = None,
) -> set[str]:
    """The ids that hold, as the least fixed point.

    `retracted` claims stop holding. With `excluded_version` (the independent-source policy),
    a justification of a node that rested directly on a retracted claim counts as its
    alternative support only if none of its claims comes from that source version.
    """
    gone = set(retracted)
    held = {
        n.id
        for n in nodes.values()
        if n.id not in gone and ((n.kind == EVIDENCE and _stored_holds(n)) or (not n.expanded and _holds_outside(n)))
    }
    # A derived claim or decision already flagged (unsupported, needs_review…) stays down until a
    # person re-justifies it; only those that hold now can keep holding.
    derived = [n for n in nodes.values() if n.kind != EVIDENCE and n.expanded and n.id not in gone and _stored_holds(n)]
    counts = _counter(nodes, gone, held, excluded_version)
    changed = True
    while changed:
        changed = False
        for node in derived:
            if node.id not in held and any(counts(node, j) for j in node.justifications):
                held.add(node.id)
                changed = True
    return held


def _counter(nodes: dict[str, Node], gone: set[str], held: set[str], excluded_version: str | None) -> Any:
    """Whether a justification of a node counts: every antecedent holds, and the policy allows it."""

    def counts(node: Node, justification: frozenset[str]) -> bool:
        rested_on_gone = any(a in gone for j in node.justifications for a in j)
        if (
            excluded_version is not None
            and rested_on_gone
            and any(nodes.get(a) is not None and nodes[a].version_id == excluded_version for a in justification)
        ):
            return False
        return all(a not in gone and a in held for a in justification)

    return counts


def impact(
    nodes: dict[str, Node],
    actions: Iterable[Action],
    *,
    roots: Iterable[str],
    independent_sources: bool = False,
) -> Impact:
    """What stops holding when the `roots` (claims) stop holding, and what still holds and why."""
    roots = list(roots)
    excluded = None
    if independent_sources:
        versions = {nodes[r].version_id for r in roots if r in nodes and nodes[r].version_id}
        excluded = versions.pop() if len(versions) == 1 else None
    before = holding(nodes)
    after = holding(nodes, retracted=roots, excluded_version=excluded)
    lost = before - after - set(roots)
    decisions = [n for n in nodes.values() if n.kind == DECISION and n.expanded]
    needing_review = sorted(n.id for n in decisions if n.id in lost)
    still = sorted(n.id for n in decisions if n.id in after)
    unsupported = sorted(n.id for n in nodes.values() if n.kind == DERIVED and n.id in lost)
    flagged = set(needing_review)
    actions = list(actions)
    held = sorted(a.id for a in actions if a.status == ActionStatus.PENDING and a.decision_ids & flagged)
    done = sorted(a.id for a in actions if a.status == ActionStatus.DONE and a.decision_ids & flagged)
    counts = _counter(nodes, set(roots), after, excluded)
    by = {}
    for decision_id in still:
        for justification in nodes[decision_id].justifications:
            if counts(nodes[decision_id], justification):
                by[decision_id] = sorted(justification)
                break
    return Impact(needing_review, still, held, unsupported, by, done)
