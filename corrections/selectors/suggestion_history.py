"""The suggestions in a claim's history (docs/history.md, "Suggestions in a claim's history"): those about the claim
and those by it, each as it stood at the page's moment."""

from __future__ import annotations

from dataclasses import dataclass, replace

from corrections.graph import suggestion_history as history_graph
from corrections.graph.suggestions import Suggestion
from corrections.statuses import FoundBy, SuggestionStatus
from workspaces.models import Workspace

# How many suggestions of one claim its page lists (the newest); a claim rarely has more than a few.
CLAIM_SUGGESTIONS_LIMIT = 20


# What the contradiction rule found differs, by its kind (corrections/contradiction/rule.py `Kind`).
RULE_KIND_WORDS = {
    "date": "a different date",
    "number": "a different number",
    "named_value": "a different named value",
    "negation": "one denies the other",
}


def found_words(found_by: str, rule_kind: str | None = None, created_by: str | None = None) -> str:
    """Who or what found a suggestion, in words: "found by the contradiction rule (a different date)", "found by the
    model", "flagged by an agent (mcp-bot)", "flagged by ana"."""
    if found_by == FoundBy.RULE:
        kind = RULE_KIND_WORDS.get(rule_kind or "", "")
        return "found by the contradiction rule" + (f" ({kind})" if kind else "")
    if found_by == FoundBy.MODEL:
        return "found by the model"
    if found_by == FoundBy.AGENT:
        return "flagged by an agent" + (f" ({created_by})" if created_by else "")
    return f"flagged by {created_by or 'a person'}"


@dataclass(frozen=True)
class ClaimSuggestion:
    """A suggestion in a claim's history: the suggestion as it stood then, whether it is ABOUT the claim (`about`:
    the claim it would correct, or the agent's claim waiting for approval) or BY it (it says otherwise than the
    older claim), and that other claim: its id and statement (for a flag about the claim, none)."""

    suggestion: Suggestion
    about: bool
    other_id: str | None
    other_statement: str

    @property
    def found(self) -> str:
        s = self.suggestion
        return found_words(s.found_by, s.rule_kind, s.created_by)


@dataclass(frozen=True)
class ClaimSuggestions:
    items: list[ClaimSuggestion]
    # Whether there were more than the page lists.
    more: bool


def as_it_stood(suggestion: Suggestion, as_of: str) -> Suggestion:
    """The suggestion at the moment `as_of` ('' for now): open if it was not decided by then, as it is otherwise (a
    suggestion is decided once, at `decided_at`)."""
    if not as_of or suggestion.decided_at is None or suggestion.decided_at <= as_of:
        return suggestion
    return replace(
        suggestion, status=SuggestionStatus.OPEN, decided_at=None, decided_by=None, decision_reason=None,
        both_hold=None, correction_id=None,
    )  # fmt: skip


def claim_suggestions(
    *, workspace: Workspace, claim_id: str, as_of: str = "", limit: int = CLAIM_SUGGESTIONS_LIMIT
) -> ClaimSuggestions:
    """The newest suggestions about or by the claim that existed at `as_of` ('' for now: all of them), each as it
    stood then; one graph read."""
    rows = history_graph.claim_suggestions(workspace=workspace, claim_id=claim_id, as_of=as_of, limit=limit + 1)
    items = []
    for row in rows[:limit]:
        suggestion = as_it_stood(row.suggestion, as_of)
        about = suggestion.claim_id == claim_id
        other_id = suggestion.by_claim_id if about else suggestion.claim_id
        other = (suggestion.statement if about else row.about) if other_id else ""
        items.append(ClaimSuggestion(suggestion, about, other_id, other))
    return ClaimSuggestions(items, len(rows) > limit)
