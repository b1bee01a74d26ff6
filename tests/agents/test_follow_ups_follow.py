"""Every query that may cancel an action moves the done action the cancelled one follows up (`needed` again), in the
same query, through agents/graph/actions.py follow_ups_follow: checked on the source, like record_change's markers
(tests/afterhack/test_history.py), so a new cancelling query that forgets it fails here."""

from __future__ import annotations

import re

import pytest

from afterhack.cypher import word
from agents.graph.actions import FOLLOWED, follow_ups_follow
from agents.statuses import ActionStatus
from tests.afterhack.test_boundaries import APP_DIRS, SET_CLAUSE, graph_queries

CANCELLED = word(ActionStatus.CANCELLED)
LITERAL = re.compile(r"'\w+'")


def may_cancel(cypher: str) -> set[str]:
    """The variables a query may set `cancelled`: set to the word itself, or to an expression (a $param, a variable,
    a CASE) or a whole map unless bound only to labels other than Action; only in a query that reads actions."""
    if ":Action" not in cypher:
        return set()
    found = set()
    for clause in SET_CLAUSE.findall(cypher):
        sets = re.findall(r"\b(\w+)\.status\s*=(?!=)\s*([^,\n]+)", clause)
        maps = re.findall(r"(?<![.\w])(\w+)\s*\+?=\s*([$\{])", clause)
        for var, value in sets + maps:
            labels = set(re.findall(r"\(" + var + r":(\w+)", cypher))
            # `cancelled` is an action's word only; a variable's name may be reused for another label in the query.
            if LITERAL.fullmatch(value.strip()):
                if value.strip() == CANCELLED:
                    found.add(var)
            elif not labels or "Action" in labels:
                found.add(var)
    return found


def cancelling_queries() -> dict[str, str]:
    queries = {name: q for folder in APP_DIRS for name, q in graph_queries(folder).items()}
    return {name: q for name, q in queries.items() if may_cancel(q)}


def test_every_query_that_may_cancel_an_action_moves_what_it_follows_up() -> None:
    cancelling = cancelling_queries()
    names = {name.rsplit(":", 1)[-1] for name in cancelling}
    assert {"ACTION_SET_STATUS", "DECISION_DISMISS", "DECISION_REVISE"} <= names, names
    missing = sorted(name for name, cypher in cancelling.items() if FOLLOWED not in cypher)
    assert missing == [], (
        f"these queries may set an action `cancelled` without follow_ups_follow(...) (docs/design.md): {missing}"
    )


def test_the_checker_sees_what_it_must() -> None:
    assert may_cancel("MATCH (a:Action) SET a.status = 'cancelled'") == {"a"}
    assert may_cancel("MATCH (a:Action) SET a.status = $status") == {"a"}
    assert may_cancel("MATCH (:Action) FOREACH (x IN xs | SET x.status = 'cancelled')") == {"x"}
    assert may_cancel("MATCH (a:Action) SET a += $props") == {"a"}
    assert may_cancel("MATCH (a:Action) SET a.status = 'held'") == set()
    assert may_cancel("MATCH (a:Action)-->(d:Decision) SET d.status = $to") == set()
    assert may_cancel("MATCH (x:Decision) WITH x MATCH (x:Action) SET x.status = 'cancelled'") == {"x"}
    assert may_cancel("MATCH (r:AgentRun) SET r.status = 'cancelled'") == set()
    fragment = follow_ups_follow("moved", cause="person", cause_id="null", actor="$actor")
    assert FOLLOWED in fragment and fragment.startswith("CALL { WITH moved UNWIND moved AS fu ")
    with pytest.raises(ValueError):
        follow_ups_follow("moved) DETACH DELETE (x", cause="person", cause_id="null", actor="$actor")
