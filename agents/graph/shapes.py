"""The shapes the agents app's graph reads return: a decision with its supports, an action, a run. Every query
module of agents/graph/ builds them from one map per row, by name (`from_row`)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from afterhack.cypher import hold_members
from agents.statuses import ActionStatus, DecisionKind, DecisionStatus, FollowUp, RunOrigin
from claims.graph.shapes import BackgroundJob
from claims.statuses import JobStatus


@dataclass(frozen=True)
class Support:
    """One antecedent of a decision: a claim or a decision, with what the pages show of it."""

    id: str
    label: str
    text: str
    status: str
    justification: int
    evidence_quote: str | None = None
    source_id: str | None = None
    source_title: str | None = None


@dataclass(frozen=True)
class Decision:
    id: str
    title: str
    rationale: str
    status: DecisionStatus
    review_reason: str | None
    origin: str
    run_id: str | None
    created_at: str
    created_by: str | None
    kind: DecisionKind = DecisionKind.MANUAL
    question: str | None = None
    status_changed_at: str | None = None
    dismissed_at: str | None = None
    dismissed_by: str | None = None
    flagged_by: str | None = None
    supersedes: str | None = None
    superseded_by: str | None = None
    superseded_at: str | None = None
    superseded_by_actor: str | None = None
    supports: list[Support] = field(default_factory=list)
    action_ids: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        # Read from the graph as plain text: held as the members they always are. (`origin` stays text: older
        # decisions have none.)
        hold_members(self, status=DecisionStatus, kind=DecisionKind)

    @property
    def reviewable(self) -> bool:
        """Whether a reviewer can still act on it: it needs review and was neither dismissed nor revised."""
        return self.status == DecisionStatus.NEEDS_REVIEW and self.dismissed_at is None

    @property
    def justifications(self) -> list[list[str]]:
        """Each justification: the ids that together suffice, in order."""
        groups: dict[int, list[str]] = {}
        for support in self.supports:
            groups.setdefault(support.justification, []).append(support.id)
        return [sorted(ids) for _, ids in sorted(groups.items())]

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Decision:
        """The decision a query's map reads as (its supports' and actions' empty slots dropped)."""
        return cls(
            **{
                **row,
                "supports": [Support(**s) for s in row["supports"] if s is not None],
                "action_ids": sorted(a for a in row["action_ids"] if a),
            }
        )

    def grouped(self) -> list[list[Support]]:
        groups: dict[int, list[Support]] = {}
        for support in self.supports:
            groups.setdefault(support.justification, []).append(support)
        return [group for _, group in sorted(groups.items())]


@dataclass(frozen=True)
class Action:
    id: str
    title: str
    status: ActionStatus
    origin: str
    created_at: str
    decision_ids: list[str] = field(default_factory=list)
    decision_titles: list[str] = field(default_factory=list)
    created_by: str | None = None
    # A done action whose decision lost support: what became of it (agents/statuses.py FollowUp), the follow-up
    # action planned for it, why none is needed, and when that last changed.
    follow_up: FollowUp | None = None
    follow_up_id: str | None = None
    follow_up_reason: str | None = None
    follow_up_at: str | None = None
    # A follow-up action: the done action it follows up.
    follows_up: str | None = None

    def __post_init__(self) -> None:
        hold_members(self, status=ActionStatus)
        if self.follow_up is not None:
            hold_members(self, follow_up=FollowUp)

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Action:
        """The action a query's map reads as."""
        return cls(**row)

    @property
    def decisions(self) -> list[tuple[str, str]]:
        """(id, title) of each decision it depends on."""
        return list(zip(self.decision_ids, self.decision_titles, strict=False))


@dataclass(frozen=True)
class Run(BackgroundJob):
    id: str
    question: str
    status: JobStatus
    agent: str
    model: str
    error: str | None
    created_at: str
    updated_at: str
    finished_at: str | None
    created_by: str | None
    trajectory: dict[str, Any]
    decision_id: str | None
    action_ids: list[str]
    origin: RunOrigin = RunOrigin.AGENT
    # Every decision it recorded, newest first (the built-in agent's run records one; an MCP session any number).
    decision_ids: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        hold_members(self, status=JobStatus, origin=RunOrigin)

    @classmethod
    def from_row(cls, row: dict[str, Any], trajectory: dict[str, Any] | None = None) -> Run:
        """The run a query's map reads as; its trajectory is the row's JSON text unless given."""
        decision_ids = [d for d in row["decision_ids"] if d]
        return cls(
            **{
                **row,
                "trajectory": trajectory if trajectory is not None else json.loads(row["trajectory"] or "{}"),
                "decision_ids": decision_ids,
                "decision_id": decision_ids[0] if decision_ids else None,
                "action_ids": sorted(a for a in row["action_ids"] if a),
            }
        )

    @property
    def is_mcp(self) -> bool:
        """An outside agent's MCP session: open for as long as it is used, so never stalled."""
        return self.origin == RunOrigin.MCP

    @property
    def stalled(self) -> bool:
        return not self.is_mcp and super().stalled

    @property
    def busy(self) -> bool:
        return not self.is_mcp and super().busy

    @property
    def searched_claim_ids(self) -> list[str]:
        return list(self.trajectory.get("searched_claim_ids", []))

    @property
    def retrieved_claim_ids(self) -> list[str]:
        return list(self.trajectory.get("retrieved_claim_ids", []))

    @property
    def step_count(self) -> int:
        """How many steps its trajectory has in all (an MCP session's `events` may hold only the newest)."""
        return int(self.trajectory.get("step_count", len(self.trajectory.get("events", []))))

    @property
    def first_step(self) -> int:
        """The number of the oldest step its `events` hold (1 when they hold them all)."""
        events = self.trajectory.get("events", [])
        return int(events[0].get("step", 1)) if events else 1
