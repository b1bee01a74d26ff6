"""The contradiction watch: each claim that becomes current is compared with the current claims the app's claim
search finds for its statement (fulltext, plus meaning when an embeddings model is configured), and each pair the
offline rule judges contradictory is recorded as an open suggestion to correct the OLDER claim with what the new one
says (corrections/graph/suggestions.py). It runs in the worker: queued once the write that made the claims current
commits (`claims_current_received`, connected in corrections/apps.py), or there and then when the sender is already
the worker (an extraction). Nothing is ever corrected by it: a reviewer decides."""

from __future__ import annotations

import logging
import uuid
from typing import Any

from django.db import transaction

from afterhack.clock import now_iso
from claims.selectors.search import SearchHit, claims_alike
from claims.statuses import ClaimStatus
from corrections.contradiction.frames import Analysis, analyse
from corrections.contradiction.rule import Judgement, Outcome, judge_analysed
from corrections.graph import suggestions as suggestions_graph
from corrections.statuses import FoundBy
from workspaces.models import Workspace

logger = logging.getLogger("corrections")

# How many current claims a new claim is compared with, and how many of the search's best it looks among for them
# (the search ranks current claims first among equals, and finds claims of every status).
WATCH_CANDIDATES = 20
SEARCHED = 3 * WATCH_CANDIDATES


def _judge(candidate: str, new: Analysis) -> Judgement:
    """The one place the watch asks whether two statements contradict each other (the offline rule; the new
    claim's statement is analysed once for all its candidates)."""
    return judge_analysed(analyse(candidate), new)


def candidates(*, workspace: Workspace, statement: str, kin: set[str]) -> list[SearchHit]:
    """The current claims the search finds most like the statement (its words, and its meaning with a model), best
    first, at most WATCH_CANDIDATES, none of `kin` (the claim itself and those it supersedes, is superseded by, or is
    derived from or into)."""
    found = claims_alike(workspace=workspace, statement=statement, candidates=SEARCHED)
    hits = [hit for hit in found if hit.status == ClaimStatus.CURRENT and hit.id not in kin]
    return hits[:WATCH_CANDIDATES]


def claim_watch(*, workspace: Workspace, claim_id: str) -> list[str]:
    """Compares one claim (if it is current) with its candidates; the ids of the suggestions this stored."""
    read = suggestions_graph.claim_kin(workspace=workspace, claim_id=claim_id)
    if read is None or read.status != ClaimStatus.CURRENT:
        return []
    stored: list[str] = []
    new = analyse(read.statement)
    for hit in candidates(workspace=workspace, statement=read.statement, kin=read.kin):
        judgement = _judge(hit.statement, new)
        if judgement.outcome != Outcome.CONTRADICTS:
            continue
        suggestion_id = str(uuid.uuid4())
        if suggestions_graph.contradiction_record(
            workspace=workspace, suggestion_id=suggestion_id, claim_id=hit.id, by_claim_id=claim_id,
            found_by=FoundBy.RULE, reason=judgement.reason,
            rule_kind=str(judgement.kind) if judgement.kind else None, now=now_iso(),
        ):  # fmt: skip
            stored.append(suggestion_id)
    return stored


def claims_watch(*, workspace: Workspace, claim_ids: list[str]) -> int:
    """Watches each of these claims (new ones): how many suggestions it stored."""
    return sum(len(claim_watch(workspace=workspace, claim_id=claim_id)) for claim_id in dict.fromkeys(claim_ids))


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
    # Imported here: tasks import services.
    from corrections import tasks

    workspace_id, ids = str(workspace.id), list(claim_ids)
    transaction.on_commit(lambda: tasks.claims_watch.delay(workspace_id, ids))
