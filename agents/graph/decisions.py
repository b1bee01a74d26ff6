"""Decisions in the graph: a person's decision created from its justifications (SUPPORTS from claims and decisions),
and the reads of decisions with their supports and the actions resting on them, one, many, a page or a picker's.

A decision is created supported; every later change (flagged, re-justified, revised, dismissed) is belief
maintenance, written by corrections' graph modules. Whether a support holds is afterhack.holds. The Cypher fragments
that read a decision as one map (DECISION_FIELDS and its parts) are shared by the other agents/graph modules.
"""

from __future__ import annotations

from typing import Any

from afterhack import graph
from afterhack.cypher import word
from afterhack.graph import BUMP_REVISION, HasGraph
from afterhack.holds import holds
from afterhack.ids import parse_id
from afterhack.lists.graph import after_params, status_page
from agents.coordinator import NO_ANSWER_TITLE
from agents.graph.shapes import Decision
from agents.lists import DECISION_STATUS
from agents.statuses import DecisionKind, DecisionStatus, Origin

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
    + f""")
CREATE (d:Decision {{id: $decision_id, title: $title, rationale: $rationale, status: {word(DecisionStatus.SUPPORTED)}, review_reason: null,
                    origin: {word(Origin.REVIEWER)}, kind: {word(DecisionKind.MANUAL)}, question: null, run_id: null, created_at: $now,
                    created_by: $created_by}})
WITH d, supports
UNWIND $edges AS e
WITH d, e, [s IN supports WHERE s.id = e.sid][0] AS s
CREATE (s)-[:SUPPORTS {{justification: e.j}}]->(d)
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
    f"coalesce(d.kind, CASE WHEN coalesce(d.origin, {word(Origin.REVIEWER)}) <> {word(Origin.AGENT)} THEN {word(DecisionKind.MANUAL)} "
    f"WHEN d.title = $no_answer_title AND size([(s)-[:SUPPORTS]->(d) | s]) = 0 THEN {word(DecisionKind.UNANSWERED)} ELSE {word(DecisionKind.AGENT)} END)"
)
DECISION_QUESTION = f"coalesce(d.question, CASE WHEN d.origin = {word(Origin.AGENT)} THEN head([(r:AgentRun)-[:PRODUCED]->(d) | r.question]) END)"
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


def decision_get(*, workspace: HasGraph, decision_id: str) -> Decision | None:
    """The decision with its supports (and their evidence) and the actions that depend on it."""
    if parse_id(decision_id) is None:
        return None
    rows = graph.ro_records(workspace, DECISION_GET, {"decision_id": decision_id, **KIND_PARAMS})
    return Decision.from_row(rows[0]) if rows else None


DECISION_LIST, DECISION_COUNT = status_page(
    "d",
    "Decision",
    status=DECISION_STATUS,
    read=DECISION_SUPPORTS + DECISION_ACTIONS,
    fields=DECISION_FIELDS,
    alias="decision",
)


def decision_list(
    *, workspace: HasGraph, status: str = "", offset: int = 0, limit: int = 100, after: tuple[str, str] | None = None
) -> list[Decision]:
    """Decisions, newest first (after the (created_at, id) position `after`), optionally only those with this status."""
    params = {"status": status, "offset": offset, "limit": limit, **after_params(after), **KIND_PARAMS}
    return [Decision.from_row(row) for row in graph.ro_records(workspace, DECISION_LIST, params)]


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
        for d in map(
            Decision.from_row, graph.ro_records(workspace, DECISIONS_GET, {"decision_ids": ids, **KIND_PARAMS})
        )
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
