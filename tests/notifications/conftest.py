from __future__ import annotations

from dataclasses import dataclass

import pytest

from agents.services import decisions as decision_services
from claims.services import claims as claims_services
from claims.services import sources as sources_services
from tests.conftest import Trio

PLAN = "Launch plan\n\nThe launch is in June. Ana owns the checklist.\n"


@pytest.fixture
def claim(trio: Trio) -> str:
    source = sources_services.source_add(workspace=trio.workspace, title="Plan", text=PLAN, actor=trio.reviewer).id
    return claims_services.claim_add(
        workspace=trio.workspace, source_id=source, statement="The launch is in June.",
        evidence_quote="The launch is in June", actor=trio.reviewer,
    ).id  # fmt: skip


@dataclass
class Nodes:
    claim: str
    decision: str
    action: str


@pytest.fixture
def nodes(trio: Trio, claim: str) -> Nodes:
    decision = decision_services.decision_add(
        workspace=trio.workspace, title="Launch in June", rationale="", justifications=[[claim]], actor=trio.reviewer
    ).id
    action = decision_services.action_add(
        workspace=trio.workspace, title="Send the launch announcement", decision_ids=[decision], actor=trio.reviewer
    ).id
    return Nodes(claim, decision, action)
