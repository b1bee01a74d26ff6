"""An MCP session's trajectory as the run page and the API read it, and rule 2's verdict on a decision in words.

The graph keeps each step of an MCP run as a JSON text on a node of its own (agents/graph/mcp.py); this turns a page
of them into the same shape a built-in run's trajectory has: numbered events, what was searched and retrieved.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from agents.graph.mcp import StepPage
from agents.statuses import TrajectoryEventKind
from claims.statuses import ClaimStatus

# Why rule 2 dropped a cited claim, by the code the decision query found for it.
WHY = {
    "missing": "not a claim in this workspace",
    "not_searched": "not searched in this session",
    "not_retrieved": "not retrieved in this session",
}
NOT_CURRENT = "not_current:"
PROPOSED_WHY = "not current yet: an agent proposed it and a reviewer has not approved it, so it cannot be cited"
OK = "ok"


def why_dropped(code: str) -> str:
    """The words for a code of the decision query other than 'ok'."""
    if code == NOT_CURRENT + ClaimStatus.PROPOSED:
        return PROPOSED_WHY
    if code.startswith(NOT_CURRENT):
        return f"no longer current ({code.removeprefix(NOT_CURRENT)})"
    return WHY.get(code, code)


@dataclass(frozen=True)
class Citations:
    """The justifications a decision kept, and each dropped claim with why."""

    kept: list[list[str]]
    dropped: list[dict[str, str]]


def citations_kept(justifications: list[list[str]], codes: list[str]) -> Citations:
    """Rule 2 in words: a justification stands only if every claim of it is 'ok'; a claim of a fallen one that
    was fine itself is dropped because its justification lost the first claim that was not."""
    # One code a cited claim, in order; a step stored without them reads as nothing found.
    codes = codes + ["missing"] * (sum(len(group) for group in justifications) - len(codes))
    at = 0
    kept: list[list[str]] = []
    why: dict[str, str] = {}
    for group in justifications:
        group_codes = codes[at : at + len(group)]
        at += len(group)
        lost = next((claim_id for claim_id, code in zip(group, group_codes, strict=True) if code != OK), None)
        if lost is None:
            kept.append(group)
            continue
        for claim_id, code in zip(group, group_codes, strict=True):
            why.setdefault(claim_id, why_dropped(code) if code != OK else f"its justification lost {lost}")
    standing = {claim_id for group in kept for claim_id in group}
    dropped = [{"claim_id": claim_id, "why": words} for claim_id, words in why.items() if claim_id not in standing]
    return Citations(kept, dropped)


def _elapsed_ms(at: str | None, started: str) -> int:
    try:
        return int((datetime.fromisoformat(at or started) - datetime.fromisoformat(started)).total_seconds() * 1000)
    except ValueError:
        return 0


def mcp_trajectory(page: StepPage, *, started: str, updated: str | None) -> dict[str, Any]:
    """A page of the run's trajectory from its stored steps (numbered events), how many steps it has in all, and
    every claim the session searched and retrieved (from rule 2's edges, not only this page's steps)."""
    events: list[dict[str, Any]] = []
    for number, text in page.steps:
        event = json.loads(text)
        event.update(step=number, at_ms=_elapsed_ms(event.get("at"), started))
        if event.get("kind") == TrajectoryEventKind.DECISION:
            found = citations_kept(event.get("justifications", []), event.get("codes", []))
            event.update(kept=found.kept, dropped=found.dropped)
        events.append(event)
    return {
        "events": events,
        "step_count": page.total,
        "searched_claim_ids": page.searched,
        "retrieved_claim_ids": page.retrieved,
        "model_calls": 0,
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "elapsed_ms": _elapsed_ms(updated, started),
    }
