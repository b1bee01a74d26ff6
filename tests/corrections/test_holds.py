"""The holds rule is written once: the Cypher fragment every query inlines says what the engine says."""

from __future__ import annotations

from afterhack import graph
from afterhack.holds import claim_holds, decision_holds, holds
from agents.statuses import DecisionStatus
from claims.statuses import ClaimStatus
from corrections.propagation import DECISION, EVIDENCE, Node, holding
from tests.conftest import Trio

# Every status either label may carry, on both labels: a status of the other label must not hold either.
STATUSES = sorted({*ClaimStatus, *DecisionStatus})
LABELS = {"Claim": EVIDENCE, "Decision": DECISION}


def _engine_holding() -> set[str]:
    """The ids the engine says hold, each judged alone by its stored status (as an antecedent it does not expand)."""
    nodes = {
        f"{label}-{status}": Node(f"{label}-{status}", kind, status, expanded=False)
        for label, kind in LABELS.items()
        for status in STATUSES
    }
    return holding(nodes)


class HoldsTests:
    def test_the_fragment_holds_exactly_where_the_engine_does_for_every_label_and_status(self, trio: Trio) -> None:
        pairs = [{"id": f"{label}-{status}", "status": status} for label in LABELS for status in STATUSES]
        for label in LABELS:
            graph.query(
                trio.workspace,
                "UNWIND $pairs AS p WITH p WHERE p.id STARTS WITH $prefix CREATE (:"
                + label
                + " {id: p.id, status: p.status})",
                {"pairs": pairs, "prefix": f"{label}-"},
            )
        rows = graph.ro_query(
            trio.workspace, "MATCH (n) WHERE n:Claim OR n:Decision WITH n WHERE " + holds("n") + " RETURN n.id"
        )
        in_cypher = {row[0] for row in rows}
        assert in_cypher == _engine_holding()
        assert in_cypher == {f"Claim-{ClaimStatus.CURRENT}", f"Decision-{DecisionStatus.SUPPORTED}"}

    def test_an_evidence_claim_the_engine_expands_holds_by_the_same_rule(self) -> None:
        nodes = {status: Node(status, EVIDENCE, status) for status in STATUSES}
        assert holding(nodes) == {ClaimStatus.CURRENT}

    def test_the_halves_are_the_fragment_s_own(self) -> None:
        assert claim_holds("x") in holds("x") and decision_holds("x") in holds("x")
