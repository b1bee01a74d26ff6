"""Claims as the pickers show them (a card each), and what rests on a claim (derived claims and decisions)."""

from __future__ import annotations

from dataclasses import dataclass

from afterhack import graph
from afterhack.cypher import hold_members
from afterhack.graph import HasGraph
from afterhack.holds import status_holds
from afterhack.ids import parse_id
from claims.statuses import ClaimStatus


@dataclass(frozen=True)
class Dependent:
    """Something that rests on a claim: a derived claim or a decision."""

    id: str
    label: str
    title: str
    status: str


@dataclass(frozen=True)
class ClaimCard:
    """A claim with what a person needs to choose it: its statement, status, where it comes from and when."""

    id: str
    statement: str
    status: ClaimStatus
    source_id: str | None
    source_title: str | None
    confidence_kind: str | None
    created_at: str = ""

    def __post_init__(self) -> None:
        hold_members(self, status=ClaimStatus)

    @property
    def usable(self) -> bool:
        """Whether it can support a decision or a derived claim now (only a current claim can)."""
        return status_holds(decision=False, status=self.status)


CLAIM_CARDS = """
UNWIND range(0, size($claim_ids) - 1) AS position
MATCH (c:Claim {id: $claim_ids[position]})
OPTIONAL MATCH (c)-[e:SUPPORTED_BY]->(:SourceFragment)<-[:HAS_FRAGMENT]-(:SourceVersion)<-[:HAS_VERSION]-(src:Source)
WHERE coalesce(e.role, 'evidence') <> 'cited_passage'
WITH position, c, collect(DISTINCT src.title)[0] AS source_title ORDER BY position
RETURN {id: c.id, statement: c.statement, status: c.status, source_id: c.source_id, source_title: source_title,
        confidence_kind: c.confidence_kind, created_at: coalesce(c.created_at, '')} AS card
"""


def claim_cards(*, workspace: HasGraph, claim_ids: list[str]) -> list[ClaimCard]:
    """The claims with these ids that exist, in the order given, each with its source's title."""
    ids = list(dict.fromkeys(canonical for i in claim_ids if (canonical := parse_id(i))))
    if not ids:
        return []
    return [ClaimCard(**row) for row in graph.ro_records(workspace, CLAIM_CARDS, {"claim_ids": ids})]


# Derived claims rest on their premises through DERIVED_FROM (pointing back); decisions rest on
# their supports through SUPPORTS (pointing forward), and decisions can rest on decisions.
CLAIM_DEPENDENTS = """
MATCH (c:Claim {id: $claim_id})
OPTIONAL MATCH (c)<-[:DERIVED_FROM*1..]-(derived:Claim)
WITH c, collect(DISTINCT derived) AS derived
WITH derived, [c] + derived AS claims
UNWIND claims AS x
OPTIONAL MATCH (x)-[:SUPPORTS]->(:Decision)-[:SUPPORTS*0..]->(d:Decision)
WITH derived, collect(DISTINCT d) AS decisions
UNWIND [n IN derived + decisions WHERE n IS NOT NULL] AS n
RETURN {id: n.id, label: labels(n)[0], title: coalesce(n.statement, n.title), status: n.status} AS dependent
LIMIT 200
"""


def claim_dependents(*, workspace: HasGraph, claim_id: str) -> list[Dependent]:
    """Derived claims and decisions that rest on this claim, directly or through others."""
    return [Dependent(**row) for row in graph.ro_records_of(workspace, CLAIM_DEPENDENTS, claim_id=claim_id)]
