"""What a preview and an apply send to the stores: one graph read (and one graph write), the fewest PostgreSQL
statements, and a second applier of the same key that waits for the first one's lock."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection, connections
from django.test.utils import CaptureQueriesContext

from afterhack import graph
from claims.signals import claims_current
from corrections import intents
from corrections.models import CorrectionIntent
from corrections.services import apply as apply_services
from corrections.services import preview as preview_services
from corrections.services.watch import claims_current_received
from corrections.statuses import ApplyStatus
from tests.corrections.conftest import World
from tests.waiting import wait_until
from workspaces import registry
from workspaces.models import AuditEvent

pytestmark = pytest.mark.django_db(transaction=True)

STATEMENT = "The launch is in July."


def story(world: World) -> tuple[str, str, str]:
    """A decision resting on June alone, one resting on a claim derived from June and Ana, an action on the latter."""
    launch = world.decision("Launch in June", [world.june])
    derived = world.derived("Ana launches in June.", world.june, world.ana)
    brief = world.decision("Brief Ana", [derived])
    return launch, derived, world.action("Send the brief", brief)


def apply(world: World, revision: int, key: str) -> apply_services.Outcome:
    return apply_services.apply(
        workspace=world.trio.workspace, claim_id=world.june, statement=STATEMENT, reason="The board moved it.",
        revision=revision, idempotency_key=key, actor=world.trio.reviewer,
    )  # fmt: skip


class RoundTripTests:
    def test_a_preview_is_one_graph_read_and_no_postgres(self, world: World) -> None:
        story(world)
        before = graph.queries_sent()
        with CaptureQueriesContext(connection) as sql:
            plan = preview_services.preview(workspace=world.trio.workspace, claim_id=world.june, statement=STATEMENT)
        assert graph.queries_sent() - before == 1
        assert len(sql.captured_queries) == 0
        assert len(plan.impact.decisions_needing_review) == 2 and len(plan.impact.actions_held) == 1

    def test_an_apply_is_one_graph_read_one_graph_write_and_three_postgres_statements(self, world: World) -> None:
        launch, derived, _ = story(world)
        plan = preview_services.preview(workspace=world.trio.workspace, claim_id=world.june, statement=STATEMENT)
        before = graph.queries_sent()
        # The contradiction watch on the replacement and the telling of the correction are the workers' (Celery runs
        # eagerly in tests): not counted.
        claims_current.disconnect(dispatch_uid="corrections.watch")
        kicks, registry.TELL_SOON[:] = list(registry.TELL_SOON), []
        try:
            with CaptureQueriesContext(connection) as sql:
                outcome = apply(world, plan.fingerprint, "trips")
        finally:
            claims_current.connect(claims_current_received, dispatch_uid="corrections.watch")
            registry.TELL_SOON[:] = kicks
        assert graph.queries_sent() - before == 2
        statements = [q["sql"] for q in sql.captured_queries]
        # The lock with the intent, the outcome with the audit event, the unlock: each its own autocommit.
        assert len(statements) == 3, statements
        assert "pg_advisory_lock" in statements[0] and "INSERT" in statements[0]
        assert "UPDATE" in statements[1] and "INSERT" in statements[1]
        assert "pg_advisory_unlock" in statements[2]
        assert outcome.status == ApplyStatus.APPLIED
        assert launch in outcome.affected["decisions_needing_review"] and outcome.affected["claims_unsupported"] == [
            derived
        ]
        intent = CorrectionIntent.objects.get(idempotency_key="trips")
        assert intent.state == "applied" and intent.affected == outcome.affected
        event = AuditEvent.objects.get(verb="correction.applied")
        assert event.actor == world.trio.reviewer and event.actor_name == world.trio.reviewer.get_username()
        assert event.workspace == world.trio.workspace and event.target == STATEMENT
        assert event.payload["correction_id"] == outcome.correction_id and event.payload["recovered"] is False
        assert event.payload["impact"]["actions_held"][0]["title"] == "Send the brief"


def waiting_for_advisory_lock() -> bool:
    """Whether some session waits for an advisory lock it has not been granted."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")
        return bool(cursor.fetchone()[0])


class SameKeyTests:
    def test_a_second_applier_of_the_key_waits_for_the_lock_then_answers_already_applied(self, world: World) -> None:
        story(world)
        revision = preview_services.preview(
            workspace=world.trio.workspace, claim_id=world.june, statement=STATEMENT
        ).fingerprint
        first = apply(world, revision, "same")
        answers: list[Any] = []

        def second() -> None:
            try:
                answers.append(apply(world, revision, "same"))
            except Exception as error:  # noqa: BLE001 - the test reports what it got
                answers.append(error)
            finally:
                connections.close_all()

        number = intents._lock_number(world.trio.workspace.id, "same")
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s)", [number])
        waiter = threading.Thread(target=second)
        try:
            waiter.start()
            # It waits in the statement that takes the lock with the intent (polled: never a timed assertion).
            wait_until(waiting_for_advisory_lock, seconds=30, what="the second apply to wait for the advisory lock")
            assert waiting_for_advisory_lock() and not answers
        finally:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [number])
        waiter.join(timeout=60)
        assert len(answers) == 1 and isinstance(answers[0], apply_services.Outcome), answers
        assert answers[0].status == ApplyStatus.ALREADY_APPLIED
        assert answers[0].replacement_claim_id == first.replacement_claim_id
        assert CorrectionIntent.objects.filter(idempotency_key="same").count() == 1
        assert AuditEvent.objects.filter(verb="correction.applied").count() == 1
        assert graph.ro_query(world.trio.workspace, "MATCH (x:Correction) RETURN count(x)") == [[1]]


def test_a_forked_child_reads_with_threads_of_its_own() -> None:
    """The reader pool of a process that forks after using it has no threads in the child: the child makes its own,
    so its apply's read runs (a child that waited on the inherited pool would hold the key's lock for ever)."""
    import os

    assert intents._READER.submit(lambda: "parent").result(timeout=5) == "parent"
    inherited = intents._READER
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the child
        ok = intents._READER is not inherited and intents._READER.submit(lambda: 1).result(timeout=5) == 1
        os._exit(0 if ok else 1)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
