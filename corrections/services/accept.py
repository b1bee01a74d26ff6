"""Accepting a suggested correction: what correcting its claim (or, "correct the other one", the newer claim that
said otherwise) would do, and what the correction that accepts it must cite. The correction itself is the usual
one (apply.py), written in the same graph query that sets the suggestion accepted with the correction's id.

- Correct it: the suggestion's claim (the older belief) becomes the suggestion's statement, citing the passage
  the newer claim rests on as it is now (its quote where a new version of its source moved it), or for a flag, the
  passage flagged (kept where its quote is by each new version of its source: corrections/graph/evidence.py).
- Correct the other one: the newer claim (`by_claim_id`) is the wrong one; it becomes the older claim's statement,
  citing the older claim's own quote.
Refused in words, nothing stored: an unknown suggestion (404), one not open (409), one the reviewer flagged
themselves or through their agent (403: another reviewer accepts it), one about another claim or cited with other
evidence (422)."""

from __future__ import annotations

from dataclasses import dataclass

from afterhack.errors import UserError
from afterhack.ids import parse_id
from claims.selectors import claims as claims_selectors
from corrections.selectors.suggestions import Suggestion, SuggestionNotFound, suggestion_required
from corrections.services.preview import Preview, preview
from corrections.services.refusals import Doing, ProposerCannotDecide, SuggestionNotOpen, proposed_by
from corrections.statuses import SuggestionKind, SuggestionStatus
from workspaces.models import Workspace


@dataclass(frozen=True)
class Evidence:
    """The passage a correction accepting a suggestion cites (as Apply's `evidence` takes it)."""

    source_id: str
    quote: str
    start: int | None

    def as_json(self) -> dict[str, object]:
        return {"source_id": self.source_id, "quote": self.quote, "start": self.start}


@dataclass(frozen=True)
class Accepting:
    """A suggestion as a correction accepts it: which claim it corrects, to what, citing what."""

    suggestion: Suggestion
    claim_id: str
    statement: str
    evidence: Evidence | None
    other: bool


def _claim_evidence(workspace: Workspace, claim_id: str) -> tuple[str, Evidence | None]:
    """The statement of one of the suggestion's claims and the passage it rests on as it is now: its own quote (where
    its source's current version has it), or the one it cites; none for a derived claim."""
    claim = claims_selectors.claim_get(workspace=workspace, claim_id=claim_id)
    if claim is None:
        raise SuggestionNotFound()
    if claim.source_id and claim.evidence_quote is not None:
        return claim.statement, Evidence(claim.source_id, claim.evidence_quote, claim.start)
    cited = claim.cited_passage
    return claim.statement, Evidence(cited.source_id, cited.quote, cited.start) if cited else None


def accepting(
    *, workspace: Workspace, suggestion_id: object, claim_id: str | None = None, other: bool = False
) -> Accepting:
    """What accepting the suggestion means for a correction of `claim_id` (its claim, or with `other`, or when
    `claim_id` is its newer claim, that one). Its status is not checked here (see `require_open`)."""
    if not isinstance(suggestion_id, str) or parse_id(suggestion_id) is None:
        raise UserError("“suggestion_id” must be the id of a suggestion of this workspace.")
    suggestion = suggestion_required(workspace=workspace, suggestion_id=suggestion_id)
    if suggestion.kind != SuggestionKind.CONTRADICTION:
        raise UserError(
            "This suggestion asks to approve an agent's claim, not to correct one: approve or reject it instead. "
            "Nothing was stored."
        )
    if claim_id is not None:
        if claim_id not in (suggestion.claim_id, suggestion.by_claim_id):
            raise UserError(
                "This suggestion is about another claim: it can be accepted only by correcting its own claim (or, "
                "for one found between two claims, the other one). Nothing was stored."
            )
        other = claim_id == suggestion.by_claim_id
    if other:
        if suggestion.by_claim_id is None:
            raise UserError(
                "This suggestion was flagged with a passage, not found between two claims: there is no other claim "
                "to correct. Nothing was stored."
            )
        statement, cited = _claim_evidence(workspace, suggestion.claim_id)
        return Accepting(suggestion, suggestion.by_claim_id, statement, cited, other=True)
    if suggestion.by_claim_id is not None:
        # The newer claim as it is now, not the offsets it had when the suggestion was found: a new version of its
        # source may have moved its quote since (the suggestion stays open, as the claim stays current).
        _, cited = _claim_evidence(workspace, suggestion.by_claim_id)
    else:
        flagged = suggestion.evidence
        cited = Evidence(flagged.source_id, flagged.quote, flagged.start) if flagged else None
    return Accepting(suggestion, suggestion.claim_id, suggestion.statement, cited, other=False)


def require_acceptable(suggestion: Suggestion, *, by: str) -> None:
    """SuggestionNotOpen (409) unless the suggestion is open; ProposerCannotDecide (403) if `by` (the reviewer's
    name) flagged it, in person or through an agent with their token: another reviewer accepts it."""
    if suggestion.status != SuggestionStatus.OPEN:
        raise SuggestionNotOpen(suggestion.status, Doing.ACCEPT, kind=suggestion.kind)
    if proposed_by(suggestion.created_by, by):
        raise ProposerCannotDecide(suggestion.kind)


def require_open(*, workspace: Workspace, suggestion_id: str, by: str) -> None:
    """As `require_acceptable`, for the suggestion as it is now."""
    require_acceptable(suggestion_required(workspace=workspace, suggestion_id=suggestion_id), by=by)


def suggestion_preview(
    *, workspace: Workspace, suggestion_id: str, by: str, statement: object = None, other: bool = False
) -> tuple[Preview, Accepting]:
    """The correction preview of the suggestion's claim (or the other one) with the suggested statement (or the one
    given) and the passage it would cite; 409 if the suggestion is not open, 403 if `by` flagged it."""
    accepted = accepting(workspace=workspace, suggestion_id=suggestion_id, other=other)
    require_acceptable(accepted.suggestion, by=by)
    plan = preview(
        workspace=workspace,
        claim_id=accepted.claim_id,
        statement=accepted.statement if statement is None else statement,
    )
    return plan, accepted
