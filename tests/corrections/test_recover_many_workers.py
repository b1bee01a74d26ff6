"""Recovery run by several workers at once (many hosts, one beat that may fire twice, `manage.py
recover_corrections` by hand): each stuck intent is settled once, with one audit event."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from corrections import intents
from corrections.models import CorrectionIntent
from tests.corrections.conftest import World
from tests.corrections.test_processes import APPLY, ROOT, env, invariants, release, wait_until_key_is_free
from workspaces.models import AuditEvent

pytestmark = [pytest.mark.subprocess, pytest.mark.django_db(transaction=True)]

RECOVER = """
import json, sys
import django
django.setup()
from corrections import intents
from afterhack import graph
from django.db import connection
graph.ping()
connection.ensure_connection()
print("ready", flush=True)
sys.stdin.readline()
report = intents.recover()
print(json.dumps({"completed": report.completed, "failed": report.failed, "busy": report.busy}))
"""

WORKERS = 4


def crash(world: World, claim_id: str, key: str, step: str) -> None:
    """An applier of `claim_id` killed at `step`, leaving its intent pending."""
    revision = world.preview(claim_id).json()["revision"]
    args = [sys.executable, "-c", APPLY, world.ws, "rita", claim_id, str(revision), key]
    process = subprocess.Popen(
        args, env=env(AFTERHACK_FAULT_INJECTION=step), cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    release(process)
    process.communicate(timeout=120)
    assert process.returncode == 86, "the applier did not die where it was told to"
    wait_until_key_is_free(world, key)


def recoverer() -> subprocess.Popen[str]:
    """A worker process that runs recovery when released."""
    return subprocess.Popen(
        [sys.executable, "-c", RECOVER], env=env(), cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def test_several_workers_recovering_at_once_settle_each_intent_once(world: World) -> None:
    crash(world, world.june, "june-key", "after_graph")
    crash(world, world.ana, "ana-key", "after_graph")
    crash(world, world.may, "may-key", "after_intent")
    assert CorrectionIntent.objects.filter(state="pending").count() == 3

    workers = [recoverer() for _ in range(WORKERS)]
    release(*workers)
    reports = []
    for worker in workers:
        out, err = worker.communicate(timeout=120)
        assert worker.returncode == 0, err
        reports.append(json.loads(out.strip().splitlines()[-1]))

    # Each intent settled by exactly one worker: the reports add up to the intents, never more.
    assert sum(r["completed"] for r in reports) == 2, reports
    assert sum(r["failed"] for r in reports) == 1, reports
    states = dict(CorrectionIntent.objects.values_list("idempotency_key", "state"))
    assert states == {"june-key": "applied", "ana-key": "applied", "may-key": "failed"}
    assert AuditEvent.objects.filter(verb="correction.applied").count() == 2
    invariants(world)
    # Nothing is left for a later run.
    assert intents.recover() == intents.RecoveryReport(0, 0, 0)
