"""Writes of the runs of outside agents over MCP: one run a session and workspace, a step appended per tool call,
and the decisions it records under rule 2 (agents/graph/mcp.py writes each in one query)."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from afterhack.clock import now_iso
from agents.coordinator import NO_ANSWER_TITLE
from agents.graph import mcp as mcp_graph
from agents.graph.shapes import Decision
from agents.mcp_trajectory import Citations, citations_kept
from agents.services.decisions import clean_justifications, clean_rationale, clean_title, decision_get
from agents.statuses import RunOrigin, TrajectoryEventKind
from workspaces.models import Workspace
from workspaces.services.audit import actor_name, record_event

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
    decision: Decision
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
