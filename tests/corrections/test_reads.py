"""Reads in batches: the pages that list decisions, actions and corrections read each kind in one query,
so a correction that touches many decisions costs the same queries as one that touches one."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import pytest

from afterhack import graph
from agents.selectors import decisions as agents_selectors
from corrections.graph import subgraph as subgraph_graph
from corrections.selectors import corrections as corrections_selectors
from tests.conftest import client_for
from tests.corrections.conftest import World

pytestmark = pytest.mark.django_db

NOWHERE = "00000000-0000-0000-0000-000000000000"


@contextmanager
def counted_reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The read queries the real graph answers meanwhile (each still runs against FalkorDB)."""
    seen: list[str] = []
    read = graph.ro_query

    def counting(workspace: Any, cypher: str, params: dict[str, Any] | None = None) -> list[Any]:
        seen.append(cypher)
        return read(workspace, cypher, params)

    with monkeypatch.context() as patch:
        patch.setattr(graph, "ro_query", counting)
        yield seen


def corrected(world: World, claim_id: str) -> str:
    """Applies a correction of the claim through the API; its id."""
    revision = world.preview(claim_id).json()["revision"]
    response = world.apply(claim_id, revision, key=f"key-{claim_id}")
    assert response.status_code in (200, 201), response.content
    return str(response.json()["correction_id"])


def one_and_many(world: World, many: int) -> None:
    """One decision (with an action) resting on the June claim, and `many` resting on Ana's."""
    world.action("Announce June", world.decision("Launch in June", [world.june]))
    for n in range(many):
        world.action(f"Checklist step {n}", world.decision(f"Ana runs step {n}", [world.ana]))


class BatchReadTests:
    def test_decisions_come_back_in_the_order_asked_each_once_unknown_ids_left_out(self, world: World) -> None:
        first = world.decision("Launch in June", [world.june])
        second = world.decision("Ana runs the checklist", [world.ana])
        world.action("Announce", first, second)
        ws = world.trio.workspace
        found = agents_selectors.decisions_get(workspace=ws, decision_ids=[second, "not-an-id", NOWHERE, first, second])
        assert [d.id for d in found] == [second, first]
        assert found == [agents_selectors.decision_get(workspace=ws, decision_id=i) for i in (second, first)]
        assert agents_selectors.decisions_get(workspace=ws, decision_ids=[]) == []

    def test_an_action_resting_on_two_decisions_is_listed_once_under_each(self, world: World) -> None:
        first = world.decision("Launch in June", [world.june])
        second = world.decision("Ana runs the checklist", [world.ana])
        shared = world.action("Announce", first, second)
        own = world.action("Book the hall", second)
        ws = world.trio.workspace
        decisions = agents_selectors.decisions_get(workspace=ws, decision_ids=[first, second])
        by_decision = agents_selectors.actions_by_decision(workspace=ws, decisions=decisions)
        assert [a.id for a in by_decision[first]] == [shared]
        assert sorted(a.id for a in by_decision[second]) == sorted([shared, own])

    def test_corrections_come_back_in_the_order_asked_each_once_unknown_ids_left_out(self, world: World) -> None:
        june, ana = corrected(world, world.june), corrected(world, world.ana)
        found = corrections_selectors.corrections_get(
            workspace=world.trio.workspace, correction_ids=[ana, NOWHERE, june, ana]
        )
        assert [(c.id, c.claim_id) for c in found] == [(ana, world.ana), (june, world.june)]
        assert found[1] == corrections_selectors.correction_get(workspace=world.trio.workspace, correction_id=june)


class QueryCountTests:
    def test_a_correction_page_reads_as_much_for_five_decisions_as_for_one(
        self, world: World, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        one_and_many(world, 5)
        small, large = corrected(world, world.june), corrected(world, world.ana)
        client = client_for(world.trio.viewer)
        pages = {}
        for correction_id in (small, large):
            with counted_reads(monkeypatch) as reads:
                page = client.get(f"/w/{world.ws}/corrections/{correction_id}/").content.decode()
            pages[correction_id] = (page, len(reads))
        assert "Ana runs step 4" in pages[large][0] and "Checklist step 4" in pages[large][0]
        assert pages[large][1] == pages[small][1]

    def test_the_review_queue_reads_as_much_for_five_decisions_as_for_one(
        self, world: World, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        one_and_many(world, 4)
        client = client_for(world.trio.reviewer)
        corrected(world, world.june)
        with counted_reads(monkeypatch) as one:
            assert "Launch in June" in client.get(f"/w/{world.ws}/review/").content.decode()
        corrected(world, world.ana)
        with counted_reads(monkeypatch) as five:
            page = client.get(f"/w/{world.ws}/review/").content.decode()
        assert "Ana runs step 3" in page and "Checklist step 3" in page
        assert len(five) == len(one)

    def test_a_preview_reads_as_much_for_five_decisions_as_for_one(
        self, world: World, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        one_and_many(world, 5)
        client = client_for(world.trio.reviewer)
        counts = {}
        for claim_id in (world.june, world.ana):
            with counted_reads(monkeypatch) as reads:
                page = client.post(
                    f"/w/{world.ws}/claims/{claim_id}/correct", {"statement": "It moved.", "reason": "Board."}
                ).content.decode()
            counts[claim_id] = len(reads)
        assert "Ana runs step 4" in page and "Checklist step 4" in page
        assert counts[world.ana] == counts[world.june]

    def test_a_preview_page_reads_what_rests_on_the_claim_once(self, world: World) -> None:
        one_and_many(world, 1)
        client = client_for(world.trio.reviewer)
        # The real store answers every read; the spy only counts the reads of the subgraph (its PICTURE query).
        with mock.patch.object(graph, "ro_records", wraps=graph.ro_records) as reads:
            page = client.post(
                f"/w/{world.ws}/claims/{world.june}/correct", {"statement": "It moved.", "reason": "Board."}
            ).content.decode()
        subgraphs = [call for call in reads.call_args_list if subgraph_graph.PICTURE in call.args[1]]
        assert "Launch in June" in page and "Announce June" in page
        assert len(subgraphs) == 1
