"""An apply whose compare-and-set loses to unrelated writes tries again, after pauses that grow at random, and
refuses only once every attempt has lost; what it refuses leaves nothing written."""

from __future__ import annotations

from typing import Any

import pytest

from afterhack import graph
from corrections.graph import apply as apply_graph
from corrections.models import CorrectionIntent
from corrections.services import apply as apply_services
from corrections.services import preview as preview_services
from corrections.services import retry
from corrections.statuses import ApplyStatus
from tests.corrections.conftest import World

pytestmark = pytest.mark.django_db

STATEMENT = "The launch is in July."


def losing(world: World, monkeypatch: pytest.MonkeyPatch, losses: int) -> tuple[list[int], list[float]]:
    """Makes the first `losses` graph writes of an apply lose the race: an unrelated write moves the workspace's
    counter just before each (as another reviewer's would). Returns the writes tried and the pauses slept."""
    write = apply_graph.correction_apply
    tried: list[int] = []
    paused: list[float] = []

    def racing(**kwargs: Any) -> bool:
        tried.append(kwargs["revision"])
        if len(tried) <= losses:
            graph.query(world.trio.workspace, "MATCH (w:Workspace) SET w.revision = w.revision + 1")
        return write(**kwargs)

    monkeypatch.setattr(apply_graph, "correction_apply", racing)
    monkeypatch.setattr(retry, "_sleep", paused.append)
    return tried, paused


def apply(world: World, key: str) -> apply_services.Outcome:
    plan = preview_services.preview(workspace=world.trio.workspace, claim_id=world.june, statement=STATEMENT)
    return apply_services.apply(
        workspace=world.trio.workspace, claim_id=world.june, statement=STATEMENT, reason="The board moved it.",
        revision=plan.fingerprint, idempotency_key=key, actor=world.trio.reviewer,
    )  # fmt: skip


def test_an_apply_that_loses_the_race_three_times_is_written_at_the_fourth(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    world.decision("Launch in June", [world.june])
    tried, paused = losing(world, monkeypatch, 3)
    outcome = apply(world, "race")
    assert outcome.status == ApplyStatus.APPLIED
    # Each attempt read the picture again and wrote at the counter it read then.
    assert len(tried) == 4 and tried == sorted(set(tried))
    # A pause before each attempt but the first, drawn below a bound that doubles.
    assert len(paused) == 3
    for attempt, pause in enumerate(paused, start=1):
        assert 0 <= pause <= min(retry.RETRY_PAUSE_CAP_S, retry.RETRY_PAUSE_S * 2**attempt)
    assert CorrectionIntent.objects.get(idempotency_key="race").state == "applied"
    assert graph.ro_query(world.trio.workspace, "MATCH (x:Correction) RETURN count(x)") == [[1]]


def test_an_apply_that_loses_every_attempt_is_refused_and_writes_nothing(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    world.decision("Launch in June", [world.june])
    tried, paused = losing(world, monkeypatch, retry.WRITE_ATTEMPTS)
    with pytest.raises(preview_services.StalePreview):
        apply(world, "lost")
    assert len(tried) == retry.WRITE_ATTEMPTS and len(paused) == retry.WRITE_ATTEMPTS - 1
    intent = CorrectionIntent.objects.get(idempotency_key="lost")
    assert intent.state == "refused" and intent.error == "the workspace kept changing"
    assert graph.ro_query(world.trio.workspace, "MATCH (x:Correction) RETURN count(x)") == [[0]]
    status = graph.ro_query(world.trio.workspace, "MATCH (c:Claim {id: $id}) RETURN c.status", {"id": world.june})
    assert status == [["current"]]


def test_no_pause_before_the_first_attempt_and_none_past_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    slept: list[float] = []
    monkeypatch.setattr(retry, "_sleep", slept.append)
    retry.pause(0)
    retry.pause(1)
    retry.pause(30)
    assert len(slept) == 2 and 0 <= slept[0] <= 2 * retry.RETRY_PAUSE_S
    assert 0 <= slept[1] <= retry.RETRY_PAUSE_CAP_S
