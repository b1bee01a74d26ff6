"""JSON API of runs: ask the agent a question, list the runs, read one with its trajectory (an MCP session's
newest steps, or those before a step)."""

from __future__ import annotations

from typing import Annotated, Any

from django.http import HttpRequest
from ninja import Field, Query, Router, Schema
from ninja.responses import Status
from pydantic import BaseModel, ConfigDict

from afterhack.clock import STALLED_ERROR
from afterhack.errors import found
from afterhack.lists.cursors import Page, PageIn
from afterhack.schemas import IdOut, Input, PathId, Refuse, Timestamp, Words, errors
from afterhack.text import MAX_QUESTION_CHARS
from agents.api.actions import ActionOut, action_out
from agents.api.decisions import DecisionOut, decision_out
from agents.selectors import runs as run_selectors
from agents.services import runs as run_services
from agents.statuses import RunAgent, RunOrigin, TrajectoryEventKind
from claims.statuses import JobStatus
from workspaces.access import get_rw_workspace_for_user, get_workspace_for_user

router = Router()


class AskIn(Input):
    question: Annotated[
        Words,
        Field(max_length=MAX_QUESTION_CHARS),
        Refuse(
            words=f"Ask a question: it must be text, not empty, at most {MAX_QUESTION_CHARS:,} characters.",
            missing="Ask a question: it is empty.",
        ),
    ]


class StepsIn(Input):
    """Which steps of an MCP session's run to answer: its newest, or the newest before a step."""

    steps_before: Annotated[
        int | None,
        Field(ge=1, le=999_999_999, description="Answer the steps numbered below this one (an earlier page)."),
        Refuse(words="“steps_before” must be a whole number from 1: the `step` of a step you have."),
    ] = None


class TrajectoryEventOut(BaseModel):
    """One step of a run; each kind carries its own details (query, claim_id, error…)."""

    # A plain pydantic model: ninja's Schema reads attributes, which would drop the details.
    model_config = ConfigDict(extra="allow")

    step: int
    kind: TrajectoryEventKind = Field(description="What the step was; each kind carries its own details.")


class TokensOut(Schema):
    prompt: int
    completion: int


class RunOut(Schema):
    id: IdOut
    status: JobStatus
    question: str
    searched_claim_ids: list[IdOut]
    retrieved_claim_ids: list[IdOut]
    decision: DecisionOut | None
    actions: list[ActionOut]
    error: str | None = Field(description="Why it failed, in words.")
    agent: RunAgent = Field(description="model, or offline when no model is configured; mcp for an MCP session.")
    origin: RunOrigin = Field(description="agent for the built-in agent's runs, mcp for an MCP session's.")
    model: str | None
    model_calls: int
    tokens: TokensOut
    dropped: list[TrajectoryEventOut] = Field(description="Citations refused: not both searched and retrieved.")
    trajectory: list[TrajectoryEventOut] = Field(
        description="Its steps, oldest first: all of a built-in run's; at most the newest 200 of an MCP session's "
        "(`steps_before` pages back)."
    )
    step_count: int = Field(description="How many steps it has in all.")
    decision_ids: list[IdOut] = Field(
        description="Every decision it recorded, newest first (`decision` is the newest)."
    )
    created_at: Timestamp
    updated_at: Timestamp = Field(description="Its last activity.")
    finished_at: Timestamp | None


class RunSummaryOut(Schema):
    id: IdOut
    status: JobStatus = Field(description="An MCP session's run stays running while the session is open.")
    question: str
    agent: RunAgent
    origin: RunOrigin = Field(description="agent for the built-in agent's runs, mcp for an MCP session's.")
    model: str | None
    error: str | None
    decision_id: IdOut | None
    created_at: Timestamp
    updated_at: Timestamp = Field(description="Its last activity.")
    finished_at: Timestamp | None


class RunStartedOut(Schema):
    run_id: IdOut


def run_status(run: run_selectors.Run) -> str:
    return JobStatus.FAILED if run.stalled else run.status


def run_out(outcome: run_selectors.RunOutcome) -> dict[str, Any]:
    run, trajectory = outcome.run, outcome.run.trajectory
    return {
        "id": run.id, "status": run_status(run), "question": run.question,
        "searched_claim_ids": run.searched_claim_ids, "retrieved_claim_ids": run.retrieved_claim_ids,
        "decision": decision_out(outcome.decision) if outcome.decision else None,
        "actions": [action_out(a) for a in outcome.actions],
        "error": STALLED_ERROR if run.stalled else run.error, "agent": run.agent, "model": run.model or None,
        "model_calls": trajectory.get("model_calls", 0),
        "tokens": {"prompt": trajectory.get("prompt_tokens", 0), "completion": trajectory.get("completion_tokens", 0)},
        "dropped": dropped_out(trajectory.get("events", [])), "trajectory": trajectory.get("events", []),
        "step_count": run.step_count,
        "origin": run.origin, "decision_ids": run.decision_ids,
        "created_at": run.created_at, "updated_at": run.updated_at, "finished_at": run.finished_at,
    }  # fmt: skip


def dropped_out(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The citations rule 2 dropped: the built-in agent's dropped steps, and those of each decision an MCP
    session recorded."""
    dropped = [e for e in events if e.get("kind") == TrajectoryEventKind.DROPPED]
    return dropped + [
        {"step": e["step"], "kind": TrajectoryEventKind.DROPPED, "decision_id": e.get("decision_id"), **item}
        for e in events
        if e.get("kind") == TrajectoryEventKind.DECISION
        for item in e.get("dropped", [])
    ]


def run_summary_out(run: run_selectors.Run) -> dict[str, Any]:
    return {
        "id": run.id, "status": run_status(run), "question": run.question, "agent": run.agent,
        "model": run.model or None, "error": STALLED_ERROR if run.stalled else run.error,
        "decision_id": run.decision_id, "origin": run.origin, "created_at": run.created_at,
        "updated_at": run.updated_at, "finished_at": run.finished_at,
    }  # fmt: skip


# The operation ids are those the API had as one module, agents/api.py (ninja would derive them from the module).


@router.post(
    "/{ws_id}/ask", response={202: RunStartedOut, **errors(401, 403, 404, 422, 503)}, operation_id="agents_api_ask"
)
def ask(request: HttpRequest, ws_id: PathId, payload: AskIn) -> Any:
    """Starts a run of the agent on a question; poll GET /runs/{run_id}."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    return Status(202, {"run_id": run_services.ask(workspace=workspace, question=payload.question, actor=request.user)})


@router.get(
    "/{ws_id}/runs",
    response={200: Page[RunSummaryOut], **errors(401, 404, 422, 503)},
    operation_id="agents_api_run_list",
)
def run_list(request: HttpRequest, ws_id: PathId, page: Query[PageIn]) -> Any:
    """The agent's runs, newest first (GET /runs/{run_id} has a run's whole trajectory)."""
    workspace = get_workspace_for_user(request.user, ws_id)
    return run_selectors.runs_page(workspace=workspace, limit=page.limit, cursor=page.cursor).answer(run_summary_out)


@router.get(
    "/{ws_id}/runs/{run_id}", response={200: RunOut, **errors(401, 404, 422, 503)}, operation_id="agents_api_run_detail"
)
def run_detail(request: HttpRequest, ws_id: PathId, run_id: PathId, steps: Query[StepsIn]) -> Any:
    """A run: its status, what it searched and retrieved, its decision and actions, or why it failed. An MCP
    session's trajectory holds its newest 200 steps; `steps_before` answers the ones before."""
    workspace = get_workspace_for_user(request.user, ws_id)
    outcome = found(
        run_selectors.run_outcome(workspace=workspace, run_id=run_id, steps_before=steps.steps_before),
        run_services.RunNotFound(),
    )
    return run_out(outcome)
