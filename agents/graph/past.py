"""Decisions and actions as they were (docs/history.md, "Reading the past"): each read as it is now, with its
Changes after a moment, in one query; the rewind is agents/history.py."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from afterhack import graph
from afterhack import history_graph as history
from afterhack.graph import HasGraph
from afterhack.ids import parse_id
from agents.graph.actions import ACTION_DECISIONS, ACTION_PROPERTIES
from agents.graph.decisions import DECISION_PROPERTIES, KIND_PARAMS, SUPPORT_FIELDS
from agents.graph.shapes import Action, Decision

# The decision as it is now, with its Changes after $as_of, each support's changes and creation, the actions
# resting on it (with their creation), and the actions a revision since moved away from it: in one query.
DECISION_AS_OF = (
    "MATCH (d:Decision {id: $decision_id}) "
    "OPTIONAL MATCH (s)-[j:SUPPORTS]->(d) "
    "OPTIONAL MATCH (s)-[e:SUPPORTED_BY]->(:SourceFragment)<-[:HAS_FRAGMENT]-(:SourceVersion)<-[:HAS_VERSION]-(src:Source) "
    "WHERE coalesce(e.role, 'evidence') <> 'cited_passage' "
    "WITH d, s, j, collect(DISTINCT src {.id, .title})[0] AS src "
    + history.changes_after("s", keep="d, s, j, src", alias="s_changes")
    + "WITH d, collect(CASE WHEN s IS NULL THEN NULL ELSE {" + SUPPORT_FIELDS + ", evidence_quote: s.evidence_quote, "
    "source_id: src.id, source_title: src.title, created_at: s.created_at, changes: s_changes} END) AS supports "
    "OPTIONAL MATCH (a:Action)-[:DEPENDS_ON]->(d) "
    "WITH d, supports, collect(a.id) AS action_ids, collect(a {.id, .created_at}) AS actions "
    # Actions moved by a revision since (to the decision that superseded it, or one that superseded that).
    "OPTIONAL MATCH (d)<-[:SUPERSEDES*1..]-(:Decision)<-[:DEPENDS_ON]-(ma:Action)<-[:" + history.CHANGE_OF + "]-"
    "(mx:" + history.CHANGE_LABEL + ") WHERE mx.moved_from = d.id AND mx.at > $as_of "
    "WITH d, supports, action_ids, actions, collect(DISTINCT ma {.id, .created_at}) AS moved "
    + history.changes_after("d", keep="d, supports, action_ids, actions, moved", alias="changes")
    + "RETURN d {" + DECISION_PROPERTIES + ", supports: supports, action_ids: action_ids, actions: actions, "
    "moved: moved, changes: changes} AS decision"
)  # fmt: skip


@dataclass(frozen=True)
class DecisionThen:
    """A decision as it is now, with what rewinding it to $as_of needs."""

    decision: Decision
    changes: list[dict[str, Any]]
    # By support id: its changes after then, and when it was made.
    support_changes: dict[str, list[dict[str, Any]]]
    support_created: dict[str, str]
    # By action id, when it was made: the actions resting on it now, and those a revision since moved away.
    actions: dict[str, str]
    moved: dict[str, str]


def decision_as_of(*, workspace: HasGraph, decision_id: str, as_of: str) -> DecisionThen | None:
    """The decision as it is now with its history after `as_of` (agents.history.decision_at rewinds it), or None."""
    if parse_id(decision_id) is None:
        return None
    rows = graph.ro_records(workspace, DECISION_AS_OF, {"decision_id": decision_id, "as_of": as_of, **KIND_PARAMS})
    if not rows:
        return None
    row = rows[0]
    supports = [s for s in row["supports"] if s is not None]
    plain = [{k: v for k, v in s.items() if k not in ("created_at", "changes")} for s in supports]
    extra = ("changes", "actions", "moved")
    decision = Decision.from_row({**{k: v for k, v in row.items() if k not in extra}, "supports": plain})
    return DecisionThen(
        decision=decision,
        changes=row["changes"],
        support_changes={s["id"]: s["changes"] for s in supports},
        support_created={s["id"]: s.get("created_at") or "" for s in supports},
        actions={a["id"]: a.get("created_at") or "" for a in row["actions"] if a},
        moved={a["id"]: a.get("created_at") or "" for a in row["moved"] if a},
    )


# The action as it is now with its Changes after $as_of and the decisions a revision since moved it from (their
# titles): in one query (the rewind is agents/history.py).
ACTION_AS_OF = (
    "MATCH (a:Action {id: $action_id}) "
    + ACTION_DECISIONS
    + history.changes_after("a", keep="a, decision_ids, titles", alias="changes")
    + "CALL { WITH changes UNWIND [x IN changes WHERE x.moved_from IS NOT NULL | x.moved_from] AS old_id "
    "  MATCH (od:Decision {id: old_id}) RETURN collect(od {.id, .title}) AS old } "
    "RETURN a {" + ACTION_PROPERTIES + ", changes: changes, old: old} AS action"
)


@dataclass(frozen=True)
class ActionThen:
    """An action as it is now, with what rewinding it to $as_of needs."""

    action: Action
    changes: list[dict[str, Any]]
    # The titles of the decisions it was moved from since, by id.
    old_titles: dict[str, str]


def action_as_of(*, workspace: HasGraph, action_id: str, as_of: str) -> ActionThen | None:
    """The action as it is now with its history after `as_of` (agents.history.action_at rewinds it), or None."""
    if parse_id(action_id) is None:
        return None
    rows = graph.ro_records(workspace, ACTION_AS_OF, {"action_id": action_id, "as_of": as_of})
    if not rows:
        return None
    row = rows[0]
    action = Action.from_row({k: v for k, v in row.items() if k not in ("changes", "old")})
    return ActionThen(action, row["changes"], {d["id"]: d["title"] for d in row["old"] if d})
