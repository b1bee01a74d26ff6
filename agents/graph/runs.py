"""Runs of the built-in agent in the graph: a run queued, its progress, its failure, and, in one query, everything
a finished run produced (what it searched and retrieved, the handoff, its decision and actions); and the reads of
runs, the built-in agent's and outside agents' MCP sessions alike (whose steps agents/graph/mcp.py writes)."""

from __future__ import annotations

import json
from typing import Any

from afterhack import graph
from afterhack.cypher import word, words
from afterhack.graph import BUMP_REVISION, HasGraph
from afterhack.holds import claim_holds
from afterhack.ids import parse_id
from afterhack.lists.graph import after_params, keyset
from agents.graph import mcp as mcp_graph
from agents.graph.shapes import Run
from agents.mcp_trajectory import mcp_trajectory
from agents.statuses import ActionStatus, DecisionKind, DecisionStatus, Origin, RunOrigin
from claims.statuses import JobStatus

RUN_CREATE = f"""
CREATE (r:AgentRun {{id: $run_id, question: $question, status: {word(JobStatus.QUEUED)}, agent: $agent, model: $model, error: null,
                    created_at: $now, updated_at: $now, finished_at: null, created_by: $created_by, trajectory: '{{}}'}})
RETURN r.id
"""


def run_create(
    *, workspace: HasGraph, run_id: str, question: str, agent: str, model: str, created_by: str, now: str
) -> None:
    """Records a queued run of the agent."""
    params = {
        "run_id": run_id,
        "question": question,
        "agent": agent,
        "model": model,
        "created_by": created_by,
        "now": now,
    }
    graph.query(workspace, RUN_CREATE, params)


RUN_PROGRESS = f"""
MATCH (r:AgentRun {{id: $run_id}})
WHERE r.status IN {words(JobStatus.QUEUED, JobStatus.RUNNING)}
SET r.status = {word(JobStatus.RUNNING)}, r.trajectory = $trajectory, r.updated_at = $now
RETURN r.id
"""


def run_progress(*, workspace: HasGraph, run_id: str, trajectory: dict[str, Any], now: str) -> bool:
    """Stores the trajectory so far (for the live run page); False if the run is no longer active."""
    params = {"run_id": run_id, "trajectory": json.dumps(trajectory), "now": now}
    return bool(graph.query(workspace, RUN_PROGRESS, params))


RUN_FAIL = f"""
MATCH (r:AgentRun {{id: $run_id}})
WHERE r.status IN {words(JobStatus.QUEUED, JobStatus.RUNNING)}
SET r.status = {word(JobStatus.FAILED)}, r.error = $error, r.trajectory = $trajectory, r.updated_at = $now, r.finished_at = $now
RETURN r.id
"""


def run_fail(*, workspace: HasGraph, run_id: str, error: str, trajectory: dict[str, Any], now: str) -> None:
    """Ends the run as failed, with a sentence saying why; it produced nothing."""
    params = {"run_id": run_id, "error": error, "trajectory": json.dumps(trajectory), "now": now}
    graph.query(workspace, RUN_FAIL, params)


# Everything a finished run produced, in one query: what it searched and retrieved, the
# handoff, the decision with its supports (only claims still current at this moment), and
# the actions (only if the decision is supported). A claim superseded while the run was
# finishing therefore cannot end up supporting its decision. Without a surviving citation the
# decision is an unanswered question: kind 'unanswered', carrying the question asked.
RUN_FINISH = (
    f"""
MATCH (r:AgentRun {{id: $run_id}})
WHERE r.status IN {words(JobStatus.QUEUED, JobStatus.RUNNING)}
OPTIONAL MATCH (c:Claim) WHERE c.id IN $support_ids AND """
    + claim_holds("c")
    + f"""
WITH r, collect(c) AS live
WITH r, live, CASE WHEN size(live) > 0 THEN {word(DecisionStatus.SUPPORTED)} ELSE {word(DecisionStatus.NEEDS_REVIEW)} END AS status
SET r.status = {word(JobStatus.DONE)}, r.trajectory = $trajectory, r.updated_at = $now, r.finished_at = $now
WITH r, live, status
CALL {{
  WITH r
  UNWIND $searched AS s
  MATCH (c:Claim {{id: s.claim_id}})
  CREATE (r)-[:SEARCHED {{query: s.query, step: s.step}}]->(c)
}}
CALL {{
  WITH r
  UNWIND $retrieved AS t
  MATCH (f:SourceFragment {{id: t.fragment_id}})
  CREATE (r)-[:RETRIEVED {{claim_id: t.claim_id, step: t.step}}]->(f)
}}
CREATE (r)-[:HANDOFF]->(:Handoff {{id: $handoff_id, from_role: 'analyst', to_role: 'coordinator',
                                  payload: $handoff_payload, created_at: $now}})
CREATE (r)-[:PRODUCED]->(d:Decision {{id: $decision_id, origin: {word(Origin.AGENT)}, run_id: r.id, created_at: $now,
                                     created_by: r.created_by, status: status, question: r.question,
                                     kind: CASE WHEN status = {word(DecisionStatus.SUPPORTED)} THEN {word(DecisionKind.AGENT)} ELSE {word(DecisionKind.UNANSWERED)} END,
                                     title: CASE WHEN status = {word(DecisionStatus.SUPPORTED)} THEN $title ELSE $fallback_title END,
                                     rationale: $rationale,
                                     review_reason: CASE WHEN status = {word(DecisionStatus.SUPPORTED)} THEN null ELSE $review_reason END}})
WITH r, d, live, status
CALL {{
  WITH d, live
  UNWIND range(0, size(live) - 1) AS j
  WITH d, live[j] AS c, j
  CREATE (c)-[:SUPPORTS {{justification: j}}]->(d)
}}
CALL {{
  WITH r, d, status
  UNWIND CASE WHEN status = {word(DecisionStatus.SUPPORTED)} THEN $actions ELSE [] END AS a
  CREATE (r)-[:PRODUCED]->(:Action {{id: a.id, title: a.title, status: {word(ActionStatus.PENDING)}, origin: {word(Origin.AGENT)}, created_at: $now,
                                    created_by: r.created_by}})-[:DEPENDS_ON]->(d)
}}
WITH d
"""
    + BUMP_REVISION
    + """
RETURN d {.id, .status} AS decision
"""
)


def run_finish(
    *,
    workspace: HasGraph,
    run_id: str,
    trajectory: dict[str, Any],
    searched: list[dict[str, Any]],
    retrieved: list[dict[str, Any]],
    handoff_id: str,
    handoff_payload: dict[str, Any],
    decision_id: str,
    title: str,
    fallback_title: str,
    rationale: str,
    review_reason: str,
    support_ids: list[str],
    actions: list[dict[str, str]],
    now: str,
) -> tuple[str, str] | None:
    """Writes everything the run produced in one atomic query; returns (decision id, status), or None if the run was not active."""
    params = {
        "run_id": run_id, "trajectory": json.dumps(trajectory), "searched": searched, "retrieved": retrieved,
        "handoff_id": handoff_id, "handoff_payload": json.dumps(handoff_payload), "decision_id": decision_id,
        "title": title, "fallback_title": fallback_title, "rationale": rationale, "review_reason": review_reason,
        "support_ids": support_ids, "actions": actions, "now": now,
    }  # fmt: skip
    rows = graph.records(workspace, RUN_FINISH, params)
    return (rows[0]["id"], rows[0]["status"]) if rows else None


# A run with its trajectory (JSON text; an MCP session's is a list of steps), its decisions (newest first) and
# the actions it produced as one map; the decisions are gathered in a WITH before.
RUN_FIELDS = (
    "r {.id, .question, .status, .agent, .model, .error, .created_at, .updated_at, .finished_at, .created_by, "
    f"origin: coalesce(r.origin, {word(RunOrigin.AGENT)}), trajectory: trajectory, decision_ids: decision_ids, "
    "action_ids: action_ids} AS run"
)
RUN_DECISIONS = (
    "OPTIONAL MATCH (r)-[:PRODUCED]->(d:Decision) WITH r, d ORDER BY d.created_at DESC, d.id DESC "
    "WITH r, collect(d.id) AS decision_ids "
)

RUN_GET = (
    "MATCH (r:AgentRun {id: $run_id}) " + RUN_DECISIONS + "OPTIONAL MATCH (r)-[:PRODUCED]->(a:Action) "
    "WITH r, r.trajectory AS trajectory, decision_ids, collect(a.id) AS action_ids "
    "RETURN " + RUN_FIELDS
)

RUN_AFTER, RUN_ORDER = keyset("r")

RUN_LIST = (
    "MATCH (r:AgentRun) WHERE "
    + RUN_AFTER
    + " WITH r ORDER BY "
    + RUN_ORDER
    + " LIMIT $limit "
    + RUN_DECISIONS
    + "WITH r, '{}' AS trajectory, decision_ids, [] AS action_ids "
    "RETURN " + RUN_FIELDS + " ORDER BY run.created_at DESC, run.id DESC"
)
RUN_COUNT = "MATCH (r:AgentRun) RETURN count(r)"


# How many steps of an MCP session's run one read shows (a session may make thousands).
STEP_PAGE = 200


def run_get(*, workspace: HasGraph, run_id: str, steps_before: int | None = None) -> Run | None:
    """The run with its trajectory and what it produced, or None. An MCP session's trajectory holds its newest
    STEP_PAGE steps (of those numbered below `steps_before`, if given)."""
    if parse_id(run_id) is None:
        return None
    rows = graph.ro_records(workspace, RUN_GET, {"run_id": run_id})
    if not rows:
        return None
    row = rows[0]
    if row["origin"] != RunOrigin.MCP:
        return Run.from_row(row)
    page = mcp_graph.mcp_steps(workspace=workspace, run_id=run_id, limit=STEP_PAGE, before=steps_before)
    return Run.from_row(row, mcp_trajectory(page, started=row["created_at"], updated=row["updated_at"]))


def run_list(*, workspace: HasGraph, limit: int = 50, after: tuple[str, str] | None = None) -> list[Run]:
    """The newest runs (after the (created_at, id) position `after`), without their trajectories."""
    return [Run.from_row(row) for row in graph.ro_records(workspace, RUN_LIST, {"limit": limit, **after_params(after)})]


def run_count(*, workspace: HasGraph) -> int:
    """How many times the agent was asked in this workspace."""
    return int(graph.ro_query(workspace, RUN_COUNT)[0][0])
