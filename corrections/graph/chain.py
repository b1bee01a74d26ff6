"""A claim's chain: its source, the decisions and actions resting on it, the claims derived from it, and its
corrections, in one read."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from afterhack import graph
from afterhack.graph import HasGraph
from afterhack.ids import parse_id

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
