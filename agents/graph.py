"""The agents app's slice of the graph: it creates AgentRun, Handoff, Decision, Action, SUPPORTS,
DEPENDS_ON, SEARCHED, RETRIEVED and PRODUCED, sets a run's status and a person's own marks on an
action (done, cancelled, reopened), and reads those with the claims (Claim, SourceFragment, Source)
they rest on. Each write is one query and bumps the workspace revision.

It never changes what holds: a decision is created supported (or, an agent's without a surviving
citation, needing review) and an action pending or held, and every later change — a decision
flagged, re-justified, revised or dismissed, an action held or released by that — is belief
maintenance, written by corrections/graph.py. Whether a support holds is afterhack.holds.

The runs of outside agents over MCP (one a session and workspace, their steps and their decisions under
rule 2) are written by agents/mcp_graph.py; this module reads them with the built-in agent's runs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from afterhack import graph
from afterhack import history_graph as history
from afterhack.graph import BUMP_REVISION, HasGraph
from afterhack.history_graph import record_change
from afterhack.holds import claim_holds, decision_holds, holds
from afterhack.ids import parse_id
from afterhack.listing import Criteria
from afterhack.listing_graph import after_params, keyset
from agents import mcp_graph
from agents.coordinator import NO_ANSWER_TITLE
from agents.mcp_trajectory import mcp_trajectory
from agents.statuses import DecisionKind, DecisionStatus, RunOrigin
from claims.graph.shapes import BackgroundJob

# -- shapes ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Support:
    """One antecedent of a decision: a claim or a decision, with what the pages show of it."""

    id: str
    label: str
    text: str
    status: str
    justification: int
    evidence_quote: str | None = None
    source_id: str | None = None
    source_title: str | None = None


@dataclass(frozen=True)
class Decision:
    id: str
    title: str
    rationale: str
    status: str
    review_reason: str | None
    origin: str
    run_id: str | None
    created_at: str
    created_by: str | None
    kind: str = DecisionKind.MANUAL
    question: str | None = None
    status_changed_at: str | None = None
    dismissed_at: str | None = None
    dismissed_by: str | None = None
    flagged_by: str | None = None
    supersedes: str | None = None
    superseded_by: str | None = None
    superseded_at: str | None = None
    superseded_by_actor: str | None = None
    supports: list[Support] = field(default_factory=list)
    action_ids: list[str] = field(default_factory=list)

    @property
    def reviewable(self) -> bool:
        """Whether a reviewer can still act on it: it needs review and was neither dismissed nor revised."""
        return self.status == DecisionStatus.NEEDS_REVIEW and self.dismissed_at is None

    @property
    def justifications(self) -> list[list[str]]:
        """Each justification: the ids that together suffice, in order."""
        groups: dict[int, list[str]] = {}
        for support in self.supports:
            groups.setdefault(support.justification, []).append(support.id)
        return [sorted(ids) for _, ids in sorted(groups.items())]

    def grouped(self) -> list[list[Support]]:
        groups: dict[int, list[Support]] = {}
        for support in self.supports:
            groups.setdefault(support.justification, []).append(support)
        return [group for _, group in sorted(groups.items())]


@dataclass(frozen=True)
class Action:
    id: str
    title: str
    status: str
    origin: str
    created_at: str
    decision_ids: list[str] = field(default_factory=list)
    decision_titles: list[str] = field(default_factory=list)
    created_by: str | None = None

    @property
    def decisions(self) -> list[tuple[str, str]]:
        """(id, title) of each decision it depends on."""
        return list(zip(self.decision_ids, self.decision_titles, strict=False))


@dataclass(frozen=True)
class Run(BackgroundJob):
    id: str
    question: str
    status: str
    agent: str
    model: str
    error: str | None
    created_at: str
    updated_at: str
    finished_at: str | None
    created_by: str | None
    trajectory: dict[str, Any]
    decision_id: str | None
    action_ids: list[str]
    origin: str = RunOrigin.AGENT
    # Every decision it recorded, newest first (the built-in agent's run records one; an MCP session any number).
    decision_ids: list[str] = field(default_factory=list)

    @property
    def is_mcp(self) -> bool:
        """An outside agent's MCP session: open for as long as it is used, so never stalled."""
        return self.origin == RunOrigin.MCP

    @property
    def stalled(self) -> bool:
        return not self.is_mcp and super().stalled

    @property
    def busy(self) -> bool:
        return not self.is_mcp and super().busy

    @property
    def searched_claim_ids(self) -> list[str]:
        return list(self.trajectory.get("searched_claim_ids", []))

    @property
    def retrieved_claim_ids(self) -> list[str]:
        return list(self.trajectory.get("retrieved_claim_ids", []))

    @property
    def step_count(self) -> int:
        """How many steps its trajectory has in all (an MCP session's `events` may hold only the newest)."""
        return int(self.trajectory.get("step_count", len(self.trajectory.get("events", []))))

    @property
    def first_step(self) -> int:
        """The number of the oldest step its `events` hold (1 when they hold them all)."""
        events = self.trajectory.get("events", [])
        return int(events[0].get("step", 1)) if events else 1


# -- decisions ----------------------------------------------------------------------------------

# The supports are looked up by id among claims and decisions; the decision is created only
# if every one exists and holds (a current claim, a supported decision).
DECISION_CREATE = (
    """
UNWIND $support_ids AS sid
OPTIONAL MATCH (c:Claim {id: sid})
OPTIONAL MATCH (x:Decision {id: sid})
WITH collect(coalesce(c, x)) AS supports
WITH supports WHERE size(supports) = size($support_ids)
  AND all(s IN supports WHERE """
    + holds("s")
    + """)
CREATE (d:Decision {id: $decision_id, title: $title, rationale: $rationale, status: 'supported', review_reason: null,
                    origin: 'reviewer', kind: 'manual', question: null, run_id: null, created_at: $now,
                    created_by: $created_by})
WITH d, supports
UNWIND $edges AS e
WITH d, e, [s IN supports WHERE s.id = e.sid][0] AS s
CREATE (s)-[:SUPPORTS {justification: e.j}]->(d)
WITH DISTINCT d
"""
    + BUMP_REVISION
    + """
RETURN d.id
"""
)


def support_params(justifications: list[list[str]]) -> dict[str, Any]:
    """The query parameters of justifications: every support id once, and one edge per (support, justification)."""
    return {
        "support_ids": sorted({sid for group in justifications for sid in group}),
        "edges": [{"sid": sid, "j": index} for index, group in enumerate(justifications) for sid in group],
    }


def decision_create(
    *,
    workspace: HasGraph,
    decision_id: str,
    title: str,
    rationale: str,
    justifications: list[list[str]],
    created_by: str,
    now: str,
) -> bool:
    """Creates a supported decision from its justifications; False if any support is missing or does not hold."""
    if any(parse_id(sid) is None for group in justifications for sid in group):
        return False
    params = {
        "decision_id": decision_id, "title": title, "rationale": rationale, **support_params(justifications),
        "created_by": created_by, "now": now,
    }  # fmt: skip
    return bool(graph.query(workspace, DECISION_CREATE, params))


NODE_STATES = """
UNWIND $ids AS sid
OPTIONAL MATCH (c:Claim {id: sid})
OPTIONAL MATCH (x:Decision {id: sid})
WITH sid, coalesce(c, x) AS s
WHERE s IS NOT NULL
RETURN {id: sid, label: labels(s)[0], status: s.status} AS state
"""


def node_states(*, workspace: HasGraph, ids: list[str]) -> dict[str, tuple[str, str]]:
    """For each id that is a claim or a decision: (label, status)."""
    ids = [i for i in ids if parse_id(i)]
    return {s["id"]: (s["label"], s["status"]) for s in graph.ro_records(workspace, NODE_STATES, {"ids": ids})}


# Decisions written before kinds and questions were stored get them here, on read: a person's decision
# is manual; an agent's decision without any support and with the no-answer title is a question the
# agent could not answer (only that branch of RUN_FINISH makes an agent decision without supports),
# and an agent's decision carries the question its run was asked.
DECISION_KIND = (
    "coalesce(d.kind, CASE WHEN coalesce(d.origin, 'reviewer') <> 'agent' THEN 'manual' "
    "WHEN d.title = $no_answer_title AND size([(s)-[:SUPPORTS]->(d) | s]) = 0 THEN 'unanswered' ELSE 'agent' END)"
)
DECISION_QUESTION = (
    "coalesce(d.question, CASE WHEN d.origin = 'agent' THEN head([(r:AgentRun)-[:PRODUCED]->(d) | r.question]) END)"
)
KIND_PARAMS = {"no_answer_title": NO_ANSWER_TITLE}

# A decision with its `supports` and `action_ids` as one map, as Decision reads it by name; both are
# aggregated in a WITH before (an aggregate inside a map literal mis-groups in FalkorDB).
DECISION_PROPERTIES = (
    ".id, .title, .rationale, .status, .review_reason, .origin, .run_id, .created_at, .created_by, "
    ".status_changed_at, .dismissed_at, .dismissed_by, .flagged_by, .supersedes, .superseded_by, .superseded_at, "
    ".superseded_by_actor, kind: " + DECISION_KIND + ", question: " + DECISION_QUESTION
)
DECISION_FIELDS = "d {" + DECISION_PROPERTIES + ", supports: supports, action_ids: action_ids} AS decision"

# One antecedent `s` of a decision through its SUPPORTS edge `j`, as a Support reads it.
SUPPORT_FIELDS = (
    "id: s.id, label: labels(s)[0], text: coalesce(s.statement, s.title), status: s.status, "
    "justification: j.justification"
)

# The supports of each decision `d` (in a list page) and the actions resting on it, gathered before DECISION_FIELDS.
DECISION_SUPPORTS = (
    "OPTIONAL MATCH (s)-[j:SUPPORTS]->(d) "
    "WITH d, collect(CASE WHEN s IS NULL THEN NULL ELSE {" + SUPPORT_FIELDS + "} END) AS supports "
)
DECISION_ACTIONS = "OPTIONAL MATCH (a:Action)-[:DEPENDS_ON]->(d) WITH d, supports, collect(a.id) AS action_ids "

DECISION_GET = (
    "MATCH (d:Decision {id: $decision_id}) "
    "OPTIONAL MATCH (s)-[j:SUPPORTS]->(d) "
    # Its own evidence's source; a correction's replacement may also cite a passage, which is not where it comes from.
    "OPTIONAL MATCH (s)-[e:SUPPORTED_BY]->(:SourceFragment)<-[:HAS_FRAGMENT]-(:SourceVersion)<-[:HAS_VERSION]-(src:Source) "
    "WHERE coalesce(e.role, 'evidence') <> 'cited_passage' "
    "WITH d, s, j, collect(DISTINCT src {.id, .title})[0] AS src "
    "WITH d, collect(CASE WHEN s IS NULL THEN NULL ELSE {" + SUPPORT_FIELDS + ", evidence_quote: s.evidence_quote, "
    "source_id: src.id, source_title: src.title} END) AS supports " + DECISION_ACTIONS + "RETURN " + DECISION_FIELDS
)


def _decision(row: dict[str, Any]) -> Decision:
    return Decision(
        **{
            **row,
            "supports": [Support(**s) for s in row["supports"] if s is not None],
            "action_ids": sorted(a for a in row["action_ids"] if a),
        }
    )


def decision_get(*, workspace: HasGraph, decision_id: str) -> Decision | None:
    """The decision with its supports (and their evidence) and the actions that depend on it."""
    if parse_id(decision_id) is None:
        return None
    rows = graph.ro_records(workspace, DECISION_GET, {"decision_id": decision_id, **KIND_PARAMS})
    return _decision(rows[0]) if rows else None


# -- decisions as they were (docs/history.md, "Reading the past"; the rewind is agents/history.py) -------------

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
    decision = _decision({**{k: v for k, v in row.items() if k not in extra}, "supports": plain})
    return DecisionThen(
        decision=decision,
        changes=row["changes"],
        support_changes={s["id"]: s["changes"] for s in supports},
        support_created={s["id"]: s.get("created_at") or "" for s in supports},
        actions={a["id"]: a.get("created_at") or "" for a in row["actions"] if a},
        moved={a["id"]: a.get("created_at") or "" for a in row["moved"] if a},
    )


def status_page(node: str, label: str, *, read: str, fields: str, alias: str) -> tuple[str, str]:
    """The page query and the count query of a list of `label` nodes (bound to `node`), newest first after
    the keyset position, optionally only those of $status: `read` gathers what each needs, `fields` returns it
    as one map `alias`."""
    # The variable and the label are this module's constants (Cypher takes no label as a parameter);
    # every value comes in as a $param.
    after, order = keyset(node)
    where = "MATCH (" + node + ":" + label + ") WHERE ($status = '' OR " + node + ".status = $status) "
    page = (
        where + "AND " + after + " WITH " + node + " ORDER BY " + order + " SKIP $offset LIMIT $limit "
        + read + "RETURN " + fields + " ORDER BY " + keyset(alias)[1]
    )  # fmt: skip
    return page, where + "RETURN count(" + node + ")"


DECISION_LIST, DECISION_COUNT = status_page(
    "d",
    "Decision",
    read=DECISION_SUPPORTS + DECISION_ACTIONS,
    fields=DECISION_FIELDS,
    alias="decision",
)


def decision_list(
    *, workspace: HasGraph, status: str = "", offset: int = 0, limit: int = 100, after: tuple[str, str] | None = None
) -> list[Decision]:
    """Decisions, newest first (after the (created_at, id) position `after`), optionally only those with this status."""
    params = {"status": status, "offset": offset, "limit": limit, **after_params(after), **KIND_PARAMS}
    return [_decision(row) for row in graph.ro_records(workspace, DECISION_LIST, params)]


def decision_count(*, workspace: HasGraph, status: str = "") -> int:
    """How many decisions there are (with this status)."""
    return int(graph.ro_query(workspace, DECISION_COUNT, {"status": status})[0][0])


# The same read as DECISION_GET, for many ids at once (a page lists them all in one query).
DECISIONS_GET = "UNWIND $decision_ids AS decision_id " + DECISION_GET.replace("$decision_id", "decision_id")


def decisions_get(*, workspace: HasGraph, decision_ids: list[str]) -> list[Decision]:
    """The decisions with these ids that exist (each once), in the order given, in one query."""
    ids = list(dict.fromkeys(canonical for i in decision_ids if (canonical := parse_id(i))))
    if not ids:
        return []
    found = {
        d.id: d
        for d in map(_decision, graph.ro_records(workspace, DECISIONS_GET, {"decision_ids": ids, **KIND_PARAMS}))
    }
    return [found[i] for i in ids if i in found]


# The decisions a picker finds: those whose title (or question) contains the phrase first, then those with
# more of its words, newest first; every decision, newest first, for an empty phrase.
DECISION_FIND = (
    "MATCH (d:Decision) "
    "WITH d, toLower(d.title + ' ' + coalesce(d.question, '')) AS words "
    "WITH d, words CONTAINS $phrase AS whole, size([w IN $words WHERE words CONTAINS w]) AS hits "
    "WHERE $phrase = '' OR whole OR hits > 0 "
    "RETURN d.id AS id ORDER BY whole DESC, hits DESC, d.created_at DESC, d.id LIMIT $limit"
)


def decision_find(*, workspace: HasGraph, phrase: str, words: list[str], limit: int) -> list[str]:
    """The ids of the decisions whose title or question contains the (lower-cased) phrase or any of the words."""
    rows = graph.ro_query(workspace, DECISION_FIND, {"phrase": phrase, "words": words, "limit": limit})
    return [str(row[0]) for row in rows]


# -- actions ------------------------------------------------------------------------------------

ACTION_CREATE = (
    """
UNWIND $decision_ids AS did
OPTIONAL MATCH (d:Decision {id: did})
WITH collect(d) AS decisions
WITH decisions WHERE size(decisions) = size($decision_ids)
  AND all(d IN decisions WHERE d.dismissed_at IS NULL AND d.status <> 'superseded')
CREATE (a:Action {id: $action_id, title: $title, origin: 'reviewer', created_at: $now, created_by: $created_by,
                  status: CASE WHEN any(d IN decisions WHERE NOT """
    + decision_holds("d")
    + """) THEN 'held' ELSE 'pending' END})
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
        "a", kind=history.ACTION, to_status="$status", cause=history.PERSON, cause_id="null", actor="$actor"
    )
    + """SET a.status = $status, a.updated_at = $now
WITH a
"""
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
    status: str
    dismissed: bool


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
    ".id, .title, .status, .origin, .created_at, .created_by, decision_ids: decision_ids, decision_titles: titles"
)
ACTION_FIELDS = "a {" + ACTION_PROPERTIES + "} AS action"
ACTION_DECISIONS = (
    "OPTIONAL MATCH (a)-[:DEPENDS_ON]->(d:Decision) WITH a, collect(d.id) AS decision_ids, collect(d.title) AS titles "
)

ACTION_GET = "MATCH (a:Action {id: $action_id}) " + ACTION_DECISIONS + "RETURN " + ACTION_FIELDS

ACTION_LIST, ACTION_COUNT = status_page("a", "Action", read=ACTION_DECISIONS, fields=ACTION_FIELDS, alias="action")


def _action(row: dict[str, Any]) -> Action:
    return Action(**row)


def action_get(*, workspace: HasGraph, action_id: str) -> Action | None:
    """The action with the decisions it depends on, or None."""
    if parse_id(action_id) is None:
        return None
    rows = graph.ro_records(workspace, ACTION_GET, {"action_id": action_id})
    return _action(rows[0]) if rows else None


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
    action = _action({k: v for k, v in row.items() if k not in ("changes", "old")})
    return ActionThen(action, row["changes"], {d["id"]: d["title"] for d in row["old"] if d})


ACTIONS_GET = (
    "UNWIND range(0, size($action_ids) - 1) AS position MATCH (a:Action {id: $action_ids[position]}) "
    "OPTIONAL MATCH (a)-[:DEPENDS_ON]->(d:Decision) "
    "WITH position, a, collect(d.id) AS decision_ids, collect(d.title) AS titles "
    "RETURN " + ACTION_FIELDS + " ORDER BY position"
)


def actions_get(*, workspace: HasGraph, action_ids: list[str]) -> list[Action]:
    """The actions with these ids that exist, in the order given, in one query."""
    ids = [canonical for i in action_ids if (canonical := parse_id(i))]
    return [_action(row) for row in graph.ro_records(workspace, ACTIONS_GET, {"action_ids": ids})] if ids else []


def action_list(
    *, workspace: HasGraph, status: str = "", offset: int = 0, limit: int = 200, after: tuple[str, str] | None = None
) -> list[Action]:
    """Actions, newest first (after the (created_at, id) position `after`), optionally only those with this status."""
    params = {"status": status, "offset": offset, "limit": limit, **after_params(after)}
    return [_action(row) for row in graph.ro_records(workspace, ACTION_LIST, params)]


def action_count(*, workspace: HasGraph, status: str = "") -> int:
    """How many actions there are (with this status)."""
    return int(graph.ro_query(workspace, ACTION_COUNT, {"status": status})[0][0])


# -- runs -----------------------------------------------------------------------------------------

RUN_CREATE = """
CREATE (r:AgentRun {id: $run_id, question: $question, status: 'queued', agent: $agent, model: $model, error: null,
                    created_at: $now, updated_at: $now, finished_at: null, created_by: $created_by, trajectory: '{}'})
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


RUN_PROGRESS = """
MATCH (r:AgentRun {id: $run_id})
WHERE r.status IN ['queued', 'running']
SET r.status = 'running', r.trajectory = $trajectory, r.updated_at = $now
RETURN r.id
"""


def run_progress(*, workspace: HasGraph, run_id: str, trajectory: dict[str, Any], now: str) -> bool:
    """Stores the trajectory so far (for the live run page); False if the run is no longer active."""
    params = {"run_id": run_id, "trajectory": json.dumps(trajectory), "now": now}
    return bool(graph.query(workspace, RUN_PROGRESS, params))


RUN_FAIL = """
MATCH (r:AgentRun {id: $run_id})
WHERE r.status IN ['queued', 'running']
SET r.status = 'failed', r.error = $error, r.trajectory = $trajectory, r.updated_at = $now, r.finished_at = $now
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
    """
MATCH (r:AgentRun {id: $run_id})
WHERE r.status IN ['queued', 'running']
OPTIONAL MATCH (c:Claim) WHERE c.id IN $support_ids AND """
    + claim_holds("c")
    + """
WITH r, collect(c) AS live
WITH r, live, CASE WHEN size(live) > 0 THEN 'supported' ELSE 'needs_review' END AS status
SET r.status = 'done', r.trajectory = $trajectory, r.updated_at = $now, r.finished_at = $now
WITH r, live, status
CALL {
  WITH r
  UNWIND $searched AS s
  MATCH (c:Claim {id: s.claim_id})
  CREATE (r)-[:SEARCHED {query: s.query, step: s.step}]->(c)
}
CALL {
  WITH r
  UNWIND $retrieved AS t
  MATCH (f:SourceFragment {id: t.fragment_id})
  CREATE (r)-[:RETRIEVED {claim_id: t.claim_id, step: t.step}]->(f)
}
CREATE (r)-[:HANDOFF]->(:Handoff {id: $handoff_id, from_role: 'analyst', to_role: 'coordinator',
                                  payload: $handoff_payload, created_at: $now})
CREATE (r)-[:PRODUCED]->(d:Decision {id: $decision_id, origin: 'agent', run_id: r.id, created_at: $now,
                                     created_by: r.created_by, status: status, question: r.question,
                                     kind: CASE WHEN status = 'supported' THEN 'agent' ELSE 'unanswered' END,
                                     title: CASE WHEN status = 'supported' THEN $title ELSE $fallback_title END,
                                     rationale: $rationale,
                                     review_reason: CASE WHEN status = 'supported' THEN null ELSE $review_reason END})
WITH r, d, live, status
CALL {
  WITH d, live
  UNWIND range(0, size(live) - 1) AS j
  WITH d, live[j] AS c, j
  CREATE (c)-[:SUPPORTS {justification: j}]->(d)
}
CALL {
  WITH r, d, status
  UNWIND CASE WHEN status = 'supported' THEN $actions ELSE [] END AS a
  CREATE (r)-[:PRODUCED]->(:Action {id: a.id, title: a.title, status: 'pending', origin: 'agent', created_at: $now,
                                    created_by: r.created_by})-[:DEPENDS_ON]->(d)
}
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
    "origin: coalesce(r.origin, 'agent'), trajectory: trajectory, decision_ids: decision_ids, "
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


def _run(row: dict[str, Any], trajectory: dict[str, Any] | None = None) -> Run:
    decision_ids = [d for d in row["decision_ids"] if d]
    return Run(
        **{
            **row,
            "trajectory": trajectory if trajectory is not None else json.loads(row["trajectory"] or "{}"),
            "decision_ids": decision_ids,
            "decision_id": decision_ids[0] if decision_ids else None,
            "action_ids": sorted(a for a in row["action_ids"] if a),
        }
    )


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
        return _run(row)
    page = mcp_graph.mcp_steps(workspace=workspace, run_id=run_id, limit=STEP_PAGE, before=steps_before)
    return _run(row, mcp_trajectory(page, started=row["created_at"], updated=row["updated_at"]))


def run_list(*, workspace: HasGraph, limit: int = 50, after: tuple[str, str] | None = None) -> list[Run]:
    """The newest runs (after the (created_at, id) position `after`), without their trajectories."""
    return [_run(row) for row in graph.ro_records(workspace, RUN_LIST, {"limit": limit, **after_params(after)})]


def run_count(*, workspace: HasGraph) -> int:
    """How many times the agent was asked in this workspace."""
    return int(graph.ro_query(workspace, RUN_COUNT)[0][0])


# -- the review queue ----------------------------------------------------------------------------------

# Decisions waiting for a reviewer, of one side of the queue: questions the agent could not answer,
# or decisions that lost their support. The most recently flagged first.
REVIEW_LIST = (
    "MATCH (d:Decision) WHERE d.status = 'needs_review' AND d.dismissed_at IS NULL "
    "WITH d, " + DECISION_KIND + " AS kind WHERE (kind = 'unanswered') = $unanswered "
    "WITH d ORDER BY coalesce(d.status_changed_at, d.created_at) DESC, d.id DESC LIMIT $limit "
    + DECISION_SUPPORTS
    + DECISION_ACTIONS
    + "RETURN "
    + DECISION_FIELDS
    + " ORDER BY coalesce(decision.status_changed_at, decision.created_at) DESC, decision.id DESC"
)


def review_list(*, workspace: HasGraph, unanswered: bool, limit: int) -> list[Decision]:
    """At most `limit` decisions needing review and not dismissed: the unanswered questions, or the others."""
    params = {"unanswered": unanswered, "limit": limit, **KIND_PARAMS}
    return [_decision(row) for row in graph.ro_records(workspace, REVIEW_LIST, params)]


# -- the pages' lists (afterhack/listing.py): one query for a page, one for the count -------------------------
#
# Every filter is a $param that is '' when not asked; the ORDER BY is chosen by sort key from the constant
# columns below (graph.order_by), never written from a request. What a row shows of its neighbours is read by
# pattern comprehensions (no aggregation, so the page keeps its order), and the page is sorted again at the end.


# Who made it and when, as every list filters them: $author (lower-cased, partial) and the days [$since, $before).
def made(node: str) -> str:
    """The condition on who made `node` (one of this module's variables) and when."""
    return (
        "AND ($author = '' OR toLower(coalesce(" + node + ".created_by, '')) CONTAINS $author) "
        "AND ($since = '' OR "
        + node
        + ".created_at >= $since) AND ($before = '' OR "
        + node
        + ".created_at < $before) "
    )


@dataclass(frozen=True)
class NodeList:
    """A list of `node`s: `match` finds those the $params ask for, `read` returns a page's rows (RETURN …),
    `columns` are its sort keys' expressions."""

    node: str
    match: str
    columns: dict[str, str]
    read: str

    def page(
        self, workspace: HasGraph, *, criteria: Criteria, params: dict[str, Any], offset: int, limit: int
    ) -> list[dict[str, Any]]:
        """The rows of one page, in the criteria's order."""
        order = graph.order_by(
            self.columns, sort=criteria.sort, descending=criteria.descending, tiebreak=self.node + ".id"
        )
        cypher = self.match + "WITH " + self.node + order + "SKIP $offset LIMIT $limit " + self.read + order
        return graph.ro_records(workspace, cypher, {**params, "offset": offset, "limit": limit})

    def count(self, workspace: HasGraph, *, params: dict[str, Any]) -> int:
        """How many match."""
        return int(graph.ro_query(workspace, self.match + "RETURN count(" + self.node + ")", params)[0][0])


def _made(criteria: Criteria, person: str = "author") -> dict[str, str]:
    since, before = criteria.day_range()
    return {"author": criteria.get(person).lower(), "since": since, "before": before}


DECISION_ROWS_MATCH = (
    "MATCH (d:Decision) WHERE ($status = '' OR d.status = $status) AND ($q = '' OR toLower(d.title) CONTAINS $q) "
    + made("d")
    + "WITH d, "
    + DECISION_KIND
    + " AS kind WHERE $kind = '' OR kind = $kind "
)
DECISION_ROWS = NodeList(
    "d",
    match=DECISION_ROWS_MATCH,
    columns={"created": "d.created_at", "title": "toLower(d.title)", "status": "d.status"},
    read="WITH d, [(s)-[j:SUPPORTS]->(d) | {" + SUPPORT_FIELDS + "}] AS supports, "
    "[(a:Action)-[:DEPENDS_ON]->(d) | a.id] AS action_ids RETURN " + DECISION_FIELDS,
)


def _decision_params(criteria: Criteria) -> dict[str, Any]:
    return {
        "q": criteria.q.lower(), "status": criteria.get("status"), "kind": criteria.get("kind"),
        **_made(criteria), **KIND_PARAMS,
    }  # fmt: skip


def decision_rows(*, workspace: HasGraph, criteria: Criteria, offset: int, limit: int) -> list[Decision]:
    """One page of the decisions that match the criteria, in its order, each with its supports and actions."""
    params = _decision_params(criteria)
    rows = DECISION_ROWS.page(workspace, criteria=criteria, params=params, offset=offset, limit=limit)
    return [_decision(row) for row in rows]


def decision_rows_count(*, workspace: HasGraph, criteria: Criteria) -> int:
    """How many decisions match the criteria."""
    return DECISION_ROWS.count(workspace, params=_decision_params(criteria))


ACTION_ROWS_MATCH = (
    "MATCH (a:Action) WHERE ($status = '' OR a.status = $status) AND ($q = '' OR toLower(a.title) CONTAINS $q) "
    + made("a")
    + "WITH a, [(a)-[:DEPENDS_ON]->(x:Decision) | x.id] AS depends_on "
    "WHERE $decision = '' OR $decision IN depends_on "
)
ACTION_ROWS = NodeList(
    "a",
    match=ACTION_ROWS_MATCH,
    columns={"created": "a.created_at", "title": "toLower(a.title)", "status": "a.status"},
    read="WITH a, [(a)-[:DEPENDS_ON]->(d:Decision) | [d.id, d.title]] AS pairs "
    "WITH a, [p IN pairs | p[0]] AS decision_ids, [p IN pairs | p[1]] AS titles RETURN " + ACTION_FIELDS,
)


def _action_params(criteria: Criteria) -> dict[str, Any]:
    decision = criteria.get("decision")
    # A decision that is not an id matches no action (rather than every one).
    return {
        "q": criteria.q.lower(), "status": criteria.get("status"),
        "decision": (parse_id(decision) or "no such decision") if decision else "", **_made(criteria),
    }  # fmt: skip


def action_rows(*, workspace: HasGraph, criteria: Criteria, offset: int, limit: int) -> list[Action]:
    """One page of the actions that match the criteria, in its order, each with the decisions it depends on."""
    params = _action_params(criteria)
    return [
        _action(row)
        for row in ACTION_ROWS.page(workspace, criteria=criteria, params=params, offset=offset, limit=limit)
    ]


def action_rows_count(*, workspace: HasGraph, criteria: Criteria) -> int:
    """How many actions match the criteria."""
    return ACTION_ROWS.count(workspace, params=_action_params(criteria))


RUN_ROWS_MATCH = (
    "MATCH (r:AgentRun) WHERE ($q = '' OR toLower(r.question) CONTAINS $q) AND ($status = '' OR r.status = $status) "
    "AND ($origin = '' OR coalesce(r.origin, 'agent') = $origin) " + made("r")
)
# A run as a list shows it: without its trajectory, with the decisions it recorded.
RUN_ROWS = NodeList(
    "r",
    match=RUN_ROWS_MATCH,
    columns={"created": "r.created_at", "question": "toLower(r.question)", "status": "r.status"},
    read="WITH r, '{}' AS trajectory, [(r)-[:PRODUCED]->(d:Decision) | d.id] AS decision_ids, [] AS action_ids "
    "RETURN " + RUN_FIELDS,
)


def _run_params(criteria: Criteria) -> dict[str, Any]:
    return {"q": criteria.q.lower(), "status": criteria.get("status"), "origin": criteria.get("origin"),
            **_made(criteria, person="person")}  # fmt: skip


def run_rows(*, workspace: HasGraph, criteria: Criteria, offset: int, limit: int) -> list[Run]:
    """One page of the runs that match the criteria, in its order (without their trajectories)."""
    params = _run_params(criteria)
    return [_run(row) for row in RUN_ROWS.page(workspace, criteria=criteria, params=params, offset=offset, limit=limit)]


def run_rows_count(*, workspace: HasGraph, criteria: Criteria) -> int:
    """How many runs match the criteria."""
    return RUN_ROWS.count(workspace, params=_run_params(criteria))
