"""Reads of suggested corrections: one, the API's keyset pages (newest first, by status and kind), and the review
queue's section (each open suggestion with its two claims side by side, their quotes in context)."""

from __future__ import annotations

from dataclasses import dataclass

from afterhack.errors import NotFound, found
from afterhack.lists.cursors import Paged, workspace_page
from claims.selectors import claims as claims_selectors
from claims.selectors import sources as sources_selectors
from claims.selectors.claims import Claim
from corrections.graph import suggestions as suggestions_graph
from corrections.graph.suggestions import Evidence as Evidence
from corrections.graph.suggestions import Suggestion as Suggestion
from corrections.statuses import SuggestionKind, SuggestionStatus
from workspaces.models import Workspace

# The shapes these reads return are re-exported above (`X as X`), so pages and API modules name no graph module.


class SuggestionNotFound(NotFound):
    thing = "suggestion"


def suggestion_get(*, workspace: Workspace, suggestion_id: str) -> Suggestion | None:
    return suggestions_graph.suggestion_get(workspace=workspace, suggestion_id=suggestion_id)


def suggestion_required(*, workspace: Workspace, suggestion_id: str) -> Suggestion:
    """The suggestion, or SuggestionNotFound (404) when there is none with this id in the workspace."""
    return found(suggestion_get(workspace=workspace, suggestion_id=suggestion_id), SuggestionNotFound())


def suggestion_of_correction(*, workspace: Workspace, correction_id: str) -> Suggestion | None:
    """The suggested correction a correction accepted (part of its provenance), or None."""
    return suggestions_graph.suggestion_of_correction(workspace=workspace, correction_id=correction_id)


def suggestions_page(
    *, workspace: Workspace, status: str, kind: str, limit: int, cursor: str | None
) -> Paged[Suggestion]:
    """A page of the workspace's suggestions of this status and kind ('' for any), newest first."""
    return workspace_page(
        "suggestions", workspace=workspace, status=status, kind=kind, cursor=cursor, limit=limit,
        read=suggestions_graph.suggestion_list, count=suggestions_graph.suggestion_count,
    )  # fmt: skip


def suggestion_count(*, workspace: Workspace, status: str = "", kind: str = "") -> int:
    return suggestions_graph.suggestion_count(workspace=workspace, status=status, kind=kind)


# -- the review queue's section -------------------------------------------------------------------------------

# The newest open suggestions the review queue shows (each reads its two claims and their sources' text), and how much
# of the text around each quote it shows.
QUEUE_LIMIT = 50
CONTEXT_CHARS = 160


@dataclass(frozen=True)
class Side:
    """One side of a suggestion as the review queue shows it: the claim's statement (or what was flagged), its
    source's title and date, and its quote in the text around it."""

    statement: str
    claim: Claim | None
    source_id: str | None
    title: str
    dated: str | None
    quote: str
    before: str
    after: str


@dataclass(frozen=True)
class SuggestionItem:
    suggestion: Suggestion
    older: Side
    newer: Side


def _in_context(text: str, start: int, end: int, quote: str) -> tuple[str, str]:
    """The text before and after the quote (up to CONTEXT_CHARS each, "…" where it goes on); none if it moved."""
    if text[start:end] != quote:
        return "", ""
    before = ("…" if start > CONTEXT_CHARS else "") + text[max(0, start - CONTEXT_CHARS) : start]
    after = text[end : end + CONTEXT_CHARS] + ("…" if len(text) > end + CONTEXT_CHARS else "")
    return before, after


def _claim_side(workspace: Workspace, claim: Claim | None, statement: str) -> Side:
    """A claim's side: its own quote in its version, or the passage it cites (a correction's replacement)."""
    if claim is None:
        return Side(statement, None, None, "", None, "", "", "")
    passage = claim.cited_passage
    if claim.version_id and claim.evidence_quote is not None and claim.start is not None and claim.end is not None:
        version_id, quote, start, end = claim.version_id, claim.evidence_quote, claim.start, claim.end
    elif passage is not None:
        version_id, quote, start, end = passage.version_id, passage.quote, passage.start, passage.end
    else:
        return Side(claim.statement, claim, None, "", claim.created_at, "", "", "")
    version = sources_selectors.version_get(workspace=workspace, version_id=version_id)
    if version is None:
        return Side(claim.statement, claim, None, "its source", None, quote, "", "")
    before, after = _in_context(version.text, start, end, quote)
    return Side(claim.statement, claim, version.source_id, version.title, version.created_at, quote, before, after)


def _flag_side(workspace: Workspace, suggestion: Suggestion) -> Side:
    """What a flag says: its statement, and the passage it quoted in its source's current version."""
    evidence = suggestion.evidence
    if evidence is None:
        return Side(suggestion.statement, None, None, "", None, "", "", "")
    version = sources_selectors.source_get(workspace=workspace, source_id=evidence.source_id)
    if version is None:
        return Side(suggestion.statement, None, evidence.source_id, "its source", None, evidence.quote, "", "")
    before, after = _in_context(version.text, evidence.start, evidence.end, evidence.quote)
    return Side(suggestion.statement, None, evidence.source_id, version.title, version.created_at, evidence.quote,
                before, after)  # fmt: skip


def suggestion_item(*, workspace: Workspace, suggestion: Suggestion) -> SuggestionItem:
    """A suggestion side by side: the older claim (the one it would correct) and the newer (or the flagged passage)."""
    older_claim = claims_selectors.claim_get(workspace=workspace, claim_id=suggestion.claim_id)
    older = _claim_side(workspace, older_claim, "")
    if suggestion.by_claim_id:
        newer_claim = claims_selectors.claim_get(workspace=workspace, claim_id=suggestion.by_claim_id)
        newer = _claim_side(workspace, newer_claim, suggestion.statement)
    else:
        newer = _flag_side(workspace, suggestion)
    return SuggestionItem(suggestion, older, newer)


def review_suggestions(*, workspace: Workspace, limit: int = QUEUE_LIMIT) -> tuple[list[SuggestionItem], int]:
    """The newest open suggested corrections side by side, and how many are open in all (contradictions: an agent's
    proposed claim waits in its own section, corrections/templatetags/proposed.py)."""
    open_, kind = SuggestionStatus.OPEN, SuggestionKind.CONTRADICTION
    shown = suggestions_graph.suggestion_list(workspace=workspace, status=open_, kind=kind, limit=limit)
    total = len(shown) if len(shown) < limit else suggestion_count(workspace=workspace, status=open_, kind=kind)
    return [suggestion_item(workspace=workspace, suggestion=s) for s in shown], total
