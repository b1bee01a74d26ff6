"""JSON API: asking the agent, runs, decisions and actions (API.md §2, the agent, decisions and actions)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from django.http import HttpRequest
from ninja import Field, Query, Router, Schema
from ninja.responses import Status
from pydantic import BaseModel, ConfigDict

from afterhack.clock import STALLED_ERROR
from afterhack.errors import found
from afterhack.pagination import Page, PageIn, PresentPageIn
from afterhack.schemas import AsOfIn, Id, IdOut, Input, PathId, Refuse, Text, Timestamp, Words, errors
from afterhack.text import MAX_QUESTION_CHARS, MAX_RATIONALE_CHARS, MAX_TITLE_CHARS
from agents import selectors, services
from agents.statuses import (
    ActionStatus,
    DecisionKind,
    DecisionStatus,
    Origin,
    RevisedActions,
    RunAgent,
    RunOrigin,
    TrajectoryEventKind,
)
from claims.statuses import JobStatus
from workspaces.access import get_rw_workspace_for_user, get_workspace_for_user

router = Router(tags=["agent, decisions and actions"])

# -- requests -------------------------------------------------------------------------------------------

Title = Annotated[
    Words,
    Field(max_length=MAX_TITLE_CHARS),
    Refuse(words=f"It needs a title: text of at most {MAX_TITLE_CHARS} characters, without NUL characters."),
]

Justifications = Annotated[
    list[Annotated[list[Id], Field(min_length=1, max_length=services.MAX_SUPPORTS)]],
    Field(
        min_length=1,
        max_length=services.MAX_SUPPORTS,
        description=f"Each inner list is one justification: the claims or decisions that together suffice "
        f"(at most {services.MAX_SUPPORTS} ids in all).",
    ),
    Refuse(
        "invalid_support",
        "“justifications” must be a non-empty list of justifications, each a non-empty list of claim or decision ids.",
    ),
]


class AskIn(Input):
    question: Annotated[
        Words,
        Field(max_length=MAX_QUESTION_CHARS),
        Refuse(
            words=f"Ask a question: it must be text, not empty, at most {MAX_QUESTION_CHARS:,} characters.",
            missing="Ask a question: it is empty.",
        ),
    ]


class DecisionIn(Input):
    title: Title
    rationale: Annotated[
        Text | None,
        Field(max_length=MAX_RATIONALE_CHARS),
        Refuse(words=f"A rationale must be text of at most {MAX_RATIONALE_CHARS:,} characters (or left out)."),
    ] = None
    justifications: Justifications


class StepsIn(Input):
    """Which steps of an MCP session's run to answer: its newest, or the newest before a step."""

    steps_before: Annotated[
        int | None,
        Field(ge=1, le=999_999_999, description="Answer the steps numbered below this one (an earlier page)."),
        Refuse(words="“steps_before” must be a whole number from 1: the `step` of a step you have."),
    ] = None


class RejustifyIn(Input):
    justifications: Justifications


class ReviseIn(DecisionIn):
    actions: Annotated[
        RevisedActions,
        Field(
            description="What happens to the old decision's pending and held actions: `move` to the new decision "
            "(each pending if all its decisions are supported, else held) or `cancel` them."
        ),
        Refuse(
            words="“actions” must be “move” (the open actions go to the new decision) or “cancel” (they are cancelled).",
            missing="Say what happens to its open actions: “actions” is “move” or “cancel”.",
        ),
    ]


class ActionIn(Input):
    title: Title
    decision_ids: Annotated[
        list[Id],
        Field(min_length=1, max_length=services.MAX_SUPPORTS, description="It depends on all of them."),
        Refuse(
            "invalid_support", f"An action needs “decision_ids”: a list of 1 to {services.MAX_SUPPORTS} decision ids."
        ),
    ]


class ActionStatusIn(Input):
    status: Annotated[
        Literal[ActionStatus.DONE, ActionStatus.CANCELLED, ActionStatus.PENDING],
        Field(description="done or cancelled; pending reopens a cancelled action while its decisions hold."),
        Refuse(words="An action can be marked “done” or “cancelled”, or reopened with “pending”."),
    ]


class DecisionFilter(PresentPageIn):
    status: Annotated[
        DecisionStatus | None,
        Refuse(words="“status” must be one of: supported, needs_review, superseded."),
    ] = None


class ActionFilter(PresentPageIn):
    status: Annotated[
        ActionStatus | None,
        Refuse(words="“status” must be one of: pending, held, done, cancelled."),
    ] = None


# -- answers --------------------------------------------------------------------------------------------


class DecisionOut(Schema):
    id: IdOut
    title: str
    status: DecisionStatus
    review_reason: str | None = Field(description="Why it needs review, when it does.")
    justifications: list[list[IdOut]]
    rationale: str
    origin: Origin | None
    run_id: IdOut | None = Field(description="The agent's run that made it, if any.")
    action_ids: list[IdOut]
    created_at: Timestamp
    dismissed: bool = Field(description="Taken out of the review queue; its actions were cancelled.")
    kind: DecisionKind = Field(
        description="manual (made by a person), agent (the agent's answer), or unanswered (the agent found no "
        "source-backed answer to `question`)."
    )
    question: str | None = Field(description="The question the agent was asked, for the agent's decisions.")
    supersedes: IdOut | None = Field(description="The decision this one revised, if any.")
    superseded_by: IdOut | None = Field(description="The decision that revised this one (status superseded).")


class ReviewOut(Schema):
    lost_support: list[DecisionOut] = Field(
        description="Decisions that lost their last support, not dismissed; the most recently flagged first, "
        f"at most {selectors.REVIEW_LIMIT}."
    )
    unanswered: list[DecisionOut] = Field(
        description="Questions the agent found no source-backed answer to, not dismissed; newest first, "
        f"at most {selectors.REVIEW_LIMIT}."
    )


class ActionOut(Schema):
    id: IdOut
    title: str
    status: ActionStatus
    decision_ids: list[IdOut]
    origin: Origin | None


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


def decision_out(decision: selectors.Decision) -> dict[str, Any]:
    return {
        "id": decision.id, "title": decision.title, "status": decision.status, "review_reason": decision.review_reason,
        "justifications": decision.justifications, "rationale": decision.rationale or "", "origin": decision.origin,
        "run_id": decision.run_id, "action_ids": decision.action_ids, "created_at": decision.created_at,
        "dismissed": decision.dismissed_at is not None, "kind": decision.kind, "question": decision.question,
        "supersedes": decision.supersedes, "superseded_by": decision.superseded_by,
    }  # fmt: skip


def action_out(action: selectors.Action) -> dict[str, Any]:
    return {
        "id": action.id,
        "title": action.title,
        "status": action.status,
        "decision_ids": action.decision_ids,
        "origin": action.origin,
    }


def run_status(run: selectors.Run) -> str:
    return JobStatus.FAILED if run.stalled else run.status


def run_out(outcome: selectors.RunOutcome) -> dict[str, Any]:
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


def run_summary_out(run: selectors.Run) -> dict[str, Any]:
    return {
        "id": run.id, "status": run_status(run), "question": run.question, "agent": run.agent,
        "model": run.model or None, "error": STALLED_ERROR if run.stalled else run.error,
        "decision_id": run.decision_id, "origin": run.origin, "created_at": run.created_at,
        "updated_at": run.updated_at, "finished_at": run.finished_at,
    }  # fmt: skip


# -- operations -----------------------------------------------------------------------------------------


@router.post("/{ws_id}/ask", response={202: RunStartedOut, **errors(401, 403, 404, 422, 503)})
def ask(request: HttpRequest, ws_id: PathId, payload: AskIn) -> Any:
    """Starts a run of the agent on a question; poll GET /runs/{run_id}."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    return Status(202, {"run_id": services.ask(workspace=workspace, question=payload.question, actor=request.user)})


@router.get("/{ws_id}/runs", response={200: Page[RunSummaryOut], **errors(401, 404, 422, 503)})
def run_list(request: HttpRequest, ws_id: PathId, page: Query[PageIn]) -> Any:
    """The agent's runs, newest first (GET /runs/{run_id} has a run's whole trajectory)."""
    workspace = get_workspace_for_user(request.user, ws_id)
    return selectors.runs_page(workspace=workspace, limit=page.limit, cursor=page.cursor).answer(run_summary_out)


@router.get("/{ws_id}/runs/{run_id}", response={200: RunOut, **errors(401, 404, 422, 503)})
def run_detail(request: HttpRequest, ws_id: PathId, run_id: PathId, steps: Query[StepsIn]) -> Any:
    """A run: its status, what it searched and retrieved, its decision and actions, or why it failed. An MCP
    session's trajectory holds its newest 200 steps; `steps_before` answers the ones before."""
    workspace = get_workspace_for_user(request.user, ws_id)
    outcome = found(
        selectors.run_outcome(workspace=workspace, run_id=run_id, steps_before=steps.steps_before),
        services.RunNotFound(),
    )
    return run_out(outcome)


@router.post("/{ws_id}/decisions", response={201: DecisionOut, **errors(401, 403, 404, 422, 503)})
def decision_create(request: HttpRequest, ws_id: PathId, payload: DecisionIn) -> Any:
    """A decision; each inner list of `justifications` is a set of claims/decisions that together suffice.
    422 invalid_support if one of them is missing, or is not a current claim or a supported decision."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    decision = services.decision_add(
        workspace=workspace, title=payload.title, rationale=payload.rationale,
        justifications=payload.justifications, actor=request.user,
    )  # fmt: skip
    return Status(201, decision_out(decision))


@router.get("/{ws_id}/decisions", response={200: Page[DecisionOut], **errors(401, 404, 422, 503)})
def decision_list(request: HttpRequest, ws_id: PathId, filters: Query[DecisionFilter]) -> Any:
    """Decisions, newest first; ?status=needs_review for the review queue. The present only: `as_of` is 422."""
    workspace = get_workspace_for_user(request.user, ws_id)
    filters.present_only()
    decisions = selectors.decisions_page(
        workspace=workspace, status=filters.status or "", limit=filters.limit, cursor=filters.cursor
    )
    return decisions.answer(decision_out)


@router.get("/{ws_id}/decisions/{decision_id}", response={200: DecisionOut, **errors(401, 404, 422, 503)})
def decision_detail(request: HttpRequest, ws_id: PathId, decision_id: PathId, past: Query[AsOfIn]) -> Any:
    """One decision. With `as_of`: the decision as it was then (status, review reason, the justifications it had,
    what superseded it by then); 404 if it did not exist yet, 422 if `as_of` is not a moment."""
    workspace = get_workspace_for_user(request.user, ws_id)
    moment = past.moment()
    decision = found(
        selectors.decision_get(workspace=workspace, decision_id=decision_id, as_of=moment),
        services.DecisionNotFound(as_of=moment),
    )
    return decision_out(decision)


@router.post("/{ws_id}/actions", response={201: ActionOut, **errors(401, 403, 404, 409, 422, 503)})
def action_create(request: HttpRequest, ws_id: PathId, payload: ActionIn) -> Any:
    """An action depending on all the listed decisions (held at once if one of them needs review);
    409 if one of them was dismissed."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    action = services.action_add(
        workspace=workspace, title=payload.title, decision_ids=payload.decision_ids, actor=request.user
    )
    return Status(201, action_out(action))


@router.get("/{ws_id}/actions", response={200: Page[ActionOut], **errors(401, 404, 422, 503)})
def action_list(request: HttpRequest, ws_id: PathId, filters: Query[ActionFilter]) -> Any:
    """Actions, newest first; ?status=held for those waiting on a review. The present only: `as_of` is 422."""
    workspace = get_workspace_for_user(request.user, ws_id)
    filters.present_only()
    actions = selectors.actions_page(
        workspace=workspace, status=filters.status or "", limit=filters.limit, cursor=filters.cursor
    )
    return actions.answer(action_out)


@router.get("/{ws_id}/actions/{action_id}", response={200: ActionOut, **errors(401, 404, 422, 503)})
def action_detail(request: HttpRequest, ws_id: PathId, action_id: PathId, past: Query[AsOfIn]) -> Any:
    """One action. With `as_of`: the action as it was then (status, the decisions it depended on); 404 if it
    did not exist yet, 422 if `as_of` is not a moment."""
    workspace = get_workspace_for_user(request.user, ws_id)
    moment = past.moment()
    action = found(
        selectors.action_get(workspace=workspace, action_id=action_id, as_of=moment),
        services.ActionNotFound(as_of=moment),
    )
    return action_out(action)


@router.post("/{ws_id}/actions/{action_id}/status", response={200: ActionOut, **errors(401, 403, 404, 409, 422, 503)})
def action_mark(request: HttpRequest, ws_id: PathId, action_id: PathId, payload: ActionStatusIn) -> Any:
    """Marks an action done or cancelled, or reopens a cancelled one with "pending". 409 if it is held
    (a decision it depends on needs review) or already done or cancelled; a reopen is 409 unless the
    action is cancelled and every decision it depends on holds (supported, not dismissed)."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    return action_out(
        services.action_mark(workspace=workspace, action_id=action_id, status=payload.status, actor=request.user)
    )


@router.get("/{ws_id}/review", response={200: ReviewOut, **errors(401, 404, 503)})
def review(request: HttpRequest, ws_id: PathId) -> Any:
    """What waits for a reviewer: decisions that lost their support, and questions the agent could not answer
    (each list at most 200 long, the most recently flagged first; dismissed ones are left out).
    GET /decisions?status=needs_review pages through all decisions needing review."""
    workspace = get_workspace_for_user(request.user, ws_id)
    queue = selectors.review(workspace=workspace)
    return {
        "lost_support": [decision_out(d) for d in queue.lost_support],
        "unanswered": [decision_out(d) for d in queue.unanswered],
    }
