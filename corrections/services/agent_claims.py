"""A reviewer's answer to claims proposed by agents (docs/suggestions.md, "Claims proposed by agents"): approve one
or many (the claim becomes current, is watched, and can be cited; its suggestion `accepted`), or reject many at once
(the claim `rejected`, its suggestion `rejected`; one at a time is the suggestions' reject). Each is one graph write
for all the ids given, audited one event per suggestion decided. Bulk answers are per item: every open one is
decided, every other one is reported with why, and nothing is stored for those. Nobody approves a claim they
proposed (through an agent, with their token): the graph write itself passes over those (`own_proposal`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from django.db import transaction

from afterhack.clock import now_iso
from afterhack.errors import Conflict, UserError
from afterhack.ids import parse_id
from claims.signals import claims_became_current
from corrections.graph import suggestions as suggestions_graph
from corrections.selectors.suggestions import Suggestion, SuggestionNotFound
from corrections.services.refusals import Doing, ProposerCannotDecide, SuggestionNotOpen, proposed_by
from corrections.services.suggestions import clean_reason, rejected_verb
from corrections.statuses import SuggestionKind, SuggestionStatus
from workspaces.models import Workspace
from workspaces.services.audit import actor_name, record_events

# How many suggestions one bulk request decides at most.
MAX_BULK = 500


class Outcome(StrEnum):
    """What a bulk answer did with one suggestion."""

    APPROVED = "approved"
    REJECTED = "rejected"
    NOT_OPEN = "not_open"
    NOT_AN_AGENT_CLAIM = "not_an_agent_claim"
    OWN_PROPOSAL = "own_proposal"
    SOURCE_CHANGED = "source_changed"
    NOT_FOUND = "not_found"


@dataclass(frozen=True)
class Decided:
    """One suggestion of a bulk answer: what happened to it, in words, and the suggestion as it is now (if any)."""

    id: str
    outcome: Outcome
    detail: str
    suggestion: Suggestion | None


class NotAnAgentClaim(Conflict):
    def __init__(self) -> None:
        super().__init__(
            "Only an agent's proposed claim can be approved; a suggested correction is corrected or turned down."
        )


class SourceChanged(Conflict):
    def __init__(self) -> None:
        super().__init__(
            "The claim's source has changed since the agent proposed it (a new version, or it was retracted), so its "
            "quote is no longer the source's current text; nothing was approved. Reject it, and propose it again "
            "from the source as it is now."
        )


def _clean_ids(ids: object) -> list[str]:
    if not isinstance(ids, list) or not ids:
        raise UserError("“ids” must be a non-empty list of suggestion ids.")
    if len(ids) > MAX_BULK:
        raise UserError(f"At most {MAX_BULK} suggestions can be decided at once; this asked for {len(ids):,}.")
    if not all(isinstance(i, str) for i in ids):
        raise UserError("Every entry of “ids” must be a suggestion id (a string).")
    return list(dict.fromkeys(ids))


def _why_not(suggestion: Suggestion | None, *, approving: bool, actor: str) -> tuple[Outcome, str]:
    """Why a suggestion was left as it was by a bulk answer, in words."""
    if suggestion is None:
        return Outcome.NOT_FOUND, "There is no suggestion with this id in this workspace."
    if suggestion.status != SuggestionStatus.OPEN:
        doing = Doing.APPROVE if approving else Doing.TURN_DOWN
        return Outcome.NOT_OPEN, str(SuggestionNotOpen(suggestion.status, doing, kind=suggestion.kind))
    if not approving:
        # Suggestions never open again, so the write passes over an open one only if it was not open then.
        return Outcome.NOT_OPEN, "This suggestion changed while it was being turned down; nothing was stored."
    if suggestion.kind != SuggestionKind.AGENT_CLAIM:
        return Outcome.NOT_AN_AGENT_CLAIM, str(NotAnAgentClaim())
    if proposed_by(suggestion.created_by, actor):
        return Outcome.OWN_PROPOSAL, str(ProposerCannotDecide(suggestion.kind))
    return Outcome.SOURCE_CHANGED, str(SourceChanged())


def _by_verb(decided: Iterable[Suggestion], approving: bool) -> dict[str, list[Suggestion]]:
    """The suggestions decided, by the verb that audits them (a bulk rejection may turn down both kinds)."""
    verbs: dict[str, list[Suggestion]] = {}
    for s in decided:
        verbs.setdefault("suggestion.approved" if approving else rejected_verb(s.kind), []).append(s)
    return verbs


def _decide(
    *, workspace: Workspace, ids: list[str], approving: bool, write: Callable[[], list[Suggestion]], actor: Any,
    reason: str,
) -> list[Decided]:  # fmt: skip
    with transaction.atomic():
        done = {s.id: s for s in write()}
        if done:
            for verb, decided in _by_verb(done.values(), approving).items():
                record_events(actor=actor, workspace=workspace, verb=verb, events=[
                    (s.statement[:255], {"suggestion_id": s.id, "claim_id": s.claim_id, "by_claim_id": s.by_claim_id,
                                         "kind": str(s.kind), "reason": reason,
                                         **({} if approving else {"both_hold": False})})
                    for s in decided
                ])  # fmt: skip
        if approving:
            # Now current: the contradiction watch looks at them once this commits (claims/signals.py).
            claims_became_current(workspace=workspace, claim_ids=[s.claim_id for s in done.values()])
    others = suggestions_graph.suggestions_get(workspace=workspace, suggestion_ids=[i for i in ids if i not in done])
    answer = []
    for i in ids:
        if i in done:
            outcome = Outcome.APPROVED if approving else Outcome.REJECTED
            words = "Approved: the claim is current." if approving else "Rejected."
            if not approving and done[i].kind == SuggestionKind.AGENT_CLAIM:
                words = "Rejected: the claim will not become current."
            answer.append(Decided(i, outcome, words, done[i]))
        else:
            outcome, words = _why_not(
                others.get(i) if parse_id(i) else None, approving=approving, actor=actor_name(actor)
            )
            answer.append(Decided(i, outcome, words, others.get(i)))
    return answer


def agent_claims_approve(*, workspace: Workspace, ids: object, actor: Any, reason: object = None) -> list[Decided]:
    """Approves each of these open agent_claim suggestions (per item: the others are reported with why)."""
    clean, why = _clean_ids(ids), clean_reason(reason)

    def write() -> list[Suggestion]:
        return suggestions_graph.agent_claims_approve(
            workspace=workspace, suggestion_ids=clean, reason=why, actor=actor_name(actor), now=now_iso()
        )

    return _decide(workspace=workspace, ids=clean, approving=True, write=write, actor=actor, reason=why)


def suggestions_reject_many(*, workspace: Workspace, ids: object, actor: Any, reason: object = None) -> list[Decided]:
    """Turns down each of these open suggestions (an agent's claim is rejected with its suggestion; per item)."""
    clean, why = _clean_ids(ids), clean_reason(reason)

    def write() -> list[Suggestion]:
        return suggestions_graph.suggestions_reject(
            workspace=workspace, suggestion_ids=clean, reason=why, both_hold=False, actor=actor_name(actor),
            now=now_iso(),
        )  # fmt: skip

    return _decide(workspace=workspace, ids=clean, approving=False, write=write, actor=actor, reason=why)


def agent_claim_approve(*, workspace: Workspace, suggestion_id: str, actor: Any, reason: object = None) -> Suggestion:
    """Approves one agent's claim: the suggestion accepted, the claim current. 404 for no such suggestion here, 403
    if the actor proposed it (through an agent, with their token: another reviewer approves it), 409 if it is not
    open, not an agent's claim, or its source changed since."""
    [decided] = agent_claims_approve(workspace=workspace, ids=[suggestion_id], actor=actor, reason=reason)
    if decided.outcome == Outcome.APPROVED and decided.suggestion is not None:
        return decided.suggestion
    if decided.outcome == Outcome.NOT_FOUND:
        raise SuggestionNotFound()
    if decided.outcome == Outcome.OWN_PROPOSAL:
        raise ProposerCannotDecide(SuggestionKind.AGENT_CLAIM)
    raise Conflict(decided.detail)
