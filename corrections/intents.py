"""The idempotency protocol of Apply in SQL, and recovery (corrections/services/apply.py says the steps).

A key's advisory lock with its pending intent in one statement; the intent's outcome with its audit event in one
statement; the thread pool that reads the graph while the intent is written (a forked child makes its own); and
recovery, which settles a pending intent whose applier is gone from what the graph shows. A crash after the intent
leaves it pending and no lock: nothing is ever half-applied in the graph."""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import connection, models, transaction
from django.utils import timezone

from afterhack.clock import now_iso
from claims.services.embeddings import embed_soon
from claims.signals import claims_became_current
from corrections.graph import apply as apply_graph
from corrections.models import CorrectionIntent, IntentState
from workspaces import registry
from workspaces.models import Tell, Workspace
from workspaces.services.audit import audit_event

logger = logging.getLogger("corrections")


def _lock_number(workspace_id: Any, key: str) -> int:
    """The advisory lock of one idempotency key of one workspace."""
    return int.from_bytes(hashlib.sha256(f"{workspace_id}:{key}".encode()).digest()[:8], "big", signed=True)


def _insert(instance: models.Model) -> tuple[str, list[Any]]:
    """`INSERT INTO table (columns) SELECT %s, …` of a new model instance, with the values Django's save would write
    (defaults, auto_now_add, JSON), for a statement that does more in the same round-trip; and those values."""
    fields = [f for f in instance._meta.concrete_fields if not f.primary_key]
    quote = connection.ops.quote_name
    columns = ", ".join(quote(f.column or f.name) for f in fields)
    values = [f.get_db_prep_save(f.pre_save(instance, add=True), connection) for f in fields]
    sql = f"INSERT INTO {quote(instance._meta.db_table)} ({columns}) SELECT {', '.join(['%s'] * len(fields))}"
    return sql, values


# The key's lock and the new intent in one statement (one round-trip, committed by itself: autocommit). The CTE takes
# the lock before the row is made; a waiter then finds the key taken even though its snapshot is older, since
# ON CONFLICT checks the unique index against what is committed. The key already had an intent: no row.
LOCK_AND_INSERT = (
    "WITH locked AS MATERIALIZED (SELECT pg_advisory_lock(%s)) {insert} FROM locked "
    "ON CONFLICT (workspace_id, idempotency_key) DO NOTHING RETURNING id"
)


@contextmanager
def key_lock(workspace: Workspace, key: str, intent: CorrectionIntent | None = None) -> Iterator[bool]:
    """A session-level advisory lock on (workspace, key): one applier per key at a time, freed by a crash.

    Given a new pending intent, it is inserted (and committed) in the statement that takes the lock, unless the key
    already has one; yields whether it was inserted (the intent then has its id)."""
    number = _lock_number(workspace.id, key)
    inserted = False
    try:
        with connection.cursor() as cursor:
            if intent is None:
                cursor.execute("SELECT pg_advisory_lock(%s)", [number])
            else:
                insert, values = _insert(intent)
                cursor.execute(LOCK_AND_INSERT.format(insert=insert), [number, *values])
                row = cursor.fetchone()
                if row is not None:
                    intent.pk, intent._state.adding, inserted = row[0], False, True
        yield inserted
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [number])


def crash_point(step: str) -> None:
    """Fault injection for the crash-recovery tests: AFTERHACK_FAULT_INJECTION=<step> kills the process here."""
    if step == settings.AFTERHACK_FAULT_INJECTION:
        os._exit(86)


# The threads that read the graph for an apply while its intent is written (each read is one blocking round-trip).
# A pool inherited across fork has no threads, so a forked child (a Celery or benchmark process) makes its own.
_READER = ThreadPoolExecutor(max_workers=4, thread_name_prefix="correction-read")


def _new_reader() -> None:
    global _READER
    _READER = ThreadPoolExecutor(max_workers=4, thread_name_prefix="correction-read")


os.register_at_fork(after_in_child=_new_reader)


def read_meanwhile[T](read: Callable[..., T], /, **kwargs: Any) -> Future[T]:
    """`read(**kwargs)` run by the pool, while this thread writes the intent."""
    return _READER.submit(read, **kwargs)


def refuse(intent: CorrectionIntent, why: str) -> None:
    intent.state, intent.error, intent.settled_at = IntentState.REFUSED, why, timezone.now()
    intent.save(update_fields=["state", "error", "settled_at"])


# The intent's outcome and its audit event in one statement (one round-trip, one transaction: autocommit), committed
# without waiting for the WAL's flush (synchronous_commit off for this transaction alone). This is safe because the
# intent was committed durably, pending, before the graph write, and the graph write is durable (AOF, fsync always):
# should the machine lose this commit (an OS crash within three wal_writer_delay; a crash of the process or of
# PostgreSQL loses nothing), the intent is pending again and recovery settles it from the graph, audit included.
# The event is told (its Tell row, the outbox of notifications and webhooks) from the same statement: a correction is
# told if and only if its outcome is recorded.
FINISH = (
    "WITH asynchronous AS MATERIALIZED (SELECT set_config('synchronous_commit', %s, true)), "
    "settled AS (UPDATE {intents} SET state = %s, affected = %s, settled_at = %s WHERE id = %s RETURNING id), "
    "recorded AS ({insert} FROM settled, asynchronous RETURNING id) "
    "INSERT INTO {tells} (event_id, created_at, failures) SELECT id, %s, 0 FROM recorded"
)


def finish(
    intent: CorrectionIntent,
    affected: dict[str, list[str]],
    cited: dict[str, Any] | None,
    *,
    recovered: bool,
    impact: dict[str, Any] | None = None,
) -> None:
    """Records the outcome and the audit event together; the event keeps the impact with its titles
    (`Preview.snapshot`) when the apply computed it (a recovered correction has only its ids)."""
    intent.state, intent.affected, intent.settled_at = IntentState.APPLIED, affected, timezone.now()
    # As workspaces.services.audit.record_event makes it, written with the outcome.
    event = audit_event(
        actor=intent.actor, workspace=intent.workspace, verb="correction.applied", target=intent.statement,
        payload={
            "claim_id": intent.claim_id, "correction_id": str(intent.correction_id),
            "replacement_claim_id": str(intent.replacement_claim_id), "statement": intent.statement,
            "reason": intent.reason, "revision": intent.revision, "affected": affected, "recovered": recovered,
            "evidence": cited, **({"impact": impact} if impact is not None else {}),
            **({"suggestion_id": intent.suggestion_id} if intent.suggestion_id else {}),
        },
    )  # fmt: skip
    insert, values = _insert(event)
    fields = {f.name: f for f in CorrectionIntent._meta.concrete_fields}
    outcome = [
        fields[name].get_db_prep_save(getattr(intent, name), connection) for name in ("state", "affected", "settled_at")
    ]
    quote = connection.ops.quote_name
    sql = FINISH.format(intents=quote(CorrectionIntent._meta.db_table), insert=insert, tells=quote(Tell._meta.db_table))
    with connection.cursor() as cursor:
        # Inside a caller's transaction, its commit is not this statement's to make asynchronous.
        commit = "on" if connection.in_atomic_block else "off"
        cursor.execute(sql, [commit, *outcome, intent.pk, *values, intent.settled_at])
    transaction.on_commit(registry.tell_soon)
    replacement = [str(intent.replacement_claim_id)]
    embed_soon(workspace=intent.workspace, claim_ids=replacement)
    # The replacement is a claim that became current, applied now or recovered: the contradiction watch looks at it.
    claims_became_current(workspace=intent.workspace, claim_ids=replacement)


# -- recovery --------------------------------------------------------------------------------------


def settle(intent: CorrectionIntent) -> str | None:
    """Settles a pending intent from what the graph shows (the caller holds its key lock); returns the
    state it set, or None when another worker settled it since it was listed (several may recover at once)."""
    intent.refresh_from_db()
    if intent.state != IntentState.PENDING:
        return None
    correction_id = str(intent.correction_id)
    fenced = apply_graph.correction_fence(workspace=intent.workspace, correction_id=correction_id, now=now_iso())
    written = (
        None if fenced else apply_graph.correction_written(workspace=intent.workspace, correction_id=correction_id)
    )
    if written is not None:
        finish(intent, written.affected, written.cited, recovered=True)
    else:
        intent.state, intent.settled_at = IntentState.FAILED, timezone.now()
        intent.error = "The process applying it stopped before the graph write; nothing was changed."
        intent.save(update_fields=["state", "error", "settled_at"])
    return intent.state


@dataclass(frozen=True)
class RecoveryReport:
    completed: int
    failed: int
    busy: int


def recover(*, workspace: Workspace | None = None) -> RecoveryReport:
    """Settles every pending intent whose applier is gone (its key lock is free); skips those in progress.

    Safe to run from several workers at once: an intent is settled under its key's lock, after reading
    its state again, so each is settled (and audited) once and counted only by the worker that settled it.
    """
    completed = failed = busy = 0
    pending = CorrectionIntent.objects.filter(state=IntentState.PENDING).select_related("workspace", "actor")
    if workspace is not None:
        pending = pending.filter(workspace=workspace)
    for intent in pending:
        number = _lock_number(intent.workspace_id, intent.idempotency_key)
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_try_advisory_lock(%s)", [number])
            (free,) = cursor.fetchone()
        if not free:
            busy += 1
            continue
        try:
            settled = settle(intent)
            completed += settled == IntentState.APPLIED
            failed += settled == IntentState.FAILED
        finally:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [number])
    if completed or failed:
        logger.warning("recovered corrections: %s completed, %s failed", completed, failed)
    return RecoveryReport(completed, failed, busy)
