"""Actions in the graph: a person's action created on the decisions it depends on (DEPENDS_ON), a person's own
marks on it (done, cancelled, reopened), and the reads of actions with their decisions.

An action is created pending, or held when a decision it depends on needs review; holding and releasing it
because of what happened to a decision is belief maintenance, written by corrections' graph modules.
"""

from __future__ import annotations

from dataclasses import dataclass

from afterhack import graph
from afterhack.cypher import hold_members, word
from afterhack.graph import BUMP_REVISION, HasGraph
from afterhack.history_graph import CHANGE_LABEL, ChangeCause, ChangeKind, record_change
from afterhack.holds import decision_holds
from afterhack.ids import parse_id
from afterhack.lists.graph import after_params, status_page
from agents.graph.shapes import Action
from agents.lists import ACTION_STATUS
from agents.statuses import ActionStatus, DecisionStatus, FollowUp, Origin

# What a done action's follow-up state is (agents/statuses.py FollowUp): a change of it keeps them (`from_…`), so an
# as-of read gives them back; the change's own `follow_up` says it is one (its status stays done).
FOLLOW_UP_STATE = ("follow_up", "follow_up_id", "follow_up_reason")


def follow_up_change(var: str, *, to: str, cause: str, cause_id: str, actor: str) -> str:
    """Cypher: the Change of the done action bound to `var` whose follow-up state becomes `to` (a Cypher expression),
    placed just before the SET of `var.follow_up` (afterhack/history_graph.py record_change: its status stays)."""
    return record_change(
        var, kind=ChangeKind.ACTION, to_status=var + ".status", cause=cause, cause_id=cause_id, actor=actor,
        before=FOLLOW_UP_STATE, also={"follow_up": to},
    )  # fmt: skip


# The done action a follow-up action FOLLOWS_UP moves with it, in the query that moves the follow-up: follow-up `done`
# when the follow-up is marked done, `needed` again when it is cancelled (by a person, a dismissal or a revision), and
# `planned` again when a cancelled one is reopened. Only while its `follow_up_id` names that follow-up: a done action
# a new loss marked `needed` again (PROPAGATE clears the link) is never completed by its old follow-up.
FOLLOWED = "-[:FOLLOWS_UP]->(followed:Action)"


def follow_ups_follow(moved: str, *, keep: tuple[str, ...] = (), cause: str, cause_id: str, actor: str) -> str:
    """Cypher: for each action in the list bound to `moved` (their statuses already set), the done action it follows
    up takes the follow-up state that follows (above), with its Change. A unit subquery (the rows go on as they are)
    importing `moved` and `keep` (the variables `cause_id` and `actor` use), placed after the SET of the statuses.
    Every query that cancels an action uses it (tests/agents/test_follow_ups_follow.py checks that)."""
    if not all(name.isidentifier() for name in (moved, *keep)):
        raise ValueError(f"follow_ups_follow({moved!r}, keep={keep!r})")
    done, cancelled, pending = (word(s) for s in (ActionStatus.DONE, ActionStatus.CANCELLED, ActionStatus.PENDING))
    needed, planned = word(FollowUp.NEEDED), word(FollowUp.PLANNED)
    return (
        "CALL { WITH " + ", ".join((moved, *keep)) + " UNWIND " + moved + " AS fu "
        "MATCH (fu)" + FOLLOWED + " WHERE fu.status IN [" + ", ".join((done, cancelled, pending)) + "] "
        "AND followed.follow_up_id = fu.id AND followed.status = " + done + " "
        "AND followed.follow_up = CASE fu.status WHEN " + pending + " THEN " + needed + " ELSE " + planned + " END "
        "WITH " + ", ".join(("fu", "followed", *keep)) + ", CASE fu.status WHEN " + done + " THEN " + word(FollowUp.DONE)
        + " WHEN " + cancelled + " THEN " + needed + " ELSE " + planned + " END AS to "
        + follow_up_change("followed", to="to", cause=cause, cause_id=cause_id, actor=actor)
        + "SET followed.follow_up = to, followed.follow_up_at = $now } "
    )  # fmt: skip


ACTION_CREATE = (
    f"""
UNWIND $decision_ids AS did
OPTIONAL MATCH (d:Decision {{id: did}})
WITH collect(d) AS decisions
WITH decisions WHERE size(decisions) = size($decision_ids)
  AND all(d IN decisions WHERE d.dismissed_at IS NULL AND d.status <> {word(DecisionStatus.SUPERSEDED)})
CREATE (a:Action {{id: $action_id, title: $title, origin: {word(Origin.REVIEWER)}, created_at: $now, created_by: $created_by,
                  status: CASE WHEN any(d IN decisions WHERE NOT """
    + decision_holds("d")
    + f""") THEN {word(ActionStatus.HELD)} ELSE {word(ActionStatus.PENDING)} END}})
WITH a, decisions
UNWIND decisions AS d
CREATE (a)-[:DEPENDS_ON]->(d)
WITH DISTINCT a
"""
    + BUMP_REVISION
    + """
RETURN a.id
"""
)


def action_create(
    *, workspace: HasGraph, action_id: str, title: str, decision_ids: list[str], created_by: str, now: str
) -> bool:
    """Creates an action depending on all the decisions (held if any needs review); False if one is missing,
    dismissed or superseded."""
    if any(parse_id(did) is None for did in decision_ids):
        return False
    params = {
        "action_id": action_id,
        "title": title,
        "decision_ids": decision_ids,
        "created_by": created_by,
        "now": now,
    }
    return bool(graph.query(workspace, ACTION_CREATE, params))


# A move back to pending (a reopen) also needs every decision the action depends on to hold:
# supported and not dismissed. Checked and set in the same query, so a correction applied in
# between cannot reopen an action on a decision that no longer holds.
ACTION_SET_STATUS = (
    """
MATCH (a:Action {id: $action_id})
WHERE a.status IN $from_statuses
OPTIONAL MATCH (a)-[:DEPENDS_ON]->(d:Decision)
WITH a, collect(d) AS decisions
WHERE NOT $require_holding OR all(d IN decisions WHERE """
    + decision_holds("d")
    + """ AND d.dismissed_at IS NULL)
"""
    + record_change(
        "a", kind=ChangeKind.ACTION, to_status="$status", cause=ChangeCause.PERSON, cause_id="null", actor="$actor"
    )
    + """SET a.status = $status, a.updated_at = $now
WITH a, [a] AS moved
"""
    + follow_ups_follow("moved", cause=ChangeCause.PERSON, cause_id="null", actor="$actor")
    + BUMP_REVISION
    + """
RETURN a.status
"""
)


def action_set_status(
    *,
    workspace: HasGraph,
    action_id: str,
    status: str,
    from_statuses: list[str],
    actor: str,
    now: str,
    require_holding: bool = False,
) -> bool:
    """Moves the action to `status` if it is in one of `from_statuses` (and, with `require_holding`,
    if every decision it depends on holds), checked and set in one query; False if it did not move."""
    if parse_id(action_id) is None:
        return False
    params = {
        "action_id": action_id,
        "status": status,
        "from_statuses": from_statuses,
        "require_holding": require_holding,
        "actor": actor,
        "now": now,
    }
    return bool(graph.query(workspace, ACTION_SET_STATUS, params))


@dataclass(frozen=True)
class UnheldDecision:
    """A decision an action depends on that does not hold: it needs review, was dismissed, or was replaced."""

    id: str
    title: str
    status: DecisionStatus
    dismissed: bool

    def __post_init__(self) -> None:
        hold_members(self, status=DecisionStatus)


ACTION_UNHELD_DECISIONS = (
    """
MATCH (:Action {id: $action_id})-[:DEPENDS_ON]->(d:Decision)
WHERE NOT """
    + decision_holds("d")
    + """ OR d.dismissed_at IS NOT NULL
RETURN d {.id, .title, .status, dismissed: d.dismissed_at IS NOT NULL} AS decision
ORDER BY decision.title, decision.id
"""
)


def action_unheld_decisions(*, workspace: HasGraph, action_id: str) -> list[UnheldDecision]:
    """The decisions this action depends on that do not hold, by title (empty if all hold)."""
    return [
        UnheldDecision(**row) for row in graph.ro_records_of(workspace, ACTION_UNHELD_DECISIONS, action_id=action_id)
    ]


# An action with the ids and titles of the decisions it depends on (aggregated in a WITH before) as one map.
ACTION_PROPERTIES = (
    ".id, .title, .status, .origin, .created_at, .created_by, .follow_up, .follow_up_id, .follow_up_reason, "
    ".follow_up_at, .follows_up, decision_ids: decision_ids, decision_titles: titles"
)
ACTION_FIELDS = "a {" + ACTION_PROPERTIES + "} AS action"
ACTION_DECISIONS = (
    "OPTIONAL MATCH (a)-[:DEPENDS_ON]->(d:Decision) WITH a, collect(d.id) AS decision_ids, collect(d.title) AS titles "
)

ACTION_GET = "MATCH (a:Action {id: $action_id}) " + ACTION_DECISIONS + "RETURN " + ACTION_FIELDS

ACTION_LIST, ACTION_COUNT = status_page(
    "a", "Action", status=ACTION_STATUS, read=ACTION_DECISIONS, fields=ACTION_FIELDS, alias="action"
)


def action_get(*, workspace: HasGraph, action_id: str) -> Action | None:
    """The action with the decisions it depends on, or None."""
    if parse_id(action_id) is None:
        return None
    rows = graph.ro_records(workspace, ACTION_GET, {"action_id": action_id})
    return Action.from_row(rows[0]) if rows else None


ACTIONS_GET = (
    "UNWIND range(0, size($action_ids) - 1) AS position MATCH (a:Action {id: $action_ids[position]}) "
    "OPTIONAL MATCH (a)-[:DEPENDS_ON]->(d:Decision) "
    "WITH position, a, collect(d.id) AS decision_ids, collect(d.title) AS titles "
    "RETURN " + ACTION_FIELDS + " ORDER BY position"
)


def actions_get(*, workspace: HasGraph, action_ids: list[str]) -> list[Action]:
    """The actions with these ids that exist, in the order given, in one query."""
    ids = [canonical for i in action_ids if (canonical := parse_id(i))]
    return (
        [Action.from_row(row) for row in graph.ro_records(workspace, ACTIONS_GET, {"action_ids": ids})] if ids else []
    )


def action_list(
    *, workspace: HasGraph, status: str = "", offset: int = 0, limit: int = 200, after: tuple[str, str] | None = None
) -> list[Action]:
    """Actions, newest first (after the (created_at, id) position `after`), optionally only those with this status."""
    params = {"status": status, "offset": offset, "limit": limit, **after_params(after)}
    return [Action.from_row(row) for row in graph.ro_records(workspace, ACTION_LIST, params)]


def action_count(*, workspace: HasGraph, status: str = "") -> int:
    """How many actions there are (with this status)."""
    return int(graph.ro_query(workspace, ACTION_COUNT, {"status": status})[0][0])


# Done actions whose follow-up is needed (the review queue's "Already acted on"), the most recently flagged first.
ACTED_ON = (
    f"MATCH (a:Action) WHERE a.status = {word(ActionStatus.DONE)} AND a.follow_up = {word(FollowUp.NEEDED)} "
    "WITH a ORDER BY a.follow_up_at DESC, a.id LIMIT $limit " + ACTION_DECISIONS + "RETURN " + ACTION_FIELDS
)


def acted_on(*, workspace: HasGraph, limit: int) -> list[Action]:
    """Done actions needing a follow-up, the most recently flagged first, at most `limit`."""
    return [Action.from_row(row) for row in graph.ro_records(workspace, ACTED_ON, {"limit": limit})]


@dataclass(frozen=True)
class DoneWhen:
    """When an action was marked done, and by whom (from its history; the action's last change when not recorded)."""

    id: str
    at: str | None
    by: str | None


# The change that made each action done (done is final: there is one), found through the index on Change.id.
ACTIONS_DONE_WHEN = (
    "UNWIND $action_ids AS aid MATCH (a:Action {id: aid}) "
    f"OPTIONAL MATCH (x:{CHANGE_LABEL} {{id: aid}}) WHERE x.to_status = {word(ActionStatus.DONE)} "
    f"AND coalesce(x.from_status, '') <> {word(ActionStatus.DONE)} "
    "WITH a, collect(x {.at, .actor}) AS marks "
    "RETURN {id: a.id, at: coalesce(marks[0].at, a.updated_at), by: marks[0].actor} AS done"
)


def actions_done_when(*, workspace: HasGraph, action_ids: list[str]) -> dict[str, DoneWhen]:
    """When and by whom each of these actions was marked done, by id (one query)."""
    ids = [canonical for i in action_ids if (canonical := parse_id(i))]
    if not ids:
        return {}
    rows = graph.ro_records(workspace, ACTIONS_DONE_WHEN, {"action_ids": ids})
    return {row["id"]: DoneWhen(**row) for row in rows}
