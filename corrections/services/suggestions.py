"""What a reviewer, an agent or a person does with suggested corrections: a contradiction flagged with its exact
quote (an open suggestion to correct a current claim), and a suggestion turned down (that pair is never suggested
again). Both audited; every refusal is in words and leaves nothing stored."""

from __future__ import annotations

import hashlib
import uuid
from typing import Any

from django.db import transaction

from afterhack.clock import now_iso
from afterhack.errors import Conflict, UserError
from afterhack.ids import parse_id, unstorable
from afterhack.text import MAX_REASON_CHARS
from claims.selectors import claims as claims_selectors
from claims.services.claims import ClaimNotFound, clean_statement, passage_find
from claims.statuses import ClaimStatus
from claims.text import same_statement
from corrections.graph import suggestions as suggestions_graph
from corrections.selectors.suggestions import Suggestion, suggestion_required
from corrections.services.preview import ClaimNotCurrent, UnchangedStatement
from corrections.services.refusals import Doing, SuggestionNotOpen
from corrections.statuses import FoundBy, SuggestionKind
from workspaces.models import Workspace
from workspaces.services.audit import actor_name, record_event


def _not_current(status: str) -> ClaimNotCurrent:
    return ClaimNotCurrent(
        f"This claim is already {status}; only a current claim can be flagged as contradicted (nothing was stored)."
    )


def flag_key(*, claim_id: str, version_id: str, start: int, end: int, statement: str) -> str:
    """The key of a flag: the same claim, passage and statement (case and spacing aside) is the same flag."""
    basis = f"{version_id}\x1f{start}\x1f{end}\x1f{' '.join(statement.casefold().split())}"
    return f"flag|{claim_id}|{hashlib.sha256(basis.encode()).hexdigest()}"


def contradiction_flag(
    *, workspace: Workspace, claim_id: str, source_id: object, quote: object, statement: object, start: object = None,
    found_by: FoundBy, actor: Any, run_id: str | None = None,
) -> tuple[Suggestion, bool]:  # fmt: skip
    """An open suggestion to correct the current claim to `statement`, citing the passage (its quote found exactly in
    the source's current version, as a claim's is), linked to the agent run `run_id` when one flagged it. The same
    flag again answers the suggestion it made (created False). 404 for another workspace's claim or source, 409 claim_not_current, 422 evidence_not_found."""
    statement = clean_statement(statement)
    claim = claims_selectors.claim_get(workspace=workspace, claim_id=claim_id) if parse_id(claim_id) else None
    if claim is None:
        raise ClaimNotFound()
    if claim.status != ClaimStatus.CURRENT:
        raise _not_current(claim.status)
    if same_statement(statement) == same_statement(claim.statement):
        raise UnchangedStatement()
    passage = passage_find(workspace=workspace, source_id=source_id, quote=quote, start=start)
    version, span = passage.version, passage.span
    key = flag_key(claim_id=claim.id, version_id=version.id, start=span.start, end=span.end, statement=statement)
    suggestion_id = str(uuid.uuid4())
    with transaction.atomic():
        stored = suggestions_graph.flag_record(
            workspace=workspace, suggestion_id=suggestion_id, key=key, claim_id=claim.id, statement=statement,
            source_id=version.source_id, version_id=version.id, quote=passage.quote, start=span.start, end=span.end,
            found_by=found_by, reason="The passage quoted says otherwise.",
            actor=actor_name(actor), now=now_iso(), run_id=run_id,
        )  # fmt: skip
        if stored:
            record_event(
                actor=actor, workspace=workspace, verb="suggestion.flagged", target=statement[:255],
                payload={"suggestion_id": suggestion_id, "claim_id": claim.id, "source_id": version.source_id,
                         "start": span.start, "end": span.end, "found_by": str(found_by),
                         **({"run_id": run_id} if run_id else {})},
            )  # fmt: skip
            return suggestion_required(workspace=workspace, suggestion_id=suggestion_id), True
    earlier = suggestions_graph.suggestion_by_key(workspace=workspace, key=key)
    if earlier is not None:
        return earlier, False
    now = claims_selectors.claim_get(workspace=workspace, claim_id=claim.id)
    if now is None or now.status != ClaimStatus.CURRENT:
        raise _not_current(now.status if now else "gone")
    raise Conflict(
        "The source changed (a new version, or it was retracted) while the contradiction was flagged; nothing was "
        "stored. Try again: the quote is checked against the source as it is now."
    )


def clean_reason(reason: object) -> str:
    """A reviewer's optional reason for a decision, its spacing tidied; "" for none; UserError if it cannot be one."""
    if reason is None:
        return ""
    if not isinstance(reason, str) or len(reason) > MAX_REASON_CHARS or unstorable(reason) is not None:
        raise UserError(f"A reason must be plain text of at most {MAX_REASON_CHARS:,} characters.")
    return " ".join(reason.split())


def rejected_verb(kind: SuggestionKind) -> str:
    """The audit verb of a suggestion turned down: an agent's claim rejected reads as that, not as a suggestion."""
    return "suggestion.claim_rejected" if kind == SuggestionKind.AGENT_CLAIM else "suggestion.rejected"


def suggestion_reject(
    *, workspace: Workspace, suggestion_id: str, reason: object = None, both_hold: object = False, actor: Any
) -> Suggestion:
    """Turns down an open suggestion ("not a contradiction", or with `both_hold` "both hold"): recorded, audited,
    and that pair is never suggested again. 404 if there is no such suggestion here, 409 if it is not open."""
    why = clean_reason(reason)
    if not isinstance(both_hold, bool):
        raise UserError("“both_hold” must be true or false.")
    suggestion = suggestion_required(workspace=workspace, suggestion_id=suggestion_id)
    with transaction.atomic():
        rejected = suggestions_graph.suggestion_reject(
            workspace=workspace, suggestion_id=suggestion.id, reason=why, both_hold=both_hold,
            actor=actor_name(actor), now=now_iso(),
        )  # fmt: skip
        if rejected is None:
            now = suggestion_required(workspace=workspace, suggestion_id=suggestion.id)
            raise SuggestionNotOpen(now.status, Doing.TURN_DOWN, kind=now.kind)
        record_event(
            actor=actor, workspace=workspace, verb=rejected_verb(rejected.kind), target=rejected.statement[:255],
            payload={"suggestion_id": rejected.id, "claim_id": rejected.claim_id, "by_claim_id": rejected.by_claim_id,
                     "both_hold": both_hold, "reason": why},
        )  # fmt: skip
    return rejected
