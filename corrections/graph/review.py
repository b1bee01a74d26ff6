"""Belief maintenance in the graph, a reviewer's part: re-justify, revise or dismiss a flagged decision.

Each is one query that changes what holds and moves the decision's actions with it (see
corrections/graph/apply.py and evidence.py for the rest of belief maintenance). A support must hold (afterhack.holds)
and must not rest on the decision it would hold up.
"""

from __future__ import annotations

from afterhack import graph
from afterhack.cypher import word, words
from afterhack.graph import BUMP_REVISION, HasGraph
from afterhack.history_graph import ChangeCause, ChangeKind, record_change
from afterhack.holds import decision_holds, holds
from afterhack.ids import parse_id
from agents.graph.actions import follow_up_change, follow_ups_follow
from agents.graph.decisions import DECISION_QUESTION, support_params
from agents.statuses import ActionStatus, DecisionKind, DecisionStatus, FollowUp, Origin, RevisedActions
from corrections.graph.apply import DECISION_REVIEW_STATE

# The supports ($support_ids) a flagged decision `d` may rest on anew: the query goes on only if every
# one exists, holds, and is neither `d` nor a decision resting on it (that would be a cycle holding
# itself up).
SUPPORTS_NOT_RESTING_ON_D = (
    """
OPTIONAL MATCH (d)-[:SUPPORTS*1..]->(down:Decision)
WITH d, collect(DISTINCT down.id) + [d.id] AS below
UNWIND $support_ids AS sid
OPTIONAL MATCH (c:Claim {id: sid})
OPTIONAL MATCH (x:Decision {id: sid})
WITH d, below, collect(coalesce(c, x)) AS supports
WITH d, supports WHERE size(supports) = size($support_ids)
  AND all(s IN supports WHERE NOT s.id IN below)
  AND all(s IN supports WHERE """
    + holds("s")
    + """)
"""
)

# New justifications for a flagged decision: it is supported again, and each held action whose
# decisions now all hold is pending again.
DECISION_REJUSTIFY = (
    f"""
MATCH (d:Decision {{id: $decision_id}}) WHERE d.status = {word(DecisionStatus.NEEDS_REVIEW)} AND d.dismissed_at IS NULL
"""
    + SUPPORTS_NOT_RESTING_ON_D
    + """OPTIONAL MATCH ()-[old:SUPPORTS]->(d)
WITH d, supports, coalesce(max(old.justification), -1) + 1 AS first
UNWIND $edges AS e
WITH d, first, e, [s IN supports WHERE s.id = e.sid][0] AS s
CREATE (s)-[:SUPPORTS {justification: first + e.j}]->(d)
WITH DISTINCT d, first
"""
    + record_change(
        "d",
        kind=ChangeKind.DECISION,
        to_status=word(DecisionStatus.SUPPORTED),
        cause=ChangeCause.REJUSTIFICATION,
        cause_id="d.id",
        actor="$actor",
        before=DECISION_REVIEW_STATE,
        also={"justifications_from": "first"},
    )
    + f"""SET d.status = {word(DecisionStatus.SUPPORTED)}, d.review_reason = null, d.flagged_by = null, d.status_changed_at = $now
WITH d
OPTIONAL MATCH (a:Action)-[:DEPENDS_ON]->(d) WHERE a.status = {word(ActionStatus.HELD)}
OPTIONAL MATCH (a)-[:DEPENDS_ON]->(other:Decision) WHERE NOT """
    + decision_holds("other")
    + """
WITH d, a, count(other) AS blocking
FOREACH (x IN CASE WHEN a IS NOT NULL AND blocking = 0 THEN [a] ELSE [] END |
  """
    + record_change(
        "x",
        kind=ChangeKind.ACTION,
        to_status=word(ActionStatus.PENDING),
        cause=ChangeCause.REJUSTIFICATION,
        cause_id="d.id",
        actor="$actor",
    )
    + f"""  SET x.status = {word(ActionStatus.PENDING)}, x.updated_at = $now)
WITH DISTINCT d
"""
    + BUMP_REVISION
    + """
RETURN d.id
"""
)


def decision_rejustify(
    *, workspace: HasGraph, decision_id: str, justifications: list[list[str]], actor: str, now: str
) -> bool:
    """Adds justifications to a decision needing review and makes it supported again; False if any support fails."""
    if parse_id(decision_id) is None or any(parse_id(sid) is None for group in justifications for sid in group):
        return False
    params = {"decision_id": decision_id, **support_params(justifications), "actor": actor, "now": now}
    return bool(graph.query(workspace, DECISION_REJUSTIFY, params))


DECISION_DISMISS = (
    f"""
MATCH (d:Decision {{id: $decision_id}}) WHERE d.status = {word(DecisionStatus.NEEDS_REVIEW)} AND d.dismissed_at IS NULL
"""
    + record_change(
        "d",
        kind=ChangeKind.DECISION,
        to_status="d.status",
        cause=ChangeCause.DISMISSAL,
        cause_id="d.id",
        actor="$actor",
        before=("dismissed_at",),
    )
    + f"""SET d.dismissed_at = $now, d.dismissed_by = $actor
WITH d
OPTIONAL MATCH (a:Action)-[:DEPENDS_ON]->(d) WHERE a.status IN {words(ActionStatus.PENDING, ActionStatus.HELD)}
WITH d, collect(a) AS open
FOREACH (x IN open |
  """
    + record_change(
        "x",
        kind=ChangeKind.ACTION,
        to_status=word(ActionStatus.CANCELLED),
        cause=ChangeCause.DISMISSAL,
        cause_id="d.id",
        actor="$actor",
    )
    + f"""  SET x.status = {word(ActionStatus.CANCELLED)}, x.updated_at = $now)
WITH d, open
"""
    + follow_ups_follow("open", keep=("d",), cause=ChangeCause.DISMISSAL, cause_id="d.id", actor="$actor")
    + f"""
WITH d, [x IN open | x.id] AS cancelled
OPTIONAL MATCH (a:Action)-[:DEPENDS_ON]->(d) WHERE a.status = {word(ActionStatus.DONE)} AND a.follow_up IS NULL
WITH d, cancelled, collect(a) AS done
FOREACH (x IN done |
  """
    + follow_up_change("x", to=word(FollowUp.NEEDED), cause=ChangeCause.DISMISSAL, cause_id="d.id", actor="$actor")
    + f"""  SET x.follow_up = {word(FollowUp.NEEDED)}, x.follow_up_at = $now)
WITH d, cancelled, [x IN done | x.id] AS done
"""
    + BUMP_REVISION
    + """
RETURN {id: d.id, cancelled: cancelled, done: done} AS dismissed
"""
)


def decision_dismiss(
    *, workspace: HasGraph, decision_id: str, actor: str, now: str
) -> tuple[list[str], list[str]] | None:
    """Takes a flagged decision out of the review queue, cancels its open actions and marks its done actions without
    a follow-up state `needed`; the ids (cancelled, marked), or None (nothing written) if it was not waiting for
    review."""
    if parse_id(decision_id) is None:
        return None
    rows = graph.records(workspace, DECISION_DISMISS, {"decision_id": decision_id, "actor": actor, "now": now})
    return (sorted(rows[0]["cancelled"]), sorted(rows[0]["done"])) if rows else None


# A revision replaces a flagged decision by a new, supported one, in one query. The old decision must
# need review and not be dismissed; the new one's supports follow the rules of a new decision, and
# none may be the old decision or rest on it. The old one is kept, superseded, pointing to the new
# one (a property for reads, a SUPERSEDES edge like a corrected claim's for traversals). Its open
# (pending or held) actions either move to the new decision, each pending again only if all its
# decisions now hold, or are cancelled and stay with the old one as history. Decisions resting on
# the old one are left as they are: they already stand or fall on their other supports.
DECISION_REVISE = (
    f"""
MATCH (d:Decision {{id: $decision_id}}) WHERE d.status = {word(DecisionStatus.NEEDS_REVIEW)} AND d.dismissed_at IS NULL
"""
    + SUPPORTS_NOT_RESTING_ON_D
    + "WITH d, supports, "
    + DECISION_QUESTION
    + f""" AS question
CREATE (new:Decision {{id: $new_id, title: $title, rationale: $rationale, status: {word(DecisionStatus.SUPPORTED)}, review_reason: null,
                      origin: {word(Origin.REVIEWER)}, kind: {word(DecisionKind.MANUAL)}, question: question, run_id: null, created_at: $now,
                      created_by: $actor, supersedes: d.id}})
CREATE (new)-[:SUPERSEDES {{at: $now, actor: $actor}}]->(d)
"""
    + record_change(
        "d",
        kind=ChangeKind.DECISION,
        to_status=word(DecisionStatus.SUPERSEDED),
        cause=ChangeCause.REVISION,
        cause_id="new.id",
        actor="$actor",
        before=DECISION_REVIEW_STATE,
    )
    + f"""SET d.status = {word(DecisionStatus.SUPERSEDED)}, d.superseded_by = $new_id, d.superseded_at = $now, d.superseded_by_actor = $actor,
    d.status_changed_at = $now
WITH d, new, supports
CALL {{
  WITH new, supports
  UNWIND $edges AS e
  WITH new, e, [s IN supports WHERE s.id = e.sid][0] AS s
  CREATE (s)-[:SUPPORTS {{justification: e.j}}]->(new)
}}
CALL {{
  WITH d, new
  OPTIONAL MATCH (a:Action)-[dep:DEPENDS_ON]->(d) WHERE a.status IN {words(ActionStatus.PENDING, ActionStatus.HELD)}
  WITH d, new, a, dep WHERE a IS NOT NULL
  WITH d, new, a, dep,
       size([(a)-[:DEPENDS_ON]->(other:Decision) WHERE other.id <> d.id AND NOT """
    + decision_holds("other")
    + f""" | other])
         AS blocking
  FOREACH (r IN CASE WHEN $actions = {word(RevisedActions.MOVE)} THEN [dep] ELSE [] END | DELETE r)
  FOREACH (x IN CASE WHEN $actions = {word(RevisedActions.MOVE)} THEN [a] ELSE [] END | CREATE (x)-[:DEPENDS_ON]->(new))
  WITH d, new, a, CASE WHEN $actions = {word(RevisedActions.CANCEL)} THEN {word(ActionStatus.CANCELLED)} WHEN blocking = 0 THEN {word(ActionStatus.PENDING)} ELSE {word(ActionStatus.HELD)} END AS to
  """
    # A moved action keeps the decision it was moved from (an as-of read gives it back).
    + record_change(
        "a",
        kind=ChangeKind.ACTION,
        to_status="to",
        cause=ChangeCause.REVISION,
        cause_id="new.id",
        actor="$actor",
        also={"moved_from": f"CASE WHEN $actions = {word(RevisedActions.MOVE)} THEN d.id END"},
    )
    + """  SET a.status = to, a.updated_at = $now
  RETURN collect(a {.id, .status}) AS touched, collect(a) AS moved
}
"""
    + follow_ups_follow("moved", keep=("new",), cause=ChangeCause.REVISION, cause_id="new.id", actor="$actor")
    + BUMP_REVISION
    + """
RETURN {id: new.id, touched: touched} AS revised
"""
)


def decision_revise(
    *,
    workspace: HasGraph,
    decision_id: str,
    new_id: str,
    title: str,
    rationale: str,
    justifications: list[list[str]],
    actions: str,
    actor: str,
    now: str,
) -> dict[str, str] | None:
    """Supersedes a flagged decision by a new supported one; the status each of its open actions ended
    with, by id, or None (nothing written) if it cannot be revised or a support fails."""
    if parse_id(decision_id) is None or any(parse_id(sid) is None for group in justifications for sid in group):
        return None
    params = {
        "decision_id": decision_id, "new_id": new_id, "title": title, "rationale": rationale,
        **support_params(justifications), "actions": actions, "actor": actor, "now": now,
    }  # fmt: skip
    rows = graph.records(workspace, DECISION_REVISE, params)
    return {action["id"]: action["status"] for action in rows[0]["touched"]} if rows else None


RESTING_ON = "MATCH (:Decision {id: $decision_id})-[:SUPPORTS*1..]->(down:Decision) RETURN DISTINCT down.id"


def decisions_resting_on(*, workspace: HasGraph, decision_id: str) -> set[str]:
    """The decisions that rest on this one, directly or through others."""
    if parse_id(decision_id) is None:
        return set()
    return {row[0] for row in graph.ro_query(workspace, RESTING_ON, {"decision_id": decision_id})}
