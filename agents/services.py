"""Writes of the agents app: asking the agent (a run), decisions and actions made by people, a person's
marks on an action. A reviewer's answer to a flagged decision changes what holds: corrections/review.py."""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction

from afterhack import llm
from afterhack.clock import now_iso
from afterhack.errors import Conflict, NotFound, UserError, found
from afterhack.holds import status_holds
from afterhack.text import MAX_QUESTION_CHARS, MAX_RATIONALE_CHARS, MAX_TITLE_CHARS, clean_text
from agents import graph as agents_graph
from agents import mcp_graph
from agents.analyst import Proposal, Toolbox, Trajectory, model_analyst, offline_analyst
from agents.coordinator import (
    NO_ANSWER_REASON,
    NO_ANSWER_TITLE,
    Verdict,
    allowed_citations,
    model_coordinator,
    offline_coordinator,
)
from agents.mcp_trajectory import Citations, citations_kept
from agents.statuses import ActionStatus, DecisionStatus, RunAgent, RunOrigin, TrajectoryEventKind
from claims.services.claims import InvalidSupport
from workspaces.models import Workspace
from workspaces.services import actor_name, record_event

logger = logging.getLogger("agents")

MAX_SUPPORTS = 50


class RunNotFound(NotFound):
    thing = "run"


class DecisionNotFound(NotFound):
    thing = "decision"


class ActionNotFound(NotFound):
    thing = "action"


def clean_question(question: object) -> str:
    """The question with its whitespace folded, or UserError saying what is wrong with it."""
    return clean_text(
        question, noun="A question", max_chars=MAX_QUESTION_CHARS,
        missing="Ask a question: it is empty.", not_text="A question must be text.",
    )  # fmt: skip


# -- runs -------------------------------------------------------------------------------------


def ask(*, workspace: Workspace, question: object, actor: Any) -> str:
    """Queues a run of the agent on the question; returns the run id."""
    question = clean_question(question)
    run_id = str(uuid.uuid4())
    agent, model = (RunAgent.MODEL, llm.model_name()) if llm.is_configured() else (RunAgent.OFFLINE, "")
    agents_graph.run_create(
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


def run_execute(*, workspace: Workspace, run_id: str) -> agents_graph.Run | None:
    """Runs the Analyst and the Coordinator, applies rule 2, and writes the outcome in one query."""
    run = agents_graph.run_get(workspace=workspace, run_id=run_id)
    if run is None or not run.busy:
        return run
    last_saved = [0.0]

    def save_progress(trajectory: Trajectory) -> None:
        # At most a few writes a second: the run page polls, it does not need every event.
        if time.monotonic() - last_saved[0] > 0.3:
            last_saved[0] = time.monotonic()
            agents_graph.run_progress(
                workspace=workspace, run_id=run_id, trajectory=trajectory.as_json(), now=now_iso()
            )

    trajectory = Trajectory(on_change=save_progress)
    tools = Toolbox(workspace, trajectory)
    try:
        if run.agent == RunAgent.MODEL and not llm.is_configured():
            raise llm.LLMError("This run was queued for a model, but no model is configured now.")
        proposal, verdict = _think(run, tools)
    except llm.LLMError as error:
        trajectory.add(TrajectoryEventKind.FAILED, error=str(error))
        agents_graph.run_fail(
            workspace=workspace, run_id=run_id, error=str(error), trajectory=trajectory.as_json(), now=now_iso()
        )
        return agents_graph.run_get(workspace=workspace, run_id=run_id)
    _finish(workspace, run, trajectory, proposal, verdict)
    return agents_graph.run_get(workspace=workspace, run_id=run_id)


def _think(run: agents_graph.Run, tools: Toolbox) -> tuple[Proposal, Verdict]:
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


def _finish(
    workspace: Workspace, run: agents_graph.Run, trajectory: Trajectory, proposal: Proposal, verdict: Verdict
) -> None:
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
    outcome = agents_graph.run_finish(
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
    agents_graph.run_fail(workspace=workspace, run_id=run_id, error=why, trajectory={"events": []}, now=now_iso())


# -- decisions and actions by people ----------------------------------------------------------------


def clean_title(title: object, what: str) -> str:
    return clean_text(title, noun="A title", max_chars=MAX_TITLE_CHARS, missing=f"{what} needs a title.")


def clean_justifications(justifications: object) -> list[list[str]]:
    if not isinstance(justifications, list) or not justifications:
        raise InvalidSupport("A decision needs “justifications”: a list of lists of claim or decision ids.")
    groups = []
    for group in justifications:
        if not isinstance(group, list) or not group or not all(isinstance(i, str) and i for i in group):
            raise InvalidSupport("Each justification must be a non-empty list of claim or decision ids.")
        groups.append(list(dict.fromkeys(group)))
    if sum(len(g) for g in groups) > MAX_SUPPORTS:
        raise InvalidSupport(f"A decision can rest on at most {MAX_SUPPORTS} supports.")
    return groups


def clean_rationale(rationale: object) -> str:
    """The rationale with its whitespace folded ('' when there is none), or UserError saying what is wrong."""
    return clean_text(
        rationale, noun="A rationale", max_chars=MAX_RATIONALE_CHARS, required=False,
        missing="", not_text="A rationale must be text (or left out).",
    )  # fmt: skip


def decision_add(
    *, workspace: Workspace, title: object, rationale: object, justifications: object, actor: Any
) -> agents_graph.Decision:
    """A supported decision; each justification is a set of claims or decisions that together suffice."""
    title = clean_title(title, "A decision")
    rationale_text = clean_rationale(rationale)
    groups = clean_justifications(justifications)
    decision_id = str(uuid.uuid4())
    return _write_audited(
        write=lambda: agents_graph.decision_create(
            workspace=workspace, decision_id=decision_id, title=title, rationale=rationale_text,
            justifications=groups, created_by=actor_name(actor), now=now_iso(),
        ),
        refused=lambda: InvalidSupport(why_not_supported(workspace, groups)),
        actor=actor, workspace=workspace, verb="decision.created", target=title,
        payload={"decision_id": decision_id, "justifications": groups},
        read=lambda: agents_graph.decision_get(workspace=workspace, decision_id=decision_id),
    )  # fmt: skip


def _write_audited[Node](
    *,
    write: Callable[[], bool],
    refused: Callable[[], Exception],
    actor: Any,
    workspace: Workspace,
    verb: str,
    target: str,
    payload: dict[str, Any],
    read: Callable[[], Node | None],
) -> Node:
    """One graph write (one query) audited in the same Postgres transaction, then the node as it now stands.
    Where the graph refused the write, `refused()` (asked inside the transaction, so it sees the state that
    refused) is raised and nothing is audited."""
    with transaction.atomic():
        if not write():
            raise refused()
        record_event(actor=actor, workspace=workspace, verb=verb, target=target, payload=payload)
    node = read()
    assert node is not None
    return node


def why_not_supported(workspace: Workspace, groups: list[list[str]]) -> str:
    """Why a decision cannot rest on these justifications (one is missing or does not hold), in words."""
    ids = sorted({i for g in groups for i in g})
    states = agents_graph.node_states(workspace=workspace, ids=ids)
    missing = [i for i in ids if i not in states]
    if missing:
        return f"These are not claims or decisions of this workspace: {', '.join(i[:60] for i in missing)}."
    weak = [
        f"{i} ({label.lower()} is {status}{SUPERSEDED_HINT if status == DecisionStatus.SUPERSEDED else ''})"
        for i, (label, status) in states.items()
        if not status_holds(decision=label == "Decision", status=status)
    ]
    if not weak:
        return "What this decision would rest on changed while it was being saved; try again."
    return f"A decision can only rest on current claims and supported decisions; these are not: {', '.join(weak)}."


SUPERSEDED_HINT = ": it was revised, rest on the decision that replaced it"


def decision_get(*, workspace: Workspace, decision_id: str) -> agents_graph.Decision:
    return found(
        agents_graph.decision_get(workspace=workspace, decision_id=decision_id),
        DecisionNotFound(),
    )


def action_add(*, workspace: Workspace, title: object, decision_ids: object, actor: Any) -> agents_graph.Action:
    """An action that depends on all the decisions (held at once if one of them needs review)."""
    title = clean_title(title, "An action")
    if (
        not isinstance(decision_ids, list)
        or not decision_ids
        or not all(isinstance(i, str) and i for i in decision_ids)
    ):
        raise InvalidSupport("An action needs “decision_ids”: a non-empty list of decision ids.")
    ids = list(dict.fromkeys(decision_ids))[:MAX_SUPPORTS]
    action_id = str(uuid.uuid4())
    return _write_audited(
        write=lambda: agents_graph.action_create(
            workspace=workspace, action_id=action_id, title=title, decision_ids=ids,
            created_by=actor_name(actor), now=now_iso(),
        ),
        refused=lambda: _why_no_action(workspace, ids),
        actor=actor, workspace=workspace, verb="action.created", target=title,
        payload={"action_id": action_id, "decision_ids": ids},
        read=lambda: agents_graph.action_get(workspace=workspace, action_id=action_id),
    )  # fmt: skip


def _why_no_action(workspace: Workspace, ids: list[str]) -> UserError:
    """Why no action could be made on these decisions: one is missing, superseded or dismissed."""
    states = agents_graph.node_states(workspace=workspace, ids=ids)
    missing = [i[:60] for i in ids if states.get(i, ("", ""))[0] != "Decision"]
    if missing:
        return InvalidSupport(f"These are not decisions of this workspace: {', '.join(missing)}.")
    for decision_id in ids:
        decision = agents_graph.decision_get(workspace=workspace, decision_id=decision_id)
        if decision is not None and decision.status == DecisionStatus.SUPERSEDED:
            return Conflict(
                f"{superseded_words(workspace, decision)} No new action can depend on it: add it to that one."
            )
    return Conflict("One of these decisions was dismissed: no new action can depend on it.")


# Which statuses a person may move an action to, from which. Back to pending is a reopen: only a
# cancelled action, and only while every decision it depends on holds (an undo of a cancel).
ACTION_MOVES = {
    ActionStatus.DONE: [ActionStatus.PENDING],
    ActionStatus.CANCELLED: [ActionStatus.PENDING, ActionStatus.HELD],
    ActionStatus.PENDING: [ActionStatus.CANCELLED],
}
ACTION_VERBS = {
    ActionStatus.DONE: "action.done",
    ActionStatus.CANCELLED: "action.cancelled",
    ActionStatus.PENDING: "action.reopened",
}


def action_mark(*, workspace: Workspace, action_id: str, status: object, actor: Any) -> agents_graph.Action:
    """Marks an action done or cancelled, or reopens a cancelled one (pending again) while its decisions hold."""
    if not isinstance(status, str) or status not in ACTION_MOVES:
        raise UserError("An action can be marked “done” or “cancelled”, or reopened with “pending”.")
    move = ActionStatus(status)
    action = found(
        agents_graph.action_get(workspace=workspace, action_id=action_id),
        ActionNotFound(),
    )
    return _write_audited(
        write=lambda: agents_graph.action_set_status(
            workspace=workspace, action_id=action_id, status=move.value,
            from_statuses=[s.value for s in ACTION_MOVES[move]], require_holding=move is ActionStatus.PENDING,
            actor=actor_name(actor), now=now_iso(),
        ),
        refused=lambda: Conflict(_why_not_moved(workspace, action_id, move)),
        actor=actor, workspace=workspace, verb=ACTION_VERBS[move], target=action.title,
        payload={"action_id": action_id},
        read=lambda: agents_graph.action_get(workspace=workspace, action_id=action_id),
    )  # fmt: skip


def _why_not_moved(workspace: Workspace, action_id: str, move: ActionStatus) -> str:
    """Why the action could not be moved, in words, from where it stands now."""
    current = agents_graph.action_get(workspace=workspace, action_id=action_id)
    now_status = current.status if current else "gone"
    if move is ActionStatus.PENDING:
        if now_status != ActionStatus.CANCELLED:
            return f"Only a cancelled action can be reopened; this one is {now_status}."
        unheld = agents_graph.action_unheld_decisions(workspace=workspace, action_id=action_id)
        if not unheld:
            return "A decision it depends on changed in the meantime; try again."
        return (
            "This action can be reopened only while every decision it depends on holds: "
            + "; ".join(_why_unheld(decision) for decision in unheld)
            + "."
        )
    if now_status == ActionStatus.HELD:
        return "This action is held: a decision it depends on needs review. Resolve that decision first, or cancel the action."
    return f"This action is already {now_status}."


def _why_unheld(decision: agents_graph.UnheldDecision) -> str:
    if decision.dismissed:
        return f"“{decision.title}” was dismissed"
    if decision.status == DecisionStatus.NEEDS_REVIEW:
        return f"“{decision.title}” needs review (re-justify it first)"
    return f"“{decision.title}” is {decision.status.replace('_', ' ')}"


def superseded_words(workspace: Workspace, decision: agents_graph.Decision) -> str:
    """Who revised a superseded decision, when, and into which decision, in a sentence."""
    new = (
        agents_graph.decision_get(workspace=workspace, decision_id=decision.superseded_by)
        if decision.superseded_by
        else None
    )
    into = f"“{new.title}” ({new.id})" if new else "another decision"
    return (
        f"“{decision.title}” was revised by {decision.superseded_by_actor or 'a reviewer'} "
        f"on {(decision.superseded_at or '')[:10] or 'an earlier date'}: it is superseded by {into}."
    )


# -- runs of outside agents over MCP ------------------------------------------------------------------

# Run ids are derived from the MCP session and the workspace, so every web worker finds the same run.
MCP_RUNS = uuid.UUID("0d5c3a52-9a43-4b0e-8f3e-5f1d2f6a9c11")
MCP_NO_ANSWER_REASON = (
    "No justification it cited survived rule 2: each cites a claim this MCP session did not both find "
    "with search_claims and retrieve with get_fragment, or one that is no longer current."
)


@dataclass(frozen=True)
class McpRun:
    """The run of one MCP session in one workspace: whose session it is and how its page names it."""

    session_id: str
    label: str
    actor: Any

    def key(self, workspace: Workspace) -> mcp_graph.RunKey:
        run_id = str(uuid.uuid5(MCP_RUNS, f"{self.session_id}/{workspace.id}"))
        return mcp_graph.RunKey(run_id, self.label, actor_name(self.actor))


# What one step of an MCP run keeps: the first words of each text (a query, a quote, a statement) and the first
# claims a search found; the claims themselves, and rule 2's SEARCHED edges to every one, keep the rest.
STEP_TEXT_CHARS = 300
STEP_RESULT_IDS = 20


def _capped(details: dict[str, Any]) -> dict[str, Any]:
    capped = {k: v[:STEP_TEXT_CHARS] if isinstance(v, str) else v for k, v in details.items()}
    if len(ids := details.get("result_ids", [])) > STEP_RESULT_IDS:
        capped.update(result_ids=ids[:STEP_RESULT_IDS], result_count=len(ids))
    return capped


def mcp_record(
    *,
    workspace: Workspace,
    run: McpRun,
    kind: TrajectoryEventKind,
    searched: list[str] | None = None,
    retrieved: list[dict[str, str]] | None = None,
    **details: Any,
) -> str:
    """Appends one step to the session's run in the workspace (the run is created by its first step); returns the
    run id. `searched` claim ids and `retrieved` {claim_id, fragment_id} are what rule 2 will read."""
    now = now_iso()
    key = run.key(workspace)
    event = json.dumps({"kind": kind, "at": now, **_capped(details)})
    mcp_graph.mcp_step(workspace=workspace, key=key, event=event, now=now, searched=searched, retrieved=retrieved)
    return key.run_id


@dataclass(frozen=True)
class McpDecision:
    decision: agents_graph.Decision
    citations: Citations
    run_id: str


def mcp_decide(
    *, workspace: Workspace, run: McpRun, title: object, justifications: object, rationale: object
) -> McpDecision:
    """Rule 2 across an MCP session: the decision rests only on the justifications whose every claim this session
    both searched and retrieved and which is still current (checked in the one query that writes it); with none
    left it is the agent's unanswered question, "No source-backed answer yet", needing review."""
    title = clean_title(title, "A decision")
    rationale_text = clean_rationale(rationale)
    groups = clean_justifications(justifications)
    decision_id, now, key = str(uuid.uuid4()), now_iso(), run.key(workspace)
    cited = [{"g": g, "id": claim_id} for g, group in enumerate(groups) for claim_id in group]
    head = json.dumps({"kind": TrajectoryEventKind.DECISION, "at": now, "decision_id": decision_id, "title": title,
                       "justifications": groups})[:-1]  # fmt: skip
    with transaction.atomic():
        decided = mcp_graph.mcp_decide(
            workspace=workspace, key=key, decision_id=decision_id, cited=cited, group_count=len(groups),
            title=title, fallback_title=NO_ANSWER_TITLE, rationale=rationale_text, review_reason=MCP_NO_ANSWER_REASON,
            event_head=head, now=now,
        )  # fmt: skip
        found = citations_kept(groups, decided.codes)
        record_event(
            actor=run.actor, workspace=workspace, verb="decision.created", target=title,
            payload={"decision_id": decision_id, "run_id": key.run_id, "origin": RunOrigin.MCP,
                     "justifications": found.kept, "dropped": found.dropped},
        )  # fmt: skip
    return McpDecision(decision_get(workspace=workspace, decision_id=decision_id), found, key.run_id)
