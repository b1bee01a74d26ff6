"""Writes of runs: a question asked of the agent is queued as a run, and the worker runs the Analyst and the
Coordinator on it, applies rule 2 and writes everything it produced in one query (or ends it as failed)."""

from __future__ import annotations

import logging
import time
import uuid
from typing import Any

from django.conf import settings
from django.db import transaction

from afterhack import llm
from afterhack.clock import now_iso
from afterhack.errors import NotFound
from afterhack.text import MAX_QUESTION_CHARS, clean_text
from agents.analyst import Proposal, Toolbox, Trajectory, model_analyst, offline_analyst
from agents.coordinator import (
    NO_ANSWER_REASON,
    NO_ANSWER_TITLE,
    Verdict,
    allowed_citations,
    model_coordinator,
    offline_coordinator,
)
from agents.graph import runs as runs_graph
from agents.graph.shapes import Run
from agents.statuses import RunAgent, TrajectoryEventKind
from workspaces.models import Workspace
from workspaces.services.audit import actor_name, record_event

logger = logging.getLogger("agents")


class RunNotFound(NotFound):
    thing = "run"


def clean_question(question: object) -> str:
    """The question with its whitespace folded, or UserError saying what is wrong with it."""
    return clean_text(
        question, noun="A question", max_chars=MAX_QUESTION_CHARS,
        missing="Ask a question: it is empty.", not_text="A question must be text.",
    )  # fmt: skip


def ask(*, workspace: Workspace, question: object, actor: Any) -> str:
    """Queues a run of the agent on the question; returns the run id."""
    question = clean_question(question)
    run_id = str(uuid.uuid4())
    agent, model = (RunAgent.MODEL, llm.model_name()) if llm.is_configured() else (RunAgent.OFFLINE, "")
    runs_graph.run_create(
        workspace=workspace, run_id=run_id, question=question, agent=agent, model=model,
        created_by=actor_name(actor), now=now_iso(),
    )  # fmt: skip
    with transaction.atomic():
        record_event(
            actor=actor,
            workspace=workspace,
            verb="agent.asked",
            target=question[:255],
            payload={"run_id": run_id, "agent": agent},
        )
        # Imported here: the task module imports this one.
        from agents.tasks import execute_run

        transaction.on_commit(lambda: execute_run.delay(str(workspace.id), run_id))
    return run_id


def run_execute(*, workspace: Workspace, run_id: str) -> Run | None:
    """Runs the Analyst and the Coordinator, applies rule 2, and writes the outcome in one query."""
    run = runs_graph.run_get(workspace=workspace, run_id=run_id)
    if run is None or not run.busy:
        return run
    last_saved = [0.0]

    def save_progress(trajectory: Trajectory) -> None:
        # At most a few writes a second: the run page polls, it does not need every event.
        if time.monotonic() - last_saved[0] > 0.3:
            last_saved[0] = time.monotonic()
            runs_graph.run_progress(workspace=workspace, run_id=run_id, trajectory=trajectory.as_json(), now=now_iso())

    trajectory = Trajectory(on_change=save_progress)
    tools = Toolbox(workspace, trajectory)
    try:
        if run.agent == RunAgent.MODEL and not llm.is_configured():
            raise llm.LLMError("This run was queued for a model, but no model is configured now.")
        proposal, verdict = _think(run, tools)
    except llm.LLMError as error:
        trajectory.add(TrajectoryEventKind.FAILED, error=str(error))
        runs_graph.run_fail(
            workspace=workspace, run_id=run_id, error=str(error), trajectory=trajectory.as_json(), now=now_iso()
        )
        return runs_graph.run_get(workspace=workspace, run_id=run_id)
    _finish(workspace, run, trajectory, proposal, verdict)
    return runs_graph.run_get(workspace=workspace, run_id=run_id)


def _think(run: Run, tools: Toolbox) -> tuple[Proposal, Verdict]:
    """The Analyst, the handoff, the Coordinator: model or offline, same tools, same record."""
    trajectory = tools.trajectory
    if run.agent == RunAgent.MODEL:
        deadline = time.monotonic() + float(settings.AFTERHACK_AGENT_TIMEOUT)
        proposal = model_analyst(
            run.question, tools, max_steps=int(settings.AFTERHACK_AGENT_MAX_STEPS), deadline=deadline
        )
        trajectory.add(
            TrajectoryEventKind.HANDOFF, from_role="analyst", to_role="coordinator", payload=proposal.as_json()
        )
        verdict, usage = model_coordinator(run.question, proposal)
        trajectory.spent("coordinator", usage)
    else:
        proposal = offline_analyst(run.question, tools)
        trajectory.add(
            TrajectoryEventKind.HANDOFF, from_role="analyst", to_role="coordinator", payload=proposal.as_json()
        )
        verdict = offline_coordinator(run.question, proposal, tools.statements)
    trajectory.add(
        TrajectoryEventKind.VERDICT, title=verdict.title, claim_ids=verdict.claim_ids, actions=verdict.actions
    )
    return proposal, verdict


def _finish(workspace: Workspace, run: Run, trajectory: Trajectory, proposal: Proposal, verdict: Verdict) -> None:
    kept, dropped = allowed_citations(
        verdict.claim_ids, searched=set(trajectory.searched), retrieved=set(trajectory.retrieved)
    )
    for item in dropped:
        trajectory.add(TrajectoryEventKind.DROPPED, claim_id=item.claim_id[:100], why=item.why)
    actions = [{"id": str(uuid.uuid4()), "title": title} for title in verdict.actions] if kept else []
    if verdict.actions and not kept:
        trajectory.add(
            TrajectoryEventKind.ACTIONS_WITHHELD,
            titles=verdict.actions,
            why="A decision without source-backed support gets no actions.",
        )
    step_of = {e.get("claim_id"): e["step"] for e in trajectory.events if e["kind"] == TrajectoryEventKind.RETRIEVE}
    search_step = {
        cid: e["step"] for e in trajectory.events if e["kind"] == TrajectoryEventKind.SEARCH for cid in e["result_ids"]
    }
    outcome = runs_graph.run_finish(
        workspace=workspace, run_id=run.id, trajectory=trajectory.as_json(),
        searched=[{"claim_id": cid, "query": q, "step": search_step.get(cid, 0)} for cid, q in trajectory.searched.items()],
        retrieved=[{"claim_id": cid, "fragment_id": fid, "step": step_of.get(cid, 0)} for cid, fid in trajectory.retrieved.items()],
        handoff_id=str(uuid.uuid4()), handoff_payload=proposal.as_json(), decision_id=str(uuid.uuid4()),
        title=verdict.title, fallback_title=NO_ANSWER_TITLE, rationale=verdict.rationale, review_reason=NO_ANSWER_REASON,
        support_ids=kept, actions=actions, now=now_iso(),
    )  # fmt: skip
    if outcome is None:
        logger.warning("run %s was no longer active when it finished", run.id)


def run_fail_unexpectedly(*, workspace: Workspace, run_id: str) -> None:
    """Marks a run failed after an unexpected error, so it never stays 'running'."""
    why = "The run stopped on an internal error; it produced nothing. Try again."
    runs_graph.run_fail(workspace=workspace, run_id=run_id, error=why, trajectory={"events": []}, now=now_iso())
