"""Corrections and evidence going away: preview what a correction would do, apply it atomically and
idempotently, recover after a crash; retract a source or add a version, with what that propagates.
(A reviewer's answer to a decision flagged by these is corrections/review.py.)

Apply, step by step (one graph read, one graph write, three PostgreSQL round-trips):
1. one statement takes an advisory lock on the idempotency key (held by this database session; a crash frees
   it) and inserts the intent row with the ids the correction will get, committed (a key that already has an
   intent reads it instead; with evidence, the lock comes alone and the passage the correction cites is checked
   against its source's current version before the intent, so a refused one writes nothing);
2. one graph read: the claim, what rests on it, their justifications, the actions and the revision counter (sent
   while step 1 waits for its commit when there is no evidence to check: a write is refused if anything moved);
3. one graph query that writes the whole correction, only if the revision is still the one
   the read saw, the claim is still current and a cited passage's version still the current one;
4. one statement: the intent's outcome and the audit event, in one transaction (its commit does not wait for the
   WAL's flush: see FINISH); then the lock is freed.
A crash after 1 leaves a pending intent and no lock: recovery asks the graph whether step 3
happened and settles the intent either way. Nothing is ever half-applied in the graph.
"""

from __future__ import annotations

import hashlib
import logging
import os
import random
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connection, models, transaction
from django.utils import timezone

from afterhack.clock import now_iso
from afterhack.errors import Conflict, UserError
from afterhack.holds import status_holds
from afterhack.ids import is_storable, parse_id, unstorable
from afterhack.text import MAX_REASON_CHARS
from claims.selectors import claims as claims_selectors
from claims.selectors import sources as sources_selectors
from claims.selectors.claims import CitedPassage, Claim
from claims.selectors.search import content_words
from claims.services.claims import ClaimNotFound, Passage, clean_statement, passage_find
from claims.services.embeddings import embed_soon
from claims.services.sources import active_version, cut_fragments, fragment_ids
from claims.statuses import ClaimStatus, SourceStatus
from claims.text import Span, clean_source_text, normalize, page_breaks_as_line_breaks, same_statement
from corrections import graph as corrections_graph
from corrections.models import CorrectionIntent, IntentState
from corrections.propagation import DECISION, Impact, impact
from corrections.statuses import ApplyStatus
from workspaces.models import Workspace
from workspaces.services import actor_name, audit_event, record_event

logger = logging.getLogger("corrections")

# A guarded write (an apply, a retraction, a new version) recomputes what it would do and tries
# again this many times when unrelated writes keep slipping in between, after a pause drawn at random up to
# RETRY_PAUSE_S doubled at each attempt (at most RETRY_PAUSE_CAP_S): writers that collided once do not collide again
# in step. 8 processes applying corrections to disjoint claims of one workspace at once had 87 of 480 refused after 5
# immediate attempts; with these pauses and attempts, 5 to 11 (docs/benchmarks.md, "Many appliers in one workspace").
WRITE_ATTEMPTS = 10
RETRY_PAUSE_S = 0.001
RETRY_PAUSE_CAP_S = 0.032


def _pause(attempt: int) -> None:
    """Before attempt `attempt` (from 0) of a guarded write: nothing before the first."""
    if attempt:
        _sleep(random.uniform(0, min(RETRY_PAUSE_CAP_S, RETRY_PAUSE_S * 2**attempt)))  # noqa: S311 - a jitter, not a secret


_sleep = time.sleep  # the tests count the pauses here

MAX_KEY_CHARS = 200
EVIDENCE_RULE = '“evidence” must be an object: {"source_id", "quote", "start"?}.'
REVISION_RULE = (
    f"“revision” must be the whole number the preview returned (from 0 to {corrections_graph.MAX_REVISION:,})."
)


class ClaimNotCurrent(Conflict):
    code = "claim_not_current"


class StalePreview(Conflict):
    code = "stale_correction_preview"

    def __init__(self, revision: int) -> None:
        super().__init__(
            "Something this correction depends on changed since the preview (a decision, action or claim "
            f"resting on it); preview it again (now revision {revision})."
        )
        self.extra = {"revision": revision}


@dataclass(frozen=True)
class Preview:
    claim: Claim
    # What the client sends back (the API's `revision`): a fingerprint of everything this correction depends on.
    fingerprint: int
    impact: Impact
    # The workspace graph's counter when it was read: the write's compare-and-set.
    graph_revision: int
    # The statement previewed, as it will be stored.
    statement: str = ""
    # Remaining supports of still-supported decisions that say what is being corrected.
    restating: list[str] = field(default_factory=list)
    # The titles (a claim's statement) of what the impact names, as read with it.
    titles: dict[str, str] = field(default_factory=dict)

    def snapshot(self) -> dict[str, Any]:
        """The impact as it stands now, with titles and what keeps each still-supported decision up: what the
        audit trail keeps, so the correction's page can show it as it was when applied, whatever happens later."""
        impact, titles = self.impact, self.titles

        def named(ids: list[str]) -> list[dict[str, str]]:
            return [{"id": i, "title": titles.get(i, "")} for i in ids]

        return {
            "decisions_needing_review": named(impact.decisions_needing_review),
            "decisions_still_supported": [
                {"id": i, "title": titles.get(i, ""), "by": named(impact.still_supported_by.get(i, []))}
                for i in impact.decisions_still_supported
            ],
            "actions_held": named(impact.actions_held),
            "claims_unsupported": named(impact.claims_unsupported),
            "restating": named(self.restating),
        }


@dataclass(frozen=True)
class Outcome:
    status: ApplyStatus
    correction_id: str
    replacement_claim_id: str
    affected: dict[str, list[str]]


def _not_current(status: str) -> ClaimNotCurrent:
    return ClaimNotCurrent(f"This claim is already {status}; only a current claim can be corrected.")


class UnchangedStatement(UserError):
    def __init__(self) -> None:
        super().__init__(
            "The corrected statement says the same as the claim: change what is wrong in it (a correction "
            "replaces the claim and flags what rests on it, so it must say something else)."
        )


def preview(*, workspace: Workspace, claim_id: str, statement: object) -> Preview:
    """Exactly what applying the correction would do now, and the revision (fingerprint) it depends on.

    One graph read: the claim, what rests on it, their justifications, the actions and the workspace's counter,
    in one query, so the picture is never mixed (a single query is atomic)."""
    statement = clean_statement(statement)
    read = corrections_graph.correction_picture(workspace=workspace, claim_id=claim_id)
    if read is None:
        raise ClaimNotFound()
    claim, sub = read
    if claim.status != ClaimStatus.CURRENT:
        raise _not_current(claim.status)
    # Case, spacing and a final full stop do not make another statement (the page starts with the claim's own).
    if same_statement(statement) == same_statement(claim.statement):
        raise UnchangedStatement()
    policy = workspace.independent_sources
    result = impact(sub.nodes, sub.actions, roots=[claim.id], independent_sources=policy)
    fingerprint = sub.fingerprint(independent_sources=policy, statement=statement)
    flagged = restating(sub, result, corrected=claim, new=statement)
    return Preview(claim, fingerprint, result, sub.revision, statement, flagged, sub.titles)


def removed_words(old: str, new: str) -> set[str]:
    """The content words of the old statement that the new one lacks (case-insensitive, stop words ignored)."""
    return set(content_words(old)) - set(content_words(new))


def restating(sub: corrections_graph.Subgraph, result: Impact, *, corrected: Claim, new: str) -> list[str]:
    """Current claims among the remaining supports of still-supported decisions that say what the correction removes.

    "June" → "July" flags "Northwind expects the launch in June": the decision it holds up may
    be right (the customer was told June), but a reviewer has to be shown it. Judged on the statuses and
    statements read with the subgraph (a claim's title is its statement): no other read.
    """
    removed = removed_words(corrected.statement, new)
    if not removed:
        return []
    return sorted(
        {
            antecedent
            for decision_id in result.decisions_still_supported
            for justification in sub.nodes[decision_id].justifications
            for antecedent in justification
            if (node := sub.nodes.get(antecedent)) is not None
            and node.kind != DECISION
            and node.status == ClaimStatus.CURRENT
            and antecedent != corrected.id
            and removed & set(content_words(sub.titles.get(antecedent, "")))
        }
    )


# -- apply ----------------------------------------------------------------------------------------


def _clean_apply_input(reason: object, revision: object, idempotency_key: object) -> tuple[str, int, str]:
    if not isinstance(reason, str) or not reason.strip():
        raise UserError("Say why the claim is wrong: the reason is empty.")
    if (problem := unstorable(reason)) is not None:
        raise UserError(f"A reason cannot contain {problem}.")
    if len(reason) > MAX_REASON_CHARS:
        raise UserError(f"A reason must be plain text of at most {MAX_REASON_CHARS:,} characters.")
    # A number outside what any preview hands out is malformed, not stale: refused before anything is written.
    if (
        isinstance(revision, bool)
        or not isinstance(revision, int)
        or not 0 <= revision <= corrections_graph.MAX_REVISION
    ):
        raise UserError(REVISION_RULE)
    if not isinstance(idempotency_key, str) or not idempotency_key.strip() or len(idempotency_key) > MAX_KEY_CHARS:
        raise UserError(f"“idempotency_key” must be a non-empty string of at most {MAX_KEY_CHARS} characters.")
    if (problem := unstorable(idempotency_key)) is not None:
        raise UserError(f"“idempotency_key” cannot contain {problem}.")
    return " ".join(reason.split()), revision, idempotency_key


@dataclass(frozen=True)
class Evidence:
    """The passage an Apply asks the replacement to cite as well, as it was sent (the quote's line endings normalised)."""

    source_id: str
    quote: str
    start: int | None = None


def clean_evidence(evidence: object) -> Evidence | None:
    """The evidence an Apply sent, or None; UserError for a shape that cannot be a passage (its quote is checked later)."""
    if evidence is None:
        return None
    if not isinstance(evidence, dict):
        raise UserError(EVIDENCE_RULE)
    source_id, quote, start = evidence.get("source_id"), evidence.get("quote"), evidence.get("start")
    if not isinstance(source_id, str) or not source_id:
        raise UserError("“evidence.source_id” must be the id of a source of this workspace.")
    # Line endings and page breaks normalised as the source's were, so the quote can be compared with its text.
    quote = normalize(quote) if isinstance(quote, str) else None
    if quote is None or not is_storable(quote):
        raise UserError("“evidence.quote” must be the passage, as text, exactly as it is in the source.")
    if start is not None and (isinstance(start, bool) or not isinstance(start, int)):
        raise UserError("“evidence.start” must be a whole number: the offset where the passage begins.")
    return Evidence(parse_id(source_id) or source_id, quote, start)


def cited_passage(*, workspace: Workspace, evidence: Evidence | None) -> Passage | None:
    """Where the evidence's quote is in its source's current version, checked as a claim's quote is (rule 1)."""
    if evidence is None:
        return None
    return passage_find(workspace=workspace, source_id=evidence.source_id, quote=evidence.quote, start=evidence.start)


def _intent_evidence(intent: CorrectionIntent) -> Evidence | None:
    if not intent.evidence_source_id:
        return None
    return Evidence(intent.evidence_source_id, intent.evidence_quote, intent.evidence_start)


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
def _key_lock(workspace: Workspace, key: str, intent: CorrectionIntent | None = None) -> Iterator[bool]:
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


def _crash_point(step: str) -> None:
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


def apply(
    *,
    workspace: Workspace,
    claim_id: str,
    statement: object,
    reason: object,
    revision: object,
    idempotency_key: object,
    actor: Any,
    evidence: object = None,
) -> Outcome:
    """Applies a correction previewed at `revision`, its replacement citing the evidence's passage too if
    one is given; the same idempotency key again answers already_applied."""
    statement = clean_statement(statement)
    reason, revision, key = _clean_apply_input(reason, revision, idempotency_key)
    asked = clean_evidence(evidence)
    if parse_id(claim_id) is None:
        raise ClaimNotFound()
    fresh = _pending(CorrectionIntent(workspace=workspace, idempotency_key=key, claim_id=claim_id), statement, reason,
                     revision, actor, asked)  # fmt: skip
    # Without evidence to check first, the intent is written with the lock (the usual case: a new key), and the graph
    # is read meanwhile (a preview reads no PostgreSQL): the read waits neither for the lock nor for the intent's
    # commit. Read before either is safe: the write is refused if anything changed since the read.
    read = (
        _READER.submit(preview, workspace=workspace, claim_id=claim_id, statement=statement) if asked is None else None
    )
    with _key_lock(workspace, key, fresh if asked is None else None) as inserted:
        if inserted:
            return _write(workspace, fresh, None, read)
        if read is not None:
            read.cancel()  # the key was used before: its read is not needed (if it has not started yet)
        intent = CorrectionIntent.objects.filter(workspace=workspace, idempotency_key=key).first()
        if intent is not None:
            _same_request_or_refuse(intent, claim_id, statement, reason, asked)
            if intent.state == IntentState.PENDING:
                _settle(intent)
            if intent.state == IntentState.APPLIED:
                return _replay(workspace, intent)
        # Checked against the source as it is now, before anything is written (a refused quote leaves no intent).
        passage = cited_passage(workspace=workspace, evidence=asked)
        intent = _start_intent(intent or fresh, statement, reason, revision, actor, asked)
        return _write(workspace, intent, passage)


class IdempotencyKeyReused(UserError):
    code = "idempotency_key_reused"


def _same_request_or_refuse(
    intent: CorrectionIntent, claim_id: str, statement: str, reason: str, evidence: Evidence | None
) -> None:
    """IdempotencyKeyReused, naming what differs, when the request is not the one the key was first used for.

    The revision is not compared: it is the preview the request was made at, not what it asks, and a request
    refused as stale is sent again with the same key at the revision of a new preview."""
    differs = [
        what
        for what, same in (
            ("claim", intent.claim_id == claim_id),
            ("statement", intent.statement == statement),
            ("reason", intent.reason == reason),
            ("evidence", _intent_evidence(intent) == evidence),
        )
        if not same
    ]
    if differs:
        listed = " and ".join(", ".join(differs).rsplit(", ", 1))
        raise IdempotencyKeyReused(
            f"This idempotency key was already used for a different correction (its {listed} "
            f"{'differs' if len(differs) == 1 else 'differ'}); use a new key."
        )


def _pending(
    intent: CorrectionIntent, statement: str, reason: str, revision: int, actor: Any, evidence: Evidence | None
) -> CorrectionIntent:
    """The intent as a pending request of this correction (not saved)."""
    intent.statement, intent.reason, intent.revision = statement, reason, revision
    intent.evidence_source_id = evidence.source_id if evidence else ""
    intent.evidence_quote = evidence.quote if evidence else ""
    intent.evidence_start = evidence.start if evidence else None
    intent.actor = actor if getattr(actor, "is_authenticated", False) else None
    intent.actor_name = actor_name(actor)
    intent.state, intent.error, intent.settled_at = IntentState.PENDING, "", None
    return intent


def _start_intent(
    intent: CorrectionIntent, statement: str, reason: str, revision: int, actor: Any, evidence: Evidence | None
) -> CorrectionIntent:
    """The pending intent row, committed before any graph write (a refused or failed one is retried)."""
    if intent.pk is not None:
        # A refused or failed attempt may have had its ids fenced: a new attempt gets new ones.
        intent.correction_id, intent.replacement_claim_id, intent.fragment_id = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    _pending(intent, statement, reason, revision, actor, evidence)
    try:
        with transaction.atomic():
            intent.save()
    except IntegrityError:
        raise Conflict("Another request with this idempotency key is being applied; try again.") from None
    return intent


class CitedSourceChanged(Conflict):
    def __init__(self, title: str) -> None:
        super().__init__(
            f"The source “{title}” changed (a new version, or it was retracted) while this correction was being "
            "applied, so nothing was written. Apply again: the passage is checked against the source as it is now."
        )


def _cited(passage: Passage | None) -> CitedPassage | None:
    if passage is None:
        return None
    version, span = passage.version, passage.span
    return CitedPassage(
        version.source_id, version.id, version.version, passage.quote, span.start, span.end, passage.fragments
    )


def _still_citable(workspace: Workspace, passage: Passage) -> bool:
    """Whether the passage's version is still the current version of an active source."""
    now = sources_selectors.source_get(workspace=workspace, source_id=passage.version.source_id)
    return now is not None and now.id == passage.version.id and now.status == SourceStatus.ACTIVE


def _write(
    workspace: Workspace, intent: CorrectionIntent, passage: Passage | None, read: Future[Preview] | None = None
) -> Outcome:
    """Recomputes the preview (or takes `read`, one made since the request came); if what it depends on is
    unchanged, writes it in one query.

    One graph read (the preview's) and one graph write. The write is guarded by the workspace's counter as read with
    the preview; if an unrelated write slipped in between, the preview is simply computed again. A cited passage
    is written only if its version is still current when the query runs.
    """
    now = intent.revision
    cited = _cited(passage)
    for attempt in range(WRITE_ATTEMPTS):
        _pause(attempt)
        try:
            if attempt == 0 and read is not None:
                # Bounded, so that a read that never runs cannot hold the key's lock for ever: then read here.
                try:
                    plan = read.result(timeout=settings.GRAPH_READ_TIMEOUT_MS / 1000 + 5)
                except TimeoutError:
                    plan = preview(workspace=workspace, claim_id=intent.claim_id, statement=intent.statement)
            else:
                plan = preview(workspace=workspace, claim_id=intent.claim_id, statement=intent.statement)
        except (ClaimNotCurrent, ClaimNotFound, UnchangedStatement) as error:
            _refuse(intent, str(error))
            raise
        now = plan.fingerprint
        if plan.fingerprint != intent.revision:
            # The picture was read in one query, so it is never mixed: what the preview depended on changed.
            _refuse(intent, f"stale: previewed at {intent.revision}, now {plan.fingerprint}")
            raise StalePreview(plan.fingerprint)
        affected = plan.impact.as_json()
        _crash_point("after_intent")
        written = corrections_graph.correction_apply(
            workspace=workspace, revision=plan.graph_revision, claim_id=intent.claim_id,
            correction_id=str(intent.correction_id), fragment_id=str(intent.fragment_id),
            replacement_id=str(intent.replacement_claim_id), statement=intent.statement, reason=intent.reason,
            actor=intent.actor_name, idempotency_key=intent.idempotency_key, affected=affected,
            review_reason=f"Lost its last support when a reviewer corrected “{plan.claim.statement}” to “{intent.statement}”.",
            now=now_iso(), cited=cited,
        )  # fmt: skip
        if written:
            _crash_point("after_graph")
            _finish(intent, affected, cited.record() if cited else None, recovered=False, impact=plan.snapshot())
            return Outcome(ApplyStatus.APPLIED, str(intent.correction_id), str(intent.replacement_claim_id), affected)
        if passage is not None and not _still_citable(workspace, passage):
            _refuse(intent, "the cited source changed")
            raise CitedSourceChanged(passage.version.title)
    _refuse(intent, "the workspace kept changing")
    raise StalePreview(now)


def _refuse(intent: CorrectionIntent, why: str) -> None:
    intent.state, intent.error, intent.settled_at = IntentState.REFUSED, why, timezone.now()
    intent.save(update_fields=["state", "error", "settled_at"])


# The intent's outcome and its audit event in one statement (one round-trip, one transaction: autocommit), committed
# without waiting for the WAL's flush (synchronous_commit off for this transaction alone). This is safe because the
# intent was committed durably, pending, before the graph write, and the graph write is durable (AOF, fsync always):
# should the machine lose this commit (an OS crash within three wal_writer_delay; a crash of the process or of
# PostgreSQL loses nothing), the intent is pending again and recovery settles it from the graph, audit included.
FINISH = (
    "WITH asynchronous AS MATERIALIZED (SELECT set_config('synchronous_commit', %s, true)), "
    "settled AS (UPDATE {intents} SET state = %s, affected = %s, settled_at = %s WHERE id = %s RETURNING id) "
    "{insert} FROM settled, asynchronous"
)


def _finish(
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
    # As workspaces.services.record_event makes it, written with the outcome.
    event = audit_event(
        actor=intent.actor, workspace=intent.workspace, verb="correction.applied", target=intent.statement,
        payload={
            "claim_id": intent.claim_id, "correction_id": str(intent.correction_id),
            "replacement_claim_id": str(intent.replacement_claim_id), "statement": intent.statement,
            "reason": intent.reason, "revision": intent.revision, "affected": affected, "recovered": recovered,
            "evidence": cited, **({"impact": impact} if impact is not None else {}),
        },
    )  # fmt: skip
    insert, values = _insert(event)
    fields = {f.name: f for f in CorrectionIntent._meta.concrete_fields}
    outcome = [
        fields[name].get_db_prep_save(getattr(intent, name), connection) for name in ("state", "affected", "settled_at")
    ]
    sql = FINISH.format(intents=connection.ops.quote_name(CorrectionIntent._meta.db_table), insert=insert)
    with connection.cursor() as cursor:
        # Inside a caller's transaction, its commit is not this statement's to make asynchronous.
        commit = "on" if connection.in_atomic_block else "off"
        cursor.execute(sql, [commit, *outcome, intent.pk, *values])
    embed_soon(workspace=intent.workspace, claim_ids=[str(intent.replacement_claim_id)])


def _replay(workspace: Workspace, intent: CorrectionIntent) -> Outcome:
    """The earlier outcome of this key, after checking the graph still shows that correction."""
    written = corrections_graph.correction_written(workspace=workspace, correction_id=str(intent.correction_id))
    if written is None:
        raise Conflict(
            "This correction is recorded as applied, but the graph does not show it; an administrator should run recover_corrections."
        )
    return Outcome(
        ApplyStatus.ALREADY_APPLIED, str(intent.correction_id), written.replacement_claim_id, written.affected
    )


# -- recovery --------------------------------------------------------------------------------------


def _settle(intent: CorrectionIntent) -> str | None:
    """Settles a pending intent from what the graph shows (the caller holds its key lock); returns the
    state it set, or None when another worker settled it since it was listed (several may recover at once)."""
    intent.refresh_from_db()
    if intent.state != IntentState.PENDING:
        return None
    correction_id = str(intent.correction_id)
    fenced = corrections_graph.correction_fence(workspace=intent.workspace, correction_id=correction_id, now=now_iso())
    written = (
        None
        if fenced
        else corrections_graph.correction_written(workspace=intent.workspace, correction_id=correction_id)
    )
    if written is not None:
        _finish(intent, written.affected, written.cited, recovered=True)
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
            settled = _settle(intent)
            completed += settled == IntentState.APPLIED
            failed += settled == IntentState.FAILED
        finally:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [number])
    if completed or failed:
        logger.warning("recovered corrections: %s completed, %s failed", completed, failed)
    return RecoveryReport(completed, failed, busy)


# -- evidence that goes away -------------------------------------------------------------------------


@dataclass(frozen=True)
class EvidenceChange:
    """What retracting a source or adding a version did."""

    retracted: list[str]
    moved: int
    affected: dict[str, list[str]]
    version: int | None = None


def _impact_of(workspace: Workspace, roots: list[str], revision: int) -> tuple[int, dict[str, list[str]]]:
    """The impact of the roots going away, read at `revision` (read before the roots were)."""
    sub = corrections_graph.subgraph(workspace=workspace, roots=roots, revision=revision)
    if not roots:
        return sub.revision, {
            "decisions_needing_review": [],
            "decisions_still_supported": [],
            "actions_held": [],
            "claims_unsupported": [],
        }
    # The independent-source policy is about alternatives to one corrected claim; here whole
    # versions go away (or move), so every justification is judged as it is.
    result = impact(sub.nodes, sub.actions, roots=roots)
    return sub.revision, result.as_json()


def source_retract(*, workspace: Workspace, source_id: str, actor: Any) -> EvidenceChange:
    """Retracts a source: its current claims are retracted and what rested on them propagated, in one graph write."""
    for attempt in range(WRITE_ATTEMPTS):
        _pause(attempt)
        # The revision first: a claim added after it makes the write below stale, never missed.
        revision = corrections_graph.workspace_revision(workspace=workspace)
        version = active_version(workspace, source_id)
        roots = [
            s.id
            for s in sources_selectors.version_claim_spans(workspace=workspace, version_id=version.id)
            if status_holds(decision=False, status=s.status)
        ]
        revision, affected = _impact_of(workspace, roots, revision)
        written = corrections_graph.source_retract(
            workspace=workspace, revision=revision, source_id=version.source_id, retracted=roots, affected=affected,
            review_reason=f"Lost its last support when the source “{version.title}” was retracted.",
            actor=actor_name(actor), now=now_iso(),
        )  # fmt: skip
        if written:
            record_event(actor=actor, workspace=workspace, verb="source.retracted", target=version.title,
                         payload={"source_id": version.source_id, "retracted": roots, "affected": affected})  # fmt: skip
            return EvidenceChange(roots, 0, affected)
    raise Conflict("The workspace kept changing while retracting; try again.")


def _nearest(text: str, quote: str, near: int) -> int:
    """The start of the occurrence of `quote` in `text` closest to `near`, or -1."""
    best, at = -1, text.find(quote)
    while at != -1:
        if best == -1 or abs(at - near) < abs(best - near):
            best = at
        at = text.find(quote, at + 1)
    return best


def source_new_version(*, workspace: Workspace, source_id: str, text: object, actor: Any) -> EvidenceChange:
    """Adds a version: every current claim's quote is checked against the new text; found ones move, the rest are retracted."""
    new_text = clean_source_text(text)
    sha256 = hashlib.sha256(new_text.encode()).hexdigest()
    shapes = cut_fragments(new_text)
    fragments: list[dict[str, Any]] = [{"id": f.id, "start": f.start, "end": f.end, "text": f.text} for f in shapes]
    for attempt in range(WRITE_ATTEMPTS):
        _pause(attempt)
        revision = corrections_graph.workspace_revision(workspace=workspace)
        old = active_version(workspace, source_id)
        if old.sha256 == sha256:
            raise UserError("This text is the same as the current version; nothing to add.")
        claims = claims_selectors.claims_by_ids(
            workspace=workspace,
            claim_ids=[
                s.id
                for s in sources_selectors.version_claim_spans(workspace=workspace, version_id=old.id)
                if status_holds(decision=False, status=s.status)
            ],
        )
        moved, vanished = [], []
        for claim in claims:
            # The new text's page breaks are line breaks; a quote of a text stored before they were is looked
            # for with its own read alike (one character for one: its length, so its span, is the same).
            quote = page_breaks_as_line_breaks(claim.evidence_quote or "")
            at = _nearest(new_text, quote, claim.start or 0) if quote else -1
            if at == -1:
                vanished.append(claim.id)
                continue
            span = Span(at, at + len(quote))
            moved.append(
                {
                    "id": claim.id,
                    "start": span.start,
                    "end": span.end,
                    "from_version": old.id,
                    "fragment_ids": fragment_ids(shapes, span),
                }
            )
        revision, affected = _impact_of(workspace, vanished, revision)
        version_id = str(uuid.uuid4())
        written = corrections_graph.source_new_version(
            workspace=workspace, revision=revision, source_id=old.source_id, old_version_id=old.id, version_id=version_id,
            text=new_text, sha256=sha256, fragments=fragments, moved=moved, retracted=vanished, affected=affected,
            review_reason=f"Lost its last support: its quote is no longer in version {old.version + 1} of “{old.title}”.",
            actor=actor_name(actor), now=now_iso(),
        )  # fmt: skip
        if written:
            record_event(actor=actor, workspace=workspace, verb="source.versioned", target=old.title,
                         payload={"source_id": old.source_id, "version": old.version + 1, "moved": len(moved),
                                  "retracted": vanished, "affected": affected})  # fmt: skip
            return EvidenceChange(vanished, len(moved), affected, old.version + 1)
    raise Conflict("The workspace kept changing while adding the version; try again.")
