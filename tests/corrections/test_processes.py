"""Corrections from separate processes: 16 at once on one claim, and a process killed at each step, then recovery."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import connection, transaction

from afterhack import graph
from corrections import intents
from corrections.models import CorrectionIntent
from tests.conftest import api_for
from tests.corrections.conftest import World
from workspaces.models import AuditEvent

pytestmark = [pytest.mark.subprocess, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]

APPLY = """
import json, sys
import django
django.setup()
from django.contrib.auth import get_user_model
from corrections.services import apply as apply_services
from workspaces.models import Workspace
workspace_id, username, claim_id, revision, key = sys.argv[1:6]
workspace = Workspace.objects.get(id=workspace_id)
actor = get_user_model().objects.get(username=username)
from afterhack import graph
graph.ping()
# Django loaded, both stores connected: wait for the test to start every applier at once.
print("ready", flush=True)
sys.stdin.readline()
try:
    outcome = apply_services.apply(workspace=workspace, claim_id=claim_id, statement="The launch is in July.",
                                   reason="The board moved it.", revision=int(revision), idempotency_key=key, actor=actor)
    print(json.dumps({"status": outcome.status, "replacement": outcome.replacement_claim_id}))
except Exception as error:
    print(json.dumps({"error": getattr(error, "code", type(error).__name__)}))
"""


def env(**extra: str) -> dict[str, str]:
    """The environment of a separate process on this test's own databases."""
    db = connection.settings_dict
    url = (
        f"postgresql://{db['USER']}:{db['PASSWORD']}@/{db['NAME']}?host={db['HOST']}"
        if not db["PORT"]
        else (f"postgresql://{db['USER']}:{db['PASSWORD']}@{db['HOST']}:{db['PORT']}/{db['NAME']}")
    )
    values = dict(os.environ)
    values.update(
        DATABASE_URL=url, FALKORDB_URL=settings.FALKORDB_URL, DJANGO_SETTINGS_MODULE="config.settings",
        PYTHONPATH=str(ROOT), AFTERHACK_FAULT_INJECTION="",
    )  # fmt: skip
    values.update(extra)
    return values


def start(world: World, revision: int, key: str, **extra: str) -> subprocess.Popen[str]:
    """An applier in its own process, loaded and connected, waiting for `release`."""
    args = [sys.executable, "-c", APPLY, world.ws, "rita", world.june, str(revision), key]
    return subprocess.Popen(
        args, env=env(**extra), cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip


def release(*processes: subprocess.Popen[str]) -> None:
    """Lets the appliers apply, all at the same moment once every one of them is ready."""
    for process in processes:
        assert process.stdout is not None and process.stdin is not None
        line = process.stdout.readline()
        if line.strip() != "ready":
            process.kill()
            raise AssertionError(f"an applier did not start: {line!r} {process.communicate()[1]}")
    for process in processes:
        assert process.stdin is not None
        process.stdin.write("go\n")
        process.stdin.flush()


def run(world: World, revision: int, key: str, **extra: str) -> subprocess.Popen[str]:
    """One applier, started and released."""
    process = start(world, revision, key, **extra)
    release(process)
    return process


# How long a test waits for PostgreSQL to free the locks of a client that died.
LOCK_WAIT_SECONDS = 30


def wait_until_key_is_free(world: World, key: str) -> None:
    """Waits until no session holds the key's lock (at most LOCK_WAIT_SECONDS, else the lock timeout is raised).

    A killed applier's advisory lock is freed only when its PostgreSQL backend notices the
    connection is gone, a moment after the process died (longer on a loaded machine); until
    then recovery rightly counts its intent as busy.
    """
    number = intents._lock_number(world.trio.workspace.id, key)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT set_config('lock_timeout', %s, true)", [f"{LOCK_WAIT_SECONDS}s"])
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [number])


def outcome(process: subprocess.Popen[str]) -> dict[str, Any]:
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    return dict(json.loads(out.strip().splitlines()[-1]))


def invariants(world: World) -> None:
    """At most one correction of the claim; if applied, everything it promised is in place."""
    rows = graph.ro_query(
        world.trio.workspace,
        "MATCH (x:Correction)-[:CORRECTS]->(c:Claim {id: $id}) RETURN x.id, x.replacement_claim_id",
        {"id": world.june},
    )
    status = graph.ro_query(world.trio.workspace, "MATCH (c:Claim {id: $id}) RETURN c.status", {"id": world.june})[0][0]
    assert len(rows) <= 1
    if rows:
        replacement = graph.ro_query(
            world.trio.workspace,
            "MATCH (n:Claim {id: $id})-[:SUPERSEDES]->(o:Claim {id: $old}) RETURN n.status",
            {"id": rows[0][1], "old": world.june},
        )
        assert status == "superseded" and replacement == [["current"]]
    else:
        assert status == "current"
    pending = CorrectionIntent.objects.filter(state="pending").count()
    assert pending == 0


class ConcurrentApplyTests:
    def test_sixteen_processes_with_their_own_keys_exactly_one_applies(self, world: World) -> None:
        launch = world.decision("Launch in June", [world.june])
        revision = world.preview(world.june).json()["revision"]
        appliers = [start(world, revision, f"key-{n}") for n in range(16)]
        release(*appliers)
        results = [outcome(p) for p in appliers]
        applied = [r for r in results if r.get("status") == "applied"]
        assert len(applied) == 1, results
        # Every loser applied to a claim that another correction had already superseded: nothing it
        # depended on changed but that, so the answer names it (never stale_correction_preview).
        assert [r.get("error") for r in results if r not in applied] == ["claim_not_current"] * 15, results
        invariants(world)
        assert (
            api_for(world.trio.viewer).get(f"/workspaces/{world.ws}/decisions/{launch}").json()["status"]
            == "needs_review"
        )
        assert AuditEvent.objects.filter(verb="correction.applied").count() == 1

    def test_sixteen_processes_with_one_key_apply_once_and_the_rest_replay(self, world: World) -> None:
        revision = world.preview(world.june).json()["revision"]
        appliers = [start(world, revision, "same-key") for _ in range(16)]
        release(*appliers)
        results = [outcome(p) for p in appliers]
        assert sorted(str(r.get("status", r.get("error"))) for r in results) == ["already_applied"] * 15 + ["applied"]
        assert len({r["replacement"] for r in results}) == 1
        invariants(world)


class CrashRecoveryTests:
    @pytest.mark.parametrize(("step", "applied"), [("after_intent", False), ("after_graph", True)])
    def test_a_process_killed_between_intent_and_audit_is_recovered(
        self, world: World, step: str, applied: bool
    ) -> None:
        launch = world.decision("Launch in June", [world.june])
        revision = world.preview(world.june).json()["revision"]
        process = run(world, revision, "crash-key", AFTERHACK_FAULT_INJECTION=step)
        process.communicate(timeout=120)
        assert process.returncode == 86  # it died where we told it to
        intent = CorrectionIntent.objects.get(idempotency_key="crash-key")
        assert intent.state == "pending"
        wait_until_key_is_free(world, "crash-key")

        report = intents.recover()
        intent.refresh_from_db()
        assert (report.completed, report.failed) == ((1, 0) if applied else (0, 1))
        assert intent.state == ("applied" if applied else "failed")
        invariants(world)
        assert AuditEvent.objects.filter(verb="correction.applied").count() == (1 if applied else 0)
        expected = "needs_review" if applied else "supported"
        assert api_for(world.trio.viewer).get(f"/workspaces/{world.ws}/decisions/{launch}").json()["status"] == expected
        # The same request again finishes the job (or reports it done).
        again = outcome(run(world, revision, "crash-key"))
        assert again["status"] == ("already_applied" if applied else "applied")
        invariants(world)

    def test_recovery_skips_an_intent_that_is_being_applied(self, world: World) -> None:
        revision = world.preview(world.june).json()["revision"]
        CorrectionIntent.objects.create(
            workspace=world.trio.workspace, idempotency_key="in-flight", claim_id=world.june, statement="x", reason="r",
            revision=revision, actor=world.trio.reviewer, actor_name="rita",
        )  # fmt: skip
        number = intents._lock_number(world.trio.workspace.id, "in-flight")
        # An applier holding the key's lock until it is killed (it waits on its input, never on a clock).
        holder = subprocess.Popen(
            [sys.executable, "-c", f"import psycopg, sys; c = psycopg.connect(sys.argv[1], autocommit=True); c.execute('SELECT pg_advisory_lock({number})'); print('locked', flush=True); sys.stdin.read()", env()["DATABASE_URL"]],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
            assert intents.recover().busy == 1
            assert CorrectionIntent.objects.get(idempotency_key="in-flight").state == "pending"
        finally:
            holder.kill()
            holder.communicate()
        wait_until_key_is_free(world, "in-flight")
        assert intents.recover().failed == 1


class FenceTests:
    def test_a_write_still_on_its_way_after_recovery_gave_up_writes_nothing(self, world: World) -> None:
        from afterhack.clock import now_iso
        from corrections.graph import apply as apply_graph
        from corrections.graph import subgraph as subgraph_graph

        revision = world.preview(world.june).json()["revision"]
        process = run(world, revision, "slow-key", AFTERHACK_FAULT_INJECTION="after_intent")
        process.communicate(timeout=120)
        intent = CorrectionIntent.objects.get(idempotency_key="slow-key")
        wait_until_key_is_free(world, "slow-key")
        assert intents.recover().failed == 1
        # The original write arrives late: the fence stops it.
        late = apply_graph.correction_apply(
            workspace=world.trio.workspace, revision=subgraph_graph.workspace_revision(workspace=world.trio.workspace), claim_id=world.june, correction_id=str(intent.correction_id),
            fragment_id=str(intent.fragment_id), replacement_id=str(intent.replacement_claim_id), statement="July.",
            reason="late", actor="rita", idempotency_key="slow-key", affected={"claims_unsupported": [], "decisions_needing_review": [],
            "actions_held": [], "decisions_still_supported": []}, review_reason="", now=now_iso(),
        )  # fmt: skip
        assert late is False
        invariants(world)
        # The same request again applies it, under new ids.
        again = outcome(run(world, revision, "slow-key"))
        assert again["status"] == "applied" and again["replacement"] != str(intent.replacement_claim_id)
        invariants(world)
