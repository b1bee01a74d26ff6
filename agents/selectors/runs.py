"""Reads of runs: a run with the decision and actions it produced, its page (each step's claims named, each
retrieved quote in its fragment), the API's pages of runs and the newest runs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from afterhack.lists.cursors import Paged, workspace_page
from agents.graph import decisions as decisions_graph
from agents.graph import runs as runs_graph
from agents.graph.shapes import Action, Decision
from agents.graph.shapes import Run as Run
from agents.selectors.decisions import actions_get
from agents.statuses import TrajectoryEventKind
from claims.selectors import claims as claims_selectors
from claims.selectors.claims import Claim
from workspaces.models import Workspace


@dataclass(frozen=True)
class RunOutcome:
    run: Run
    decision: Decision | None
    actions: list[Action]


def run_outcome(*, workspace: Workspace, run_id: str, steps_before: int | None = None) -> RunOutcome | None:
    """The run with the decision and actions it produced, or None (an MCP session's newest steps, or the newest
    of those before step `steps_before`)."""
    run = runs_graph.run_get(workspace=workspace, run_id=run_id, steps_before=steps_before)
    if run is None:
        return None
    decision = (
        decisions_graph.decision_get(workspace=workspace, decision_id=run.decision_id) if run.decision_id else None
    )
    actions = actions_get(workspace=workspace, action_ids=run.action_ids)
    return RunOutcome(run, decision, actions)


@dataclass(frozen=True)
class RunStep:
    """One event of a run's trajectory and the template that shows it (templates/agents/events/<kind>.html)."""

    event: dict[str, Any]
    template: str


# A kind this code does not know (from a newer or older run) still shows, by its name.
EVENT_TEMPLATES = {kind: f"agents/events/{kind}.html" for kind in TrajectoryEventKind}


UNKNOWN_EVENT_TEMPLATE = "agents/events/unknown.html"


@dataclass(frozen=True)
class RunView:
    run: Run
    decision: Decision | None
    actions: list[Action]
    events: list[dict[str, Any]]
    statements: dict[str, str] = field(default_factory=dict)

    @property
    def dropped(self) -> list[dict[str, Any]]:
        return [e for e in self.events if e["kind"] == TrajectoryEventKind.DROPPED]

    @property
    def steps(self) -> list[RunStep]:
        return [RunStep(e, EVENT_TEMPLATES.get(e["kind"], UNKNOWN_EVENT_TEMPLATE)) for e in self.events]


def run_view(*, workspace: Workspace, run_id: str, steps_before: int | None = None) -> RunView | None:
    """The run with each step's claims named and each retrieved quote shown in its fragment."""
    outcome = run_outcome(workspace=workspace, run_id=run_id, steps_before=steps_before)
    if outcome is None:
        return None
    run = outcome.run
    events = list(run.trajectory.get("events", []))
    ids = (
        {cid for e in events for cid in e.get("result_ids", [])}
        | {e["claim_id"] for e in events if e.get("claim_id")}
        | {cid for e in events for group in e.get("kept", []) for cid in group}
    )
    claims = {c.id: c for c in claims_selectors.claims_by_ids(workspace=workspace, claim_ids=sorted(ids))}
    for event in events:
        if event["kind"] == TrajectoryEventKind.RETRIEVE and (claim := claims.get(event["claim_id"])) is not None:
            event["context"] = _quote_in_fragment(claim)
    statements = {cid: c.statement for cid, c in claims.items()}
    return RunView(run, outcome.decision, outcome.actions, events, statements)


def _quote_in_fragment(claim: Claim) -> dict[str, str]:
    """The fragment's text cut around the claim's quote, so the page can highlight it."""
    if not claim.fragments or claim.start is None or claim.end is None:
        return {}
    fragment = claim.fragments[0]
    start, end = max(claim.start, fragment.start) - fragment.start, min(claim.end, fragment.end) - fragment.start
    text = fragment.text
    return {"before": text[max(0, start - 200) : start], "quote": text[start:end], "after": text[end : end + 200],
            "source_id": claim.source_id or ""}  # fmt: skip


def runs_page(*, workspace: Workspace, limit: int, cursor: str | None) -> Paged[Run]:
    """A page of the agent's runs, newest first (without their trajectories)."""
    return workspace_page(
        "runs", workspace=workspace, cursor=cursor, limit=limit,
        read=runs_graph.run_list, count=runs_graph.run_count,
    )  # fmt: skip


def newest_runs(*, workspace: Workspace, limit: int = 20) -> list[Run]:
    """The agent's newest runs (without their trajectories)."""
    return runs_graph.run_list(workspace=workspace, limit=limit)
