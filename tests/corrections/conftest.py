"""Fixtures for correction tests: the launch story with decisions and actions."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from agents.services import decisions as agents_services
from claims.services import claims as claims_services
from claims.services import sources as sources_services
from tests.conftest import Trio, api_for

PLAN = "Launch plan\n\nThe launch is in June. Ana owns the checklist. Marketing starts in May.\n"
EMAIL = "Northwind: we were told the launch is in June.\n"
BOARD = "Board minutes: the board expects a June launch.\n"


@dataclass
class World:
    trio: Trio
    june: str
    ana: str
    may: str
    northwind: str
    board: str
    plan_version: str
    # The statement last previewed per claim: an Apply sends it back, as the page does.
    previewed: dict[str, str] = field(default_factory=dict)

    @property
    def ws(self) -> str:
        return str(self.trio.workspace.id)

    def decision(self, title: str, *justifications: list[str]) -> str:
        return agents_services.decision_add(
            workspace=self.trio.workspace,
            title=title,
            rationale="",
            justifications=list(justifications),
            actor=self.trio.reviewer,
        ).id

    def action(self, title: str, *decision_ids: str) -> str:
        return agents_services.action_add(
            workspace=self.trio.workspace, title=title, decision_ids=list(decision_ids), actor=self.trio.reviewer
        ).id

    def derived(self, statement: str, *premises: str) -> str:
        return claims_services.derived_claim_add(
            workspace=self.trio.workspace, statement=statement, derived_from=list(premises), actor=self.trio.reviewer
        ).id

    def preview(self, claim_id: str, statement: str = "The launch is in July.", user: Any = None) -> Any:
        self.previewed[claim_id] = statement
        return api_for(user or self.trio.reviewer).post(
            f"/workspaces/{self.ws}/claims/{claim_id}/correction-preview", {"statement": statement}
        )

    def apply(
        self,
        claim_id: str,
        revision: int,
        key: str = "key-1",
        statement: str | None = None,
        user: Any = None,
    ) -> Any:
        statement = statement or self.previewed.get(claim_id, "The launch is in July.")
        body = {"statement": statement, "reason": "The board moved it.", "revision": revision, "idempotency_key": key}
        return api_for(user or self.trio.reviewer).post(f"/workspaces/{self.ws}/claims/{claim_id}/corrections", body)


def june_to_july(world: World) -> tuple[str, str, str, str]:
    """The launch decision on June and its announcement, flagged by the correction to July. Returns the
    decision, the action, a moment before the correction and a moment after it (for reads of the past)."""
    from afterhack.clock import now_iso

    launch = world.decision("Launch in June", [world.june])
    announce = world.action("Send the launch announcement", launch)
    before = now_iso()
    assert world.apply(world.june, world.preview(world.june).json()["revision"]).status_code == 201
    return launch, announce, before, now_iso()


def _claim(trio: Trio, source_id: str, quote: str) -> str:
    return claims_services.claim_add(
        workspace=trio.workspace, source_id=source_id, statement=quote + ".", evidence_quote=quote, actor=trio.reviewer
    ).id


@pytest.fixture
def world(trio: Trio) -> World:
    plan = sources_services.source_add(workspace=trio.workspace, title="Launch plan", text=PLAN, actor=trio.reviewer)
    email = sources_services.source_add(workspace=trio.workspace, title="Email", text=EMAIL, actor=trio.reviewer)
    board = sources_services.source_add(workspace=trio.workspace, title="Board", text=BOARD, actor=trio.reviewer)
    from claims.graph import sources as sources_graph

    version = sources_graph.source_get(workspace=trio.workspace, source_id=plan.id)
    assert version is not None
    return World(
        trio,
        june=_claim(trio, plan.id, "The launch is in June"),
        ana=_claim(trio, plan.id, "Ana owns the checklist"),
        may=_claim(trio, plan.id, "Marketing starts in May"),
        northwind=_claim(trio, email.id, "we were told the launch is in June"),
        board=_claim(trio, board.id, "the board expects a June launch"),
        plan_version=version.id,
    )
