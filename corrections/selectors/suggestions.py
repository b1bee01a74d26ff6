"""Reads of suggested corrections: one, the API's keyset pages (newest first, by status and kind), and the review
queue's section (each open suggestion with its two claims side by side, their quotes in context)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from afterhack.errors import NotFound, found
from afterhack.lists.cursors import Paged, workspace_page
from corrections.graph import suggestion_sides as sides_graph
from corrections.graph import suggestions as suggestions_graph
from corrections.graph.suggestion_sides import SideAsked, SideRead
from corrections.graph.suggestions import Evidence as Evidence
from corrections.graph.suggestions import Suggestion as Suggestion
from corrections.statuses import SuggestionKind, SuggestionStatus
from workspaces.models import Workspace

# The shapes these reads return are re-exported above (`X as X`), so pages and API modules name no graph module.


class SuggestionNotFound(NotFound):
    thing = "suggestion"


def suggestion_json(suggestion: Suggestion) -> dict[str, Any]:
    """A suggestion as the API and MCP answer it (the API's SuggestionOut): one shape, so the two cannot drift."""
    evidence = suggestion.evidence
    return {
        "id": suggestion.id, "kind": suggestion.kind, "status": suggestion.status, "claim_id": suggestion.claim_id,
        "by_claim_id": suggestion.by_claim_id, "statement": suggestion.statement,
        "evidence": {"source_id": evidence.source_id, "quote": evidence.quote, "start": evidence.start,
                     "end": evidence.end} if evidence else None,
        "found_by": suggestion.found_by, "reason": suggestion.reason, "created_at": suggestion.created_at,
        "correction_id": suggestion.correction_id, "decided_at": suggestion.decided_at,
        "decided_by": suggestion.decided_by, "decision_reason": suggestion.decision_reason,
        "both_hold": suggestion.both_hold, "run_id": suggestion.run_id,
    }  # fmt: skip


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

# The newest open suggestions the review queue shows (their sides read together, corrections/graph/suggestion_sides.py),
# and how much of the text around each quote it shows.
QUEUE_LIMIT = 50
CONTEXT_CHARS = 160


@dataclass(frozen=True)
class Side:
    """One side of a suggestion as the review queue shows it: the claim's statement (or what was flagged), its
    source's title and date, and its quote in the text around it."""

    statement: str
    claim_id: str | None
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


def _in_context(read: SideRead) -> tuple[str, str]:
    """The text before and after the quote (up to CONTEXT_CHARS each, "…" where it goes on), cut from the window
    read around it; none if the quote is no longer at its offsets (a flag's, after a new version of its source)."""
    start, end, quote = read.start, read.end, read.quote
    if start is None or end is None or quote is None or not 0 <= start <= end:
        return "", ""
    at, upto = start - read.window_start, end - read.window_start
    if read.window[at:upto] != quote:
        return "", ""
    # The window holds one character more after the quote than is shown: it says whether the text goes on.
    after = read.window[upto:]
    before = ("…" if start > CONTEXT_CHARS else "") + read.window[:at]
    return before, after[:CONTEXT_CHARS] + ("…" if len(after) > CONTEXT_CHARS else "")


def _claim_side(read: SideRead, statement: str) -> Side:
    """A claim's side: its own quote in its version, or the passage it cites (a correction's replacement)."""
    if read.claim_id is None:
        return Side(statement, None, None, "", None, "", "", "")
    claim_statement = read.statement or ""
    if read.quote is None:
        return Side(claim_statement, read.claim_id, None, "", read.created_at, "", "", "")
    if not read.found:
        return Side(claim_statement, read.claim_id, None, "its source", None, read.quote, "", "")
    return Side(claim_statement, read.claim_id, read.source_id, read.title or "", read.dated, read.quote,
                *_in_context(read))  # fmt: skip


def _flag_side(read: SideRead | None, suggestion: Suggestion) -> Side:
    """What a flag says: its statement, and the passage it quoted in its source's current version."""
    evidence = suggestion.evidence
    if evidence is None or read is None:
        return Side(suggestion.statement, None, None, "", None, "", "", "")
    if not read.found:
        return Side(suggestion.statement, None, evidence.source_id, "its source", None, evidence.quote, "", "")
    return Side(suggestion.statement, None, evidence.source_id, read.title or "", read.dated, evidence.quote,
                *_in_context(read))  # fmt: skip


def suggestion_items(*, workspace: Workspace, suggestions: list[Suggestion]) -> list[SuggestionItem]:
    """The suggestions side by side: the older claim (the one each would correct) and the newer (or the flagged
    passage), every side of them read in one query."""
    asked: list[SideAsked] = []
    for suggestion in suggestions:
        asked.append(SideAsked(claim_id=suggestion.claim_id))
        if suggestion.by_claim_id:
            asked.append(SideAsked(claim_id=suggestion.by_claim_id))
        elif suggestion.evidence is not None:
            asked.append(SideAsked(passage=suggestion.evidence))
    reads = iter(sides_graph.suggestion_sides(workspace=workspace, asked=asked, context=CONTEXT_CHARS))
    items = []
    for suggestion in suggestions:
        older = _claim_side(next(reads), "")
        if suggestion.by_claim_id:
            newer = _claim_side(next(reads), suggestion.statement)
        else:
            newer = _flag_side(next(reads) if suggestion.evidence is not None else None, suggestion)
        items.append(SuggestionItem(suggestion, older, newer))
    return items


def suggestion_item(*, workspace: Workspace, suggestion: Suggestion) -> SuggestionItem:
    """One suggestion side by side (a refusal shows it again, in place)."""
    return suggestion_items(workspace=workspace, suggestions=[suggestion])[0]


def review_suggestions(*, workspace: Workspace, limit: int = QUEUE_LIMIT) -> tuple[list[SuggestionItem], int]:
    """The newest open suggested corrections side by side, and how many are open in all (contradictions: an agent's
    proposed claim waits in its own section, corrections/templatetags/proposed.py)."""
    open_, kind = SuggestionStatus.OPEN, SuggestionKind.CONTRADICTION
    shown = suggestions_graph.suggestion_list(workspace=workspace, status=open_, kind=kind, limit=limit)
    total = len(shown) if len(shown) < limit else suggestion_count(workspace=workspace, status=open_, kind=kind)
    return suggestion_items(workspace=workspace, suggestions=shown), total
