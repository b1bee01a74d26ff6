"""A reviewer's answer to a done action whose decision lost its support, in the graph: a follow-up action planned
(a new pending action FOLLOWS_UP the done one, depending on decisions that hold), or no follow-up needed (with a
reason). Each is one query, guarded by the done action's follow-up state being `needed`; each records the change of
that state (agents/graph/actions.py follow_up_change). The done action's other moves (follow-up done when its
follow-up is, needed again when that is cancelled) are written where the follow-up action is marked, dismissed or
revised (agents/graph/actions.py follow_ups_follow); a correction's, retraction's, new version's and dismissal's
`needed` by PROPAGATE (apply.py) and DECISION_DISMISS (review.py)."""

from __future__ import annotations

from afterhack import graph
from afterhack.cypher import word
from afterhack.graph import BUMP_REVISION, HasGraph
from afterhack.history_graph import ChangeCause
from afterhack.holds import decision_holds
from afterhack.ids import parse_id
from agents.graph.actions import follow_up_change
from agents.statuses import ActionStatus, FollowUp, Origin

NEEDING = f"orig.status = {word(ActionStatus.DONE)} AND orig.follow_up = {word(FollowUp.NEEDED)}"

# The follow-up action, pending, depending on every one of $decision_ids (each must hold: supported, not dismissed),
# linked to the done action it follows up, which becomes `planned`. A new action a preview reads: the revision goes up.
FOLLOW_UP_PLAN = (
    f"""
MATCH (orig:Action {{id: $action_id}}) WHERE {NEEDING}
UNWIND $decision_ids AS did
OPTIONAL MATCH (d:Decision {{id: did}})
WITH orig, collect(d) AS decisions
WITH orig, decisions WHERE size(decisions) = size($decision_ids)
  AND all(d IN decisions WHERE """
    + decision_holds("d")
    + f""" AND d.dismissed_at IS NULL)
CREATE (a:Action {{id: $new_id, title: $title, origin: {word(Origin.REVIEWER)}, created_at: $now, created_by: $actor,
                  status: {word(ActionStatus.PENDING)}, follows_up: orig.id}})
CREATE (a)-[:FOLLOWS_UP {{at: $now, actor: $actor}}]->(orig)
WITH a, orig, decisions
UNWIND decisions AS d
CREATE (a)-[:DEPENDS_ON]->(d)
WITH DISTINCT a, orig
"""
    + follow_up_change("orig", to=word(FollowUp.PLANNED), cause=ChangeCause.PERSON, cause_id="null", actor="$actor")
    + f"""SET orig.follow_up = {word(FollowUp.PLANNED)}, orig.follow_up_id = a.id, orig.follow_up_reason = null,
    orig.follow_up_at = $now
WITH a
"""
    + BUMP_REVISION
    + """
RETURN a.id
"""
)


def follow_up_plan(
    *, workspace: HasGraph, action_id: str, new_id: str, title: str, decision_ids: list[str], actor: str, now: str
) -> bool:
    """Creates the follow-up action and marks the done action `planned`, in one query; False (nothing written) if
    the done action does not need a follow-up, or a decision is missing or does not hold."""
    if parse_id(action_id) is None or not decision_ids or any(parse_id(d) is None for d in decision_ids):
        return False
    params = {"action_id": action_id, "new_id": new_id, "title": title, "decision_ids": decision_ids, "actor": actor,
              "now": now}  # fmt: skip
    return bool(graph.query(workspace, FOLLOW_UP_PLAN, params))


# No follow-up needed, with the reviewer's reason. Nothing a preview reads changes: the revision stays.
FOLLOW_UP_NOT_NEEDED = (
    f"MATCH (orig:Action {{id: $action_id}}) WHERE {NEEDING}\n"
    + follow_up_change("orig", to=word(FollowUp.NOT_NEEDED), cause=ChangeCause.PERSON, cause_id="null", actor="$actor")
    + f"SET orig.follow_up = {word(FollowUp.NOT_NEEDED)}, orig.follow_up_reason = $reason, orig.follow_up_at = $now\n"
    "RETURN orig.id"
)


def follow_up_not_needed(*, workspace: HasGraph, action_id: str, reason: str, actor: str, now: str) -> bool:
    """Marks the done action's follow-up not needed, with the reason; False if it did not need one."""
    if parse_id(action_id) is None:
        return False
    params = {"action_id": action_id, "reason": reason, "actor": actor, "now": now}
    return bool(graph.query(workspace, FOLLOW_UP_NOT_NEEDED, params))
