"""The contradiction watch: each claim that becomes current is compared with the current claims the app's claim
search finds for its statement (fulltext, plus meaning when an embeddings model is configured), and each pair the
offline rule judges contradictory is recorded as an open suggestion to correct the OLDER claim with what the new one
says (corrections/graph/suggestions.py). It runs in the worker: queued once the write that made the claims current
commits (`claims_current_received`, connected in corrections/apps.py), or there and then when the sender is already
the worker (an extraction). With a model configured, the pairs the rule leaves undecided are judged by the model
afterwards, all of one watch run in batches (docs/model.md, Contradiction judgement). Nothing is ever corrected by
it: a reviewer decides.

A watch is never lost: a run marks the claims it watched (`watched_at`, corrections/graph/watch.py) once it is done,
a broker that cannot take the task is logged and the write still answers, and a sweep every minute (`watches_sweep`)
watches the current claims of the last day that have no mark (docs/suggestions.md, "When the watch runs")."""

from __future__ import annotations

import hashlib
import logging
import uuid
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any

from django.db import connection, transaction
from kombu.exceptions import OperationalError as KombuOperationalError

from afterhack import llm
from afterhack.clock import epoch_ms, now_iso
from claims.selectors.search import SearchHit, claims_alike, content_words
from claims.services import embeddings as embeddings_services
from claims.statuses import ClaimStatus
from corrections.contradiction.frames import Analysis, analyse, stem
from corrections.contradiction.rule import Judgement, Outcome, judge_analysed
from corrections.graph import suggestions as suggestions_graph
from corrections.graph import watch as watch_graph
from corrections.statuses import FoundBy
from workspaces.models import Workspace
from workspaces.services.audit import record_event

logger = logging.getLogger("corrections")

# How many current claims a new claim is compared with, and how many of the search's best it looks among for them
# (the search ranks current claims first among equals, and finds claims of every status).
WATCH_CANDIDATES = 20
SEARCHED = 3 * WATCH_CANDIDATES
# With a model configured: how many of a claim's candidates the rule left undecided are sent to the model (the best
# by the search), and the reason a `contradicts` without one is stored with.
MODEL_PAIRS_PER_CLAIM = 5
MODEL_REASON = "The model judged that the newer statement contradicts the older one."
# The sweep (`watches_sweep`) watches the claims that became current at least SWEEP_GRACE ago (their queued watch has
# had time to run) and at most SWEEP_WINDOW ago, SWEEP_BATCH a workspace a run: docs/suggestions.md, "When the watch
# runs", says why a day.
SWEEP_GRACE = timedelta(minutes=2)
SWEEP_WINDOW = timedelta(hours=24)
SWEEP_BATCH = 50
# The PostgreSQL advisory lock one sweep holds while it runs ("contradiction watch sweep", as a number).
SWEEP_LOCK = int.from_bytes(hashlib.sha256(b"corrections.watches_sweep").digest()[:8], "big", signed=True)


# A statement's analysis, kept for the statements the watch saw last: the same claims are candidates again and again.
# (benchmarks/watch.py reads how often it answers, and empties it for its cold figure.)
analysed = lru_cache(maxsize=4_096)(analyse)


def _judge(candidate: str, new: Analysis) -> Judgement:
    """The one place the watch asks whether two statements contradict each other (the offline rule; the new
    claim's statement is analysed once for all its candidates)."""
    return judge_analysed(analysed(candidate), new)


def subject_words(statement: str, analysis: Analysis) -> list[str]:
    """The statement's words that name what it is about: those in both of the rule's frames (so neither a value, nor
    a filler word, nor a verb the rule reads as a state, "approved" / "rejected"). The rule can find a contradiction
    only between statements of the same frame, so only between claims having all of these words."""
    about = set(analysis.frame) & set(analysis.light)
    return [word for word in content_words(statement) if stem(word) in about]


def candidates(
    *,
    workspace: Workspace,
    statement: str,
    kin: set[str],
    analysis: Analysis | None = None,
    claim_id: str | None = None,
) -> list[SearchHit]:
    """The current claims the search finds most like the statement, best first, at most WATCH_CANDIDATES, none of
    `kin` (the claim itself and those it supersedes, is superseded by, or is derived from or into): those having all
    its subject words (`subject_words`); with a model configured, filled up with those having any of its words (the
    model judges more than the rule); with an embeddings model, fused with those nearest its meaning (`claim_id`'s
    own vector: the claim is embedded first if its embedding task has not run yet, and then not again)."""
    subject = subject_words(statement, analysis or analysed(statement))
    if claim_id is not None and llm.embedding_configured():
        try:
            embeddings_services.claims_embed(workspace=workspace, claim_ids=[claim_id])
        except llm.EmbeddingError as error:
            logger.warning("The watch searches by words only: the new claim could not be embedded (%s)", error)
    found = claims_alike(
        workspace=workspace, statement=statement, candidates=SEARCHED, subject=subject, broad=llm.is_configured(),
        claim_id=claim_id,
    )  # fmt: skip
    hits = [hit for hit in found if hit.status == ClaimStatus.CURRENT and hit.id not in kin]
    return hits[:WATCH_CANDIDATES]


@dataclass
class WatchReport:
    """What one watch run did: suggestions stored (by the rule, by the model), and the model's calls, tokens and
    failures (each logged; the rule's suggestions are stored before the model is asked)."""

    claims: int = 0
    by_rule: int = 0
    by_model: int = 0
    model_pairs: int = 0
    model_calls: int = 0
    model_failures: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    stored: list[str] = field(default_factory=list)
    # Each stored suggestion with the claim it would correct and the newer claim: what the audit event tells.
    found: list[dict[str, str]] = field(default_factory=list)

    def add(self, suggestion_id: str, *, claim_id: str, by_claim_id: str) -> None:
        self.stored.append(suggestion_id)
        self.found.append({"suggestion_id": suggestion_id, "claim_id": claim_id, "by_claim_id": by_claim_id})

    def as_dict(self) -> dict[str, int]:
        return {name: value for name, value in asdict(self).items() if isinstance(value, int)}


@dataclass(frozen=True)
class Pending:
    """A pair the rule left undecided, for the model: the older (candidate) claim and the newer (watched) one."""

    claim_id: str
    statement: str
    by_claim_id: str
    by_statement: str

    def stated(self, quotes: dict[str, str | None]) -> tuple[llm.Stated, llm.Stated]:
        """The pair as the model is sent it, older first, each statement with its quote (from `quotes`, by id)."""
        return (
            llm.Stated(self.statement, quotes.get(self.claim_id)),
            llm.Stated(self.by_statement, quotes.get(self.by_claim_id)),
        )


def _record(workspace: Workspace, *, claim_id: str, by_claim_id: str, found_by: FoundBy, reason: str,
            rule_kind: str | None) -> str | None:  # fmt: skip
    suggestion_id = str(uuid.uuid4())
    stored = suggestions_graph.contradiction_record(
        workspace=workspace, suggestion_id=suggestion_id, claim_id=claim_id, by_claim_id=by_claim_id,
        found_by=found_by, reason=reason, rule_kind=rule_kind, now=now_iso(),
    )  # fmt: skip
    return suggestion_id if stored else None


def claim_watch(*, workspace: Workspace, claim_id: str, report: WatchReport | None = None) -> list[Pending]:
    """Compares one claim (if it is current) with its candidates and stores each contradiction the rule finds (in
    `report`); returns the pairs the rule left undecided, at most MODEL_PAIRS_PER_CLAIM, best candidates first."""
    report = report if report is not None else WatchReport()
    read = suggestions_graph.claim_kin(workspace=workspace, claim_id=claim_id)
    if read is None or read.status != ClaimStatus.CURRENT:
        return []
    report.claims += 1
    undecided: list[Pending] = []
    new = analysed(read.statement)
    for hit in candidates(workspace=workspace, statement=read.statement, kin=read.kin, analysis=new, claim_id=claim_id):
        judgement = _judge(hit.statement, new)
        if judgement.outcome == Outcome.UNDECIDED:
            if len(undecided) < MODEL_PAIRS_PER_CLAIM:
                undecided.append(Pending(hit.id, hit.statement, claim_id, read.statement))
            continue
        if judgement.outcome != Outcome.CONTRADICTS:
            continue
        kind = str(judgement.kind) if judgement.kind else None
        stored = _record(workspace, claim_id=hit.id, by_claim_id=claim_id, found_by=FoundBy.RULE,
                         reason=judgement.reason, rule_kind=kind)  # fmt: skip
        if stored:
            report.by_rule += 1
            report.add(stored, claim_id=hit.id, by_claim_id=claim_id)
    return undecided


def _model_judge(*, workspace: Workspace, pending: list[Pending], report: WatchReport) -> None:
    """The model's judgement of the pairs the rule left undecided (all of one watch run, JUDGE_BATCH a call, each
    statement with its quote, the quotes read at once): each `contradicts` stored as a suggestion found by the model,
    with its reason. Pairs that already have a suggestion (in any status) are not sent. A failed call (an answer
    without its `judgements` list included) is logged, counted, and ends the model's part of this run: what the rule
    found is already stored."""
    unique = {suggestions_graph.pair_key(p.claim_id, p.by_claim_id): p for p in reversed(pending)}
    known = suggestions_graph.pair_keys_known(workspace=workspace, keys=list(unique))
    pairs = [pair for key, pair in reversed(unique.items()) if key not in known]
    ids = list(dict.fromkeys(claim_id for pair in pairs for claim_id in (pair.claim_id, pair.by_claim_id)))
    quotes = suggestions_graph.claim_quotes(workspace=workspace, claim_ids=ids)
    for first in range(0, len(pairs), llm.JUDGE_BATCH):
        batch = pairs[first : first + llm.JUDGE_BATCH]
        report.model_calls += 1
        try:
            judged, usage = llm.judge_pairs([pair.stated(quotes) for pair in batch])
        except llm.LLMError as error:
            report.model_failures += 1
            logger.warning(
                "The contradiction watch's model call failed (%d pairs left to the rule alone): %s",
                len(pairs) - first, error,
            )  # fmt: skip
            return
        report.model_pairs += len(batch)
        report.prompt_tokens += usage.prompt_tokens
        report.completion_tokens += usage.completion_tokens
        for index, verdict in judged.items():
            if verdict.verdict != llm.Verdict.CONTRADICTS:
                continue
            pair = batch[index]
            stored = _record(workspace, claim_id=pair.claim_id, by_claim_id=pair.by_claim_id, found_by=FoundBy.MODEL,
                             reason=verdict.reason or MODEL_REASON, rule_kind=None)  # fmt: skip
            if stored:
                report.by_model += 1
                report.add(stored, claim_id=pair.claim_id, by_claim_id=pair.by_claim_id)


def watch(*, workspace: Workspace, claim_ids: list[str]) -> WatchReport:
    """Watches each of these claims (new ones): the rule's contradictions stored claim by claim, then, with a model
    configured, the pairs it left undecided judged by the model in batches. What it did, logged and returned."""
    report = WatchReport()
    pending: list[Pending] = []
    for claim_id in dict.fromkeys(claim_ids):
        pending += claim_watch(workspace=workspace, claim_id=claim_id, report=report)
    if pending and llm.is_configured():
        _model_judge(workspace=workspace, pending=pending, report=report)
    # Marked once the run is done (a model that failed included: its pairs were left to the rule), so a run lost
    # before this line (the worker killed, the graph gone) leaves its claims to the sweep.
    watch_graph.claims_watched_mark(workspace=workspace, claim_ids=claim_ids, now=now_iso())
    if report.found:
        # Audited and told (corrections/tellers.py): the reviewers learn of them without opening the queue.
        count = len(report.found)
        record_event(actor=None, workspace=workspace, verb="suggestion.found",
                     target=f"{count} contradiction{'' if count == 1 else 's'}", payload={"found": report.found})  # fmt: skip
    log = logger.info if report.stored or report.model_calls else logger.debug
    log(
        "contradiction watch: %d claims, %d suggestions by the rule, %d by the model; model %d calls (%d failed), "
        "%d pairs, tokens %d/%d", report.claims, report.by_rule, report.by_model, report.model_calls,
        report.model_failures, report.model_pairs, report.prompt_tokens, report.completion_tokens,
    )  # fmt: skip
    return report


def claims_watch(*, workspace: Workspace, claim_ids: list[str]) -> int:
    """Watches each of these claims (new ones): how many suggestions it stored."""
    return len(watch(workspace=workspace, claim_ids=claim_ids).stored)


def claims_current_received(
    sender: Any, *, workspace: Workspace, claim_ids: list[str], inline: bool = False, **_: Any
) -> None:
    """The receiver of claims' `claims_current`: the watch there and then in the worker (`inline`: a failure is
    logged, the claims stay), else queued for the worker once the write commits."""
    if inline:
        try:
            claims_watch(workspace=workspace, claim_ids=claim_ids)
        except Exception:
            logger.exception("The contradiction watch failed on %d new claims", len(claim_ids))
        return
    workspace_id, ids = str(workspace.id), list(claim_ids)
    transaction.on_commit(lambda: _queue(workspace_id, ids))


def _queue(workspace_id: str, claim_ids: list[str]) -> None:
    """Queues the watch of these claims; a broker that cannot take it is logged, never raised: the write that made
    them current has committed, and the sweep watches them a few minutes later (`watches_sweep`)."""
    # Imported here: tasks import services.
    from corrections import tasks

    try:
        tasks.claims_watch.delay(workspace_id, claim_ids)
    except KombuOperationalError as error:
        # The broker is down or unreachable (afterhack/outages.py reads it so): worth a line, not a traceback.
        logger.warning(
            "The contradiction watch of claims %s (workspace %s) could not be queued; the sweep will watch them: %s",
            ", ".join(claim_ids), workspace_id, error,
        )  # fmt: skip
    except Exception:
        logger.exception(
            "The contradiction watch of claims %s (workspace %s) failed to be queued; the sweep will watch them",
            ", ".join(claim_ids), workspace_id,
        )  # fmt: skip


@dataclass
class SweepReport:
    """What one sweep did: the workspaces it read, the claims it watched and the suggestions they gave, and the
    workspaces whose sweep failed (each logged) or was skipped (another sweep was running)."""

    workspaces: int = 0
    claims: int = 0
    suggestions: int = 0
    failed: int = 0
    skipped: bool = False

    def as_dict(self) -> dict[str, int]:
        return {name: int(value) for name, value in asdict(self).items()}


def workspace_sweep(*, workspace: Workspace, now: datetime, limit: int = SWEEP_BATCH) -> WatchReport:
    """Watches the workspace's current claims that became current between SWEEP_WINDOW and SWEEP_GRACE before
    `now` and were never watched, at most `limit`, the newest first (a watch queued but lost)."""
    claim_ids = watch_graph.claims_unwatched(
        workspace=workspace, since_ms=epoch_ms((now - SWEEP_WINDOW).isoformat()),
        before_ms=epoch_ms((now - SWEEP_GRACE).isoformat()), limit=limit,
    )  # fmt: skip
    return watch(workspace=workspace, claim_ids=claim_ids) if claim_ids else WatchReport()


def watches_sweep(*, now: datetime | None = None, limit: int = SWEEP_BATCH) -> SweepReport:
    """The periodic sweep (Celery beat, every minute): `workspace_sweep` of each workspace, one at a time; a
    workspace whose sweep fails is logged and the next one swept. One sweep at a time: a sweep that finds another
    running (a PostgreSQL advisory lock) does nothing."""
    report = SweepReport()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [SWEEP_LOCK])
        (free,) = cursor.fetchone()
    if not free:
        return SweepReport(skipped=True)
    try:
        for workspace in list(Workspace.objects.order_by("created_at")):
            report.workspaces += 1
            try:
                watched = workspace_sweep(workspace=workspace, now=now or datetime.now(UTC), limit=limit)
            except Exception:
                report.failed += 1
                logger.exception("The sweep of the contradiction watch failed in workspace %s", workspace.id)
                continue
            report.claims += watched.claims
            report.suggestions += len(watched.stored)
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [SWEEP_LOCK])
    if report.claims or report.failed:
        logger.warning("The contradiction watch's sweep: %s", report.as_dict())
    return report
