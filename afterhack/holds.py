"""What holds: the one definition of when a claim or a decision can be rested on, for Python and for Cypher.

A claim holds while it is current, a decision while it is supported. The propagation engine
(corrections/propagation.py) judges stored statuses by `status_holds`, and every query that checks
the rule inlines `holds(var)`, both built from the two constants below; a test checks the fragment
against the engine on every label and status. It sits below the apps because claims, agents and
corrections all check it; only corrections (belief maintenance) changes what holds.
"""

from __future__ import annotations

from afterhack.cypher import word
from agents.statuses import DecisionStatus
from claims.statuses import ClaimStatus

CLAIM_HOLDS = ClaimStatus.CURRENT
DECISION_HOLDS = DecisionStatus.SUPPORTED


def status_holds(*, decision: bool, status: str) -> bool:
    """Whether a claim (or, with `decision`, a decision) with this stored status holds."""
    return status == (DECISION_HOLDS if decision else CLAIM_HOLDS)


def claim_holds(var: str) -> str:
    """Cypher: the claim bound to `var` holds."""
    return f"{var}.status = {word(CLAIM_HOLDS)}"


def decision_holds(var: str) -> str:
    """Cypher: the decision bound to `var` holds."""
    return f"{var}.status = {word(DECISION_HOLDS)}"


def holds(var: str) -> str:
    """Cypher: the claim or decision bound to `var` holds."""
    return f"(({var}:Claim AND {claim_holds(var)}) OR ({var}:Decision AND {decision_holds(var)}))"
