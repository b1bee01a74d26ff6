"""Apply a correction atomically and idempotently: its input checked, its intent (corrections/intents.py: the
protocol in SQL and recovery), the graph write guarded by what the preview read, the replay of a key used before.

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
   WAL's flush: see FINISH in corrections/intents.py); then the lock is freed.
A crash after 1 leaves a pending intent and no lock: recovery asks the graph whether step 3
happened and settles the intent either way. Nothing is ever half-applied in the graph.
"""

from __future__ import annotations

import uuid
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction

from afterhack.clock import now_iso
from afterhack.errors import Conflict, UserError
from afterhack.ids import is_storable, parse_id, unstorable
from afterhack.text import MAX_REASON_CHARS
from claims.selectors import sources as sources_selectors
from claims.selectors.claims import CitedPassage
from claims.services.claims import ClaimNotFound, Passage, clean_statement, passage_find
from claims.statuses import SourceStatus
from claims.text import normalize
from corrections import intents
from corrections.graph import apply as apply_graph
from corrections.graph import subgraph as subgraph_graph
from corrections.models import CorrectionIntent, IntentState
from corrections.services import accept
from corrections.services.preview import ClaimNotCurrent, Preview, StalePreview, UnchangedStatement, preview
from corrections.services.refusals import ProposerCannotDecide, SuggestionNotOpen
from corrections.services.retry import WRITE_ATTEMPTS, pause
from corrections.statuses import ApplyStatus
from workspaces.models import Workspace
from workspaces.services.audit import actor_name

MAX_KEY_CHARS = 200
EVIDENCE_RULE = '“evidence” must be an object: {"source_id", "quote", "start"?}.'
REVISION_RULE = f"“revision” must be the whole number the preview returned (from 0 to {subgraph_graph.MAX_REVISION:,})."


@dataclass(frozen=True)
class Outcome:
    status: ApplyStatus
    correction_id: str
    replacement_claim_id: str
    affected: dict[str, list[str]]


def _clean_apply_input(reason: object, revision: object, idempotency_key: object) -> tuple[str, int, str]:
    if not isinstance(reason, str) or not reason.strip():
        raise UserError("Say why the claim is wrong: the reason is empty.")
    if (problem := unstorable(reason)) is not None:
        raise UserError(f"A reason cannot contain {problem}.")
    if len(reason) > MAX_REASON_CHARS:
        raise UserError(f"A reason must be plain text of at most {MAX_REASON_CHARS:,} characters.")
    # A number outside what any preview hands out is malformed, not stale: refused before anything is written.
    if isinstance(revision, bool) or not isinstance(revision, int) or not 0 <= revision <= subgraph_graph.MAX_REVISION:
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
    suggestion_id: object = None,
) -> Outcome:
    """Applies a correction previewed at `revision`, its replacement citing the evidence's passage too if
    one is given; the same idempotency key again answers already_applied. With `suggestion_id`, it accepts that
    open suggestion (of this claim, or by it: corrections/services/accept.py), citing its passage, and the
    suggestion becomes accepted in the same graph write; a suggestion the actor flagged (in person or through an
    agent with their token) is refused (403): another reviewer accepts it."""
    statement = clean_statement(statement)
    reason, revision, key = _clean_apply_input(reason, revision, idempotency_key)
    asked = clean_evidence(evidence)
    if parse_id(claim_id) is None:
        raise ClaimNotFound()
    accepted = None
    if suggestion_id is not None:
        accepted = accept.accepting(workspace=workspace, suggestion_id=suggestion_id, claim_id=claim_id)
        asked = _as_suggested(accepted, asked)
    fresh = _pending(CorrectionIntent(workspace=workspace, idempotency_key=key, claim_id=claim_id), statement, reason,
                     revision, actor, asked)  # fmt: skip
    fresh.suggestion_id = accepted.suggestion.id if accepted else ""
    # Without evidence to check first, the intent is written with the lock (the usual case: a new key), and the graph
    # is read meanwhile (a preview reads no PostgreSQL): the read waits neither for the lock nor for the intent's
    # commit. Read before either is safe: the write is refused if anything changed since the read.
    checked_first = asked is not None or accepted is not None
    read = (
        None
        if checked_first
        else intents.read_meanwhile(preview, workspace=workspace, claim_id=claim_id, statement=statement)
    )
    with intents.key_lock(workspace, key, None if checked_first else fresh) as inserted:
        if inserted:
            return _write(workspace, fresh, None, read)
        if read is not None:
            read.cancel()  # the key was used before: its read is not needed (if it has not started yet)
        intent = CorrectionIntent.objects.filter(workspace=workspace, idempotency_key=key).first()
        if intent is not None:
            _same_request_or_refuse(intent, claim_id, statement, reason, asked, fresh.suggestion_id)
            if intent.state == IntentState.PENDING:
                intents.settle(intent)
            if intent.state == IntentState.APPLIED:
                return _replay(workspace, intent)
        # Checked against the source as it is now, before anything is written (a refused quote leaves no intent).
        if accepted is not None:
            accept.require_open(workspace=workspace, suggestion_id=accepted.suggestion.id, by=actor_name(actor))
        passage = cited_passage(workspace=workspace, evidence=asked)
        intent = _start_intent(intent or fresh, statement, reason, revision, actor, asked)
        return _write(workspace, intent, passage)


class IdempotencyKeyReused(UserError):
    code = "idempotency_key_reused"


def _as_suggested(accepted: accept.Accepting, given: Evidence | None) -> Evidence | None:
    """The passage a correction accepting a suggestion cites: the suggestion's; a given one must be that passage."""
    expected = accepted.evidence
    if given is None:
        return Evidence(expected.source_id, expected.quote, expected.start) if expected else None
    if (
        expected is None
        or (given.source_id, given.quote) != (expected.source_id, expected.quote)
        or (given.start not in (None, expected.start))
    ):
        raise UserError(
            "“evidence” differs from the passage this suggestion cites; leave it out (the suggestion's passage is "
            "cited) or send that passage. Nothing was stored."
        )
    return Evidence(expected.source_id, expected.quote, expected.start)


def _same_request_or_refuse(
    intent: CorrectionIntent, claim_id: str, statement: str, reason: str, evidence: Evidence | None, suggestion_id: str
) -> None:
    """IdempotencyKeyReused, naming what differs, when the request is not the one the key was first used for.

    The revision is not compared: it is the preview the request was made at, not what it asks, and a request
    refused as stale is sent again with the same key at the revision of a new preview."""
    first = _intent_evidence(intent)
    same_evidence = first == evidence
    if suggestion_id and intent.suggestion_id == suggestion_id:
        # The suggestion's passage, taken as it is now: a new version of its source may have moved the quote since
        # the key was first used. The same quote of the same source is the same passage.
        same_evidence = _quoted(first) == _quoted(evidence)
    differs = [
        what
        for what, same in (
            ("claim", intent.claim_id == claim_id),
            ("statement", intent.statement == statement),
            ("reason", intent.reason == reason),
            ("evidence", same_evidence),
            ("suggestion", intent.suggestion_id == suggestion_id),
        )
        if not same
    ]
    if differs:
        listed = " and ".join(", ".join(differs).rsplit(", ", 1))
        raise IdempotencyKeyReused(
            f"This idempotency key was already used for a different correction (its {listed} "
            f"{'differs' if len(differs) == 1 else 'differ'}); use a new key."
        )


def _quoted(evidence: Evidence | None) -> tuple[str, str] | None:
    return (evidence.source_id, evidence.quote) if evidence else None


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
        pause(attempt)
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
            intents.refuse(intent, str(error))
            raise
        now = plan.fingerprint
        if plan.fingerprint != intent.revision:
            # The picture was read in one query, so it is never mixed: what the preview depended on changed.
            intents.refuse(intent, f"stale: previewed at {intent.revision}, now {plan.fingerprint}")
            raise StalePreview(plan.fingerprint)
        affected = plan.impact.as_json()
        intents.crash_point("after_intent")
        written = apply_graph.correction_apply(
            workspace=workspace, revision=plan.graph_revision, claim_id=intent.claim_id,
            correction_id=str(intent.correction_id), fragment_id=str(intent.fragment_id),
            replacement_id=str(intent.replacement_claim_id), statement=intent.statement, reason=intent.reason,
            actor=intent.actor_name, idempotency_key=intent.idempotency_key, affected=affected,
            review_reason=f"Lost its last support when a reviewer corrected “{plan.claim.statement}” to “{intent.statement}”.",
            now=now_iso(), cited=cited, suggestion_id=intent.suggestion_id or None,
        )  # fmt: skip
        if written:
            intents.crash_point("after_graph")
            intents.finish(intent, affected, cited.record() if cited else None, recovered=False, impact=plan.snapshot())
            return Outcome(ApplyStatus.APPLIED, str(intent.correction_id), str(intent.replacement_claim_id), affected)
        if passage is not None and not _still_citable(workspace, passage):
            intents.refuse(intent, "the cited source changed")
            raise CitedSourceChanged(passage.version.title)
        if intent.suggestion_id:
            try:
                accept.require_open(workspace=workspace, suggestion_id=intent.suggestion_id, by=intent.actor_name)
            except SuggestionNotOpen:
                intents.refuse(intent, "the suggestion is no longer open")
                raise
            except ProposerCannotDecide:
                intents.refuse(intent, "the suggestion was flagged by the reviewer applying it")
                raise
    intents.refuse(intent, "the workspace kept changing")
    raise StalePreview(now)


def _replay(workspace: Workspace, intent: CorrectionIntent) -> Outcome:
    """The earlier outcome of this key, after checking the graph still shows that correction."""
    written = apply_graph.correction_written(workspace=workspace, correction_id=str(intent.correction_id))
    if written is None:
        raise Conflict(
            "This correction is recorded as applied, but the graph does not show it; an administrator should run recover_corrections."
        )
    return Outcome(
        ApplyStatus.ALREADY_APPLIED, str(intent.correction_id), written.replacement_claim_id, written.affected
    )
