"""The dashboard as of a moment counts in Cypher (workspaces/graph.py `attention_as_of`, composed of the apps'
registered parts: the present's counts, corrected by what changed since) what the single reads rewind in Python
(afterhack/history.py): the two must agree, at every moment of a story with a correction, a dismissal, a person's
mark and a re-justification."""

from __future__ import annotations

from collections import Counter

import pytest

from afterhack import graph
from afterhack.clock import now_iso
from agents.selectors import decisions as agents_selectors
from agents.services import decisions as agents_services
from claims.selectors import claims as claims_selectors
from corrections import review
from tests.corrections.conftest import World, june_to_july
from workspaces.selectors import dashboard as dashboard_selectors

pytestmark = pytest.mark.django_db


def ids(world: World, label: str) -> list[str]:
    return [row[0] for row in graph.ro_query(world.trio.workspace, "MATCH (n:" + label + ") RETURN n.id")]


def rewound(world: World, moment: str) -> tuple[Counter[str], Counter[str], Counter[str], int]:
    """Claims, decisions and actions by status at the moment, and the open decisions, one read at a time."""
    workspace = world.trio.workspace
    claims = [claims_selectors.claim_get(workspace=workspace, claim_id=i, as_of=moment) for i in ids(world, "Claim")]
    decisions = [
        agents_selectors.decision_get(workspace=workspace, decision_id=i, as_of=moment) for i in ids(world, "Decision")
    ]
    actions = [
        agents_selectors.action_get(workspace=workspace, action_id=i, as_of=moment) for i in ids(world, "Action")
    ]
    return (
        Counter(c.status for c in claims if c),
        Counter(d.status for d in decisions if d),
        Counter(a.status for a in actions if a),
        sum(1 for d in decisions if d and d.reviewable),
    )


def test_the_dashboard_then_agrees_with_each_thing_read_then(world: World) -> None:
    workspace = world.trio.workspace
    moments = [now_iso()]
    launch, announce, _, _ = june_to_july(world)
    moments.append(now_iso())
    other = world.decision("Brief the board", [world.board])
    deposit = world.action("Pay the deposit", other)
    moments.append(now_iso())
    agents_services.action_mark(workspace=workspace, action_id=deposit, status="done", actor=world.trio.reviewer)
    moments.append(now_iso())
    review.decision_dismiss(workspace=workspace, decision_id=launch, actor=world.trio.reviewer)
    moments.append(now_iso())
    assert announce and len(moments) == 5
    for moment in moments:
        then = dashboard_selectors.dashboard_as_of(workspace=workspace, as_of=moment).attention
        assert then is not None
        claims, decisions, actions, open_ = rewound(world, moment)
        assert {k: v for k, v in then.claims.items() if v} == dict(claims), moment
        assert {k: v for k, v in then.decisions.items() if v} == dict(decisions), moment
        assert {k: v for k, v in then.actions.items() if v} == dict(actions), moment
        assert then.lost_support + then.unanswered == open_, moment
