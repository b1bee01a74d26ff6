"""The agents app's slice of the graph for runs of outside agents over MCP: one AgentRun (origin 'mcp') per MCP
session and workspace, its trajectory appended one step per query, and the decisions it records under rule 2.

A run of the built-in agent keeps its trajectory as one JSON text, written by the one process that runs it. An
MCP session's tool calls may arrive at once on several web workers and a session may make thousands, so each
step is a node of its own, `(r)-[:STEP]->(:RunStep {n, event, at})` (`event` a JSON text), numbered by a counter
on the run that the same single query increments, together with the SEARCHED and RETRIEVED edges rule 2 reads:
concurrent calls of one session lose nothing, and a step costs the same however long the session. (Runs written
before steps were nodes keep theirs as a list, `r.events`; they are read as the first steps.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from afterhack import graph
from afterhack.cypher import hold_members, word
from afterhack.graph import BUMP_REVISION, HasGraph
from afterhack.holds import claim_holds
from agents.statuses import DecisionKind, DecisionStatus, Origin, RunAgent, RunOrigin
from claims.statuses import JobStatus

# The run of this session in this workspace, created by the first step that needs it.
RUN_MERGE = f"""
MERGE (r:AgentRun {{id: $run_id}})
ON CREATE SET r.origin = {word(RunOrigin.MCP)}, r.question = $question, r.status = {word(JobStatus.RUNNING)}, r.agent = {word(RunAgent.MCP)}, r.model = '',
              r.error = null, r.created_at = $now, r.finished_at = null, r.created_by = $created_by,
              r.trajectory = '{{}}', r.steps = 0
"""

# The run's next step number (a run written before steps were nodes goes on after its listed steps).
NEXT_STEP = "SET r.steps = coalesce(r.steps, size(coalesce(r.events, []))) + 1, r.updated_at = $now\n"

# One step: appended to the trajectory, with what it searched and retrieved (never twice the same edge).
MCP_STEP = (
    RUN_MERGE
    + NEXT_STEP
    + """WITH r
CREATE (r)-[:STEP]->(:RunStep {n: r.steps, event: $event, at: $now})
WITH r
CALL {
  WITH r
  UNWIND $searched AS claim_id
  MATCH (c:Claim {id: claim_id})
  MERGE (r)-[:SEARCHED]->(c)
}
CALL {
  WITH r
  UNWIND $retrieved AS t
  MATCH (f:SourceFragment {id: t.fragment_id})
  MERGE (r)-[:RETRIEVED {claim_id: t.claim_id}]->(f)
}
RETURN r.steps AS step
"""
)


@dataclass(frozen=True)
class RunKey:
    """Which run a step belongs to, and how to create it when it is the session's first step in the workspace."""

    run_id: str
    question: str
    created_by: str


def _run_params(key: RunKey, now: str) -> dict[str, Any]:
    return {"run_id": key.run_id, "question": key.question, "created_by": key.created_by, "now": now}


def mcp_step(
    *,
    workspace: HasGraph,
    key: RunKey,
    event: str,
    now: str,
    searched: list[str] | None = None,
    retrieved: list[dict[str, str]] | None = None,
) -> int:
    """Appends one step (a JSON text) to the session's run, creating the run if needed; returns its step number."""
    params = {**_run_params(key, now), "event": event, "searched": searched or [], "retrieved": retrieved or []}
    return int(graph.query(workspace, MCP_STEP, params)[0][0])


# A decision under rule 2, in one query. Each cited claim (in `$cited`, one entry per claim of each justification:
# its group `g` and id) gets a code: 'missing' (no such claim), 'not_searched' or 'not_retrieved' (in this run),
# 'not_current:<status>', or 'ok'. A justification survives only if all of its claims are 'ok'; the decision rests
# on the survivors (renumbered in order), or, with none, is the agent's unanswered question. The step is appended
# with the codes in the order cited; the caller turns them into words.
MCP_DECIDE = (
    RUN_MERGE
    + """
WITH r
UNWIND range(0, size($cited) - 1) AS i
WITH r, i, $cited[i] AS x
OPTIONAL MATCH (c:Claim {id: x.id})
OPTIONAL MATCH (r)-[s:SEARCHED]->(c)
OPTIONAL MATCH (r)-[t:RETRIEVED]->(:SourceFragment) WHERE t.claim_id = x.id
WITH r, i, x, c, count(s) > 0 AS searched, count(t) > 0 AS retrieved
WITH r, i, x, CASE WHEN c IS NULL THEN 'missing' WHEN NOT searched THEN 'not_searched'
                   WHEN NOT retrieved THEN 'not_retrieved' WHEN NOT """
    + claim_holds("c")
    + f""" THEN 'not_current:' + c.status ELSE 'ok' END AS code
ORDER BY i
WITH r, collect(x.g) AS groups, collect(x.id) AS ids, collect(code) AS codes
WITH r, groups, ids, codes,
     [g IN range(0, $group_count - 1) WHERE all(k IN range(0, size(codes) - 1) WHERE groups[k] <> g OR codes[k] = 'ok')]
       AS kept
WITH r, groups, ids, codes, kept, CASE WHEN size(kept) > 0 THEN {word(DecisionStatus.SUPPORTED)} ELSE {word(DecisionStatus.NEEDS_REVIEW)} END AS status
CREATE (r)-[:PRODUCED]->(d:Decision {{id: $decision_id, origin: {word(Origin.AGENT)}, run_id: r.id, created_at: $now,
                                     created_by: $created_by, status: status, question: $title,
                                     kind: CASE WHEN status = {word(DecisionStatus.SUPPORTED)} THEN {word(DecisionKind.AGENT)} ELSE {word(DecisionKind.UNANSWERED)} END,
                                     title: CASE WHEN status = {word(DecisionStatus.SUPPORTED)} THEN $title ELSE $fallback_title END,
                                     rationale: $rationale,
                                     review_reason: CASE WHEN status = {word(DecisionStatus.SUPPORTED)} THEN null ELSE $review_reason END}})
"""
    + NEXT_STEP
    + """WITH r, d, groups, ids, codes, kept, status
CREATE (r)-[:STEP]->(:RunStep {n: r.steps, at: $now, event: $event_head + ', "status": "' + status + '", "codes": ['
  + reduce(text = '', k IN range(0, size(codes) - 1) | text + CASE WHEN k = 0 THEN '' ELSE ', ' END
           + '"' + codes[k] + '"') + ']}'})
WITH r, d, groups, ids, codes, kept, status
CALL {
  WITH d, groups, ids, kept
  UNWIND [k IN range(0, size(ids) - 1) WHERE groups[k] IN kept] AS k
  MATCH (c:Claim {id: ids[k]})
  CREATE (c)-[:SUPPORTS {justification: size([g IN kept WHERE g < groups[k]])}]->(d)
}
WITH d, codes, status
"""
    + BUMP_REVISION
    + """
RETURN {status: status, codes: codes} AS outcome
"""
)


@dataclass(frozen=True)
class Decided:
    """What rule 2 made of a decision: its status, and one code per cited claim in the order cited."""

    status: DecisionStatus
    codes: list[str]

    def __post_init__(self) -> None:
        hold_members(self, status=DecisionStatus)


def mcp_decide(
    *,
    workspace: HasGraph,
    key: RunKey,
    decision_id: str,
    cited: list[dict[str, Any]],
    group_count: int,
    title: str,
    fallback_title: str,
    rationale: str,
    review_reason: str,
    event_head: str,
    now: str,
) -> Decided:
    """Records the decision on the justifications that survive rule 2 (checked and written in one query).

    `cited` holds {"g": justification, "id": canonical claim id}; `event_head` is the step's JSON text without
    its closing brace, which the query completes with the status and the codes it found."""
    params = {
        **_run_params(key, now), "decision_id": decision_id, "cited": cited, "group_count": group_count,
        "title": title, "fallback_title": fallback_title, "rationale": rationale, "review_reason": review_reason,
        "event_head": event_head,
    }  # fmt: skip
    outcome = graph.records(workspace, MCP_DECIDE, params)[0]
    return Decided(outcome["status"], list(outcome["codes"]))


# A page of the run's steps, newest first (those numbered below $before, if given), with how many it has in all,
# the steps of a run written before steps were nodes, and every claim it searched and retrieved (rule 2's edges).
MCP_STEPS = """
MATCH (r:AgentRun {id: $run_id})
OPTIONAL MATCH (r)-[:STEP]->(s:RunStep) WHERE $before IS NULL OR s.n < $before
WITH r, s ORDER BY s.n DESC LIMIT $limit
WITH r, collect(s {.n, .event}) AS page
OPTIONAL MATCH (r)-[:SEARCHED]->(c:Claim)
WITH r, page, collect(DISTINCT c.id) AS searched
OPTIONAL MATCH (r)-[t:RETRIEVED]->(:SourceFragment)
WITH r, page, searched, collect(DISTINCT t.claim_id) AS retrieved
RETURN {page: page, total: coalesce(r.steps, 0), listed: coalesce(r.events, []), searched: searched,
        retrieved: retrieved} AS steps
"""


@dataclass(frozen=True)
class StepPage:
    """Some of a run's steps, oldest first, as (number, JSON text); how many it has; what it searched and
    retrieved in all."""

    steps: list[tuple[int, str]]
    total: int
    searched: list[str]
    retrieved: list[str]


def mcp_steps(*, workspace: HasGraph, run_id: str, limit: int, before: int | None = None) -> StepPage:
    """At most `limit` of the run's steps: the newest, or the newest of those numbered below `before`."""
    rows = graph.ro_records(workspace, MCP_STEPS, {"run_id": run_id, "before": before, "limit": limit})
    if not rows:
        return StepPage([], 0, [], [])
    row = rows[0]
    listed = [(n, text) for n, text in enumerate(row["listed"], start=1) if before is None or n < before]
    steps = sorted([(int(s["n"]), s["event"]) for s in row["page"]] + listed)[-limit:]
    total = max(int(row["total"]), len(row["listed"]))
    return StepPage(steps, total, sorted(row["searched"]), sorted(r for r in row["retrieved"] if r))
