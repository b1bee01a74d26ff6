"""The because-chain of a claim or a decision for an agent: the plain words the claim's chain page shows, as text,
and each link of it as data."""

from __future__ import annotations

from typing import Any

from agents.selectors import decisions as agents_selectors
from claims.selectors import claims as claims_selectors
from corrections.selectors import corrections as corrections_selectors
from workspaces.models import Workspace


def _quoted(text: str) -> str:
    return f"“{text}”"


def claim_explained(workspace: Workspace, claim: claims_selectors.Claim) -> dict[str, Any] | None:
    """Where the claim comes from, what it states, what rests on it and how it was corrected, as the chain page says."""
    found = corrections_selectors.claim_chain(workspace=workspace, claim_id=claim.id)
    if found is None:
        return None
    source, decisions, corrections = found.source, found.decisions, found.corrections
    chain: list[dict[str, Any]] = []
    if source:
        chain.append({"link": "comes_from", "kind": "source", "id": source["id"], "title": source["title"],
                      "quote": claim.evidence_quote})  # fmt: skip
        origin = (
            f"It comes from the source {_quoted(source['title'])}, which says: {_quoted(claim.evidence_quote or '')}."
        )
    elif claim.derived_from:
        chain.append({"link": "derived_from", "kind": "claims", "ids": claim.derived_from})
        origin = (
            "It is derived from other claims, together: " + "; ".join(", ".join(g) for g in claim.derived_from) + "."
        )
    else:
        origin = f"It is a reviewer's correction: {_quoted(claim.evidence_quote or '')}."
    chain.append({"link": "states", "kind": "claim", "id": claim.id, "statement": claim.statement,
                  "status": claim.status})  # fmt: skip
    words = [f"The claim {_quoted(claim.statement)} is {claim.status}.", origin]
    for derived in found.derived:
        chain.append({"link": "basis_of", "kind": "claim", "id": derived["id"], "statement": derived["statement"],
                      "status": derived["status"]})  # fmt: skip
        words.append(f"It is the basis of the derived claim {_quoted(derived['statement'])} ({derived['status']}).")
    for decision, actions in decisions:
        via = [v["id"] for v in decision["via"]]
        chain.append({"link": "supports", "kind": "decision", "id": decision["id"], "title": decision["title"],
                      "status": decision["status"], "via": via, "actions": actions})  # fmt: skip
        leads = ", ".join(f"{_quoted(a['title'])} ({a['status']})" for a in actions)
        through = " and ".join(_quoted(v["statement"]) for v in decision["via"])
        words.append(
            (f"Through the derived claim {through}, it" if through else "It")
            + f" supports the decision {_quoted(decision['title'])} ({decision['status']})"
            + (f", which leads to {leads}." if leads else ".")
        )
    if not decisions:
        words.append("No decision rests on it yet.")
    for correction in corrections:
        chain.append({"link": "corrected", "kind": "correction", **correction})
        if correction["claim_id"] == claim.id:
            words.append(
                f"{correction['actor']} corrected it on {correction['applied_at'][:10]} to "
                f"{_quoted(correction['statement'])}: {correction['reason']}"
            )
        else:
            words.append(
                f"It is {correction['actor']}'s correction of an earlier claim, {correction['applied_at'][:10]}."
            )
    return {"text": " ".join(words), "chain": chain}


def decision_explained(workspace: Workspace, decision: agents_selectors.Decision) -> dict[str, Any]:
    """What the decision rests on (each justification's claims, with their sources and quotes) and what it leads to."""
    chain: list[dict[str, Any]] = [
        {"link": "decides", "kind": "decision", "id": decision.id, "title": decision.title, "status": decision.status}
    ]
    words = [f"The decision {_quoted(decision.title)} is {decision.status.replace('_', ' ')}."]
    if decision.review_reason:
        words.append(decision.review_reason)
    for number, group in enumerate(decision.grouped(), start=1):
        parts = []
        for support in group:
            chain.append({"link": "rests_on", "justification": number, "kind": support.label.lower(), "id": support.id,
                          "text": support.text, "status": support.status, "source_title": support.source_title,
                          "quote": support.evidence_quote})  # fmt: skip
            source = f", from the source {_quoted(support.source_title)}" if support.source_title else ""
            quote = f", which says: {_quoted(support.evidence_quote)}" if support.evidence_quote else ""
            parts.append(f"the {support.label.lower()} {_quoted(support.text)} ({support.status}){source}{quote}")
        words.append(f"Justification {number} rests on " + "; and ".join(parts) + ".")
    if not decision.supports:
        words.append("It rests on nothing yet.")
    for action in agents_selectors.decision_actions(workspace=workspace, decision=decision):
        chain.append({"link": "leads_to", "kind": "action", "id": action.id, "title": action.title,
                      "status": action.status})  # fmt: skip
        words.append(f"It leads to the action {_quoted(action.title)} ({action.status}).")
    return {"text": " ".join(words), "chain": chain}


def explained(workspace: Workspace, node_id: str) -> dict[str, Any] | None:
    """The because-chain of the claim or decision with this id, or None when it is neither."""
    claim = claims_selectors.claim_get(workspace=workspace, claim_id=node_id)
    if claim is not None:
        return claim_explained(workspace, claim)
    decision = agents_selectors.decision_get(workspace=workspace, decision_id=node_id)
    return decision_explained(workspace, decision) if decision is not None else None
