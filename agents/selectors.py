"""Reads of the agents app shaped for the pages: a run's trajectory, a decision with its evidence."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from afterhack.pagination import Paged, page_of
from agents import graph as agents_graph
from claims import graph as claims_graph
from workspaces.models import Workspace


@dataclass(frozen=True)
class RunOutcome:
    run: agents_graph.Run
    decision: agents_graph.Decision | None
    actions: list[agents_graph.Action]


def run_outcome(*, workspace: Workspace, run_id: str) -> RunOutcome | None:
    """The run with the decision and actions it produced, or None."""
    run = agents_graph.run_get(workspace=workspace, run_id=run_id)
    if run is None:
        return None
    decision = agents_graph.decision_get(workspace=workspace, decision_id=run.decision_id) if run.decision_id else None
    actions = [a for aid in run.action_ids if (a := agents_graph.action_get(workspace=workspace, action_id=aid))]
    return RunOutcome(run, decision, actions)


@dataclass(frozen=True)
class RunView:
    run: agents_graph.Run
    decision: agents_graph.Decision | None
    actions: list[agents_graph.Action]
    events: list[dict[str, Any]]
    statements: dict[str, str] = field(default_factory=dict)

    @property
    def dropped(self) -> list[dict[str, Any]]:
        return [e for e in self.events if e["kind"] == "dropped"]


def run_view(*, workspace: Workspace, run_id: str) -> RunView | None:
    """The run with each step's claims named and each retrieved quote shown in its fragment."""
    outcome = run_outcome(workspace=workspace, run_id=run_id)
    if outcome is None:
        return None
    run = outcome.run
    events = list(run.trajectory.get("events", []))
    ids = {cid for e in events for cid in e.get("result_ids", [])} | {
        e["claim_id"] for e in events if e.get("claim_id")
    }
    claims = {c.id: c for c in claims_graph.claims_get(workspace=workspace, claim_ids=sorted(ids))}
    for event in events:
        if event["kind"] == "retrieve" and (claim := claims.get(event["claim_id"])) is not None:
            event["context"] = _quote_in_fragment(claim)
    statements = {cid: c.statement for cid, c in claims.items()}
    return RunView(run, outcome.decision, outcome.actions, events, statements)


def _quote_in_fragment(claim: claims_graph.Claim) -> dict[str, str]:
    """The fragment's text cut around the claim's quote, so the page can highlight it."""
    if not claim.fragments or claim.start is None or claim.end is None:
        return {}
    fragment = claim.fragments[0]
    start, end = max(claim.start, fragment.start) - fragment.start, min(claim.end, fragment.end) - fragment.start
    text = fragment.text
    return {"before": text[max(0, start - 200) : start], "quote": text[start:end], "after": text[end : end + 200],
            "source_id": claim.source_id or ""}  # fmt: skip


@dataclass(frozen=True)
class DecisionView:
    decision: agents_graph.Decision
    actions: list[agents_graph.Action]
    claims: dict[str, claims_graph.Claim]


def decision_view(*, workspace: Workspace, decision_id: str) -> DecisionView | None:
    """The decision, the claims behind each justification with their quotes, and its actions."""
    decision = agents_graph.decision_get(workspace=workspace, decision_id=decision_id)
    if decision is None:
        return None
    claim_ids = [s.id for s in decision.supports if s.label == "Claim"]
    claims = {c.id: c for c in claims_graph.claims_get(workspace=workspace, claim_ids=claim_ids)}
    actions = [a for aid in decision.action_ids if (a := agents_graph.action_get(workspace=workspace, action_id=aid))]
    return DecisionView(decision, actions, claims)


# -- pages of the API's lists ------------------------------------------------------------------------


def decisions_page(
    *, workspace: Workspace, status: str, limit: int, cursor: str | None
) -> Paged[agents_graph.Decision]:
    """A page of the decisions (with this status, or all for ''), newest first."""
    return page_of(
        scope=f"decisions:{workspace.id}:{status}", cursor=cursor, limit=limit,
        read=lambda after, n: agents_graph.decision_list(workspace=workspace, status=status, limit=n, after=after),
        count=lambda: agents_graph.decision_count(workspace=workspace, status=status),
        position=lambda decision: [decision.created_at, decision.id],
    )  # fmt: skip


def actions_page(*, workspace: Workspace, status: str, limit: int, cursor: str | None) -> Paged[agents_graph.Action]:
    """A page of the actions (with this status, or all for ''), newest first."""
    return page_of(
        scope=f"actions:{workspace.id}:{status}", cursor=cursor, limit=limit,
        read=lambda after, n: agents_graph.action_list(workspace=workspace, status=status, limit=n, after=after),
        count=lambda: agents_graph.action_count(workspace=workspace, status=status),
        position=lambda action: [action.created_at, action.id],
    )  # fmt: skip


def runs_page(*, workspace: Workspace, limit: int, cursor: str | None) -> Paged[agents_graph.Run]:
    """A page of the agent's runs, newest first (without their trajectories)."""
    return page_of(
        scope=f"runs:{workspace.id}", cursor=cursor, limit=limit,
        read=lambda after, n: agents_graph.run_list(workspace=workspace, limit=n, after=after),
        count=lambda: agents_graph.run_count(workspace=workspace),
        position=lambda run: [run.created_at, run.id],
    )  # fmt: skip


def action_get(*, workspace: Workspace, action_id: str) -> agents_graph.Action | None:
    """The action with the decisions it depends on, or None."""
    return agents_graph.action_get(workspace=workspace, action_id=action_id)
