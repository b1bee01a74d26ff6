"""The review queue's reads: each decision waiting for review with the correction that flagged it, its actions and
its claim picker (as the reviewer left it), read in a few queries for all of them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from afterhack.picker import Picker, chosen_ids, ids_in, query_in
from agents.selectors import decisions as agents_selectors
from agents.statuses import DecisionKind
from claims.selectors import picker as picker_selectors
from corrections.selectors import corrections as corrections_selectors
from workspaces.models import Workspace


@dataclass(frozen=True)
class ReviewItem:
    """A decision waiting for review with what a reviewer needs to decide, and the forms' state.

    `here` is the page it is on (where a dismissal returns); the picker chooses the claims it rests on now.
    """

    decision: agents_selectors.Decision
    correction: corrections_selectors.Correction | None
    actions: list[agents_selectors.Action]
    open_actions: list[agents_selectors.Action]
    picker: Picker
    here: str
    title: str = ""
    rationale: str = ""
    error: str = ""


# The field the chosen claims of a review are sent in (the resolve form reads it).
SUPPORTS_FIELD = "support_ids"


def picker_key(decision_id: str) -> str:
    """The key of a decision's claim picker: unique on the review page, which lists many."""
    return f"d{decision_id}"


@dataclass(frozen=True)
class PickerState:
    """What the reviewer typed and chose in one decision's picker (from a query string or a refused form)."""

    decision_id: str = ""
    query: str = ""
    chosen_ids: tuple[str, ...] = ()
    title: str = ""
    rationale: str = ""
    error: str = ""

    @classmethod
    def from_query(cls, data: Any) -> PickerState:
        """The state a link carries (its query string): the decision it is `for`, its search `q`, the `chosen` claims."""
        return cls(
            decision_id=data.get("for", ""), query=query_in(data, ""),
            chosen_ids=tuple(ids_in(data, "chosen")),
        )  # fmt: skip

    @classmethod
    def from_form(cls, data: Any, decision_id: str, error: str = "") -> PickerState:
        """The state the resolve form sent back (a picker's own button, or a refusal): all of it kept."""
        key = picker_key(decision_id)
        return cls(
            decision_id=decision_id, query=query_in(data, key),
            chosen_ids=tuple(chosen_ids(data, field=SUPPORTS_FIELD, key=key)),
            title=data.get("title", "")[:300], rationale=data.get("rationale", "")[:4000], error=error,
        )  # fmt: skip


def review_items(
    workspace: Workspace, decisions: list[agents_selectors.Decision], state: PickerState, here: str
) -> list[ReviewItem]:
    """Each decision with the correction that flagged it, its actions, and its picker (as `state` left it
    for the decision it names), read in a few queries for all of them."""
    flagged_by = [d.flagged_by for d in decisions if d.flagged_by]
    corrections = {
        c.id: c for c in corrections_selectors.corrections_get(workspace=workspace, correction_ids=flagged_by)
    }
    replacements = [c.replacement_claim_id for c in corrections.values()]
    suggestions = {i.id: i for i in picker_selectors.claim_items(workspace=workspace, claim_ids=replacements)}
    actions = agents_selectors.actions_by_decision(workspace=workspace, decisions=decisions)
    # The newest claims, offered before anything is typed, are read once for every picker on the page.
    newest = picker_selectors.claim_finds(workspace=workspace, query="") if decisions else []
    items = []
    for decision in decisions:
        mine = state if state.decision_id == decision.id else PickerState(decision_id=decision.id)
        correction = corrections.get(decision.flagged_by or "")
        suggestion = suggestions.get(correction.replacement_claim_id) if correction else None
        offered = suggestion if suggestion and suggestion.usable and suggestion.id not in mine.chosen_ids else None
        picker = picker_selectors.claim_picker(
            workspace=workspace, field=SUPPORTS_FIELD, key=picker_key(decision.id), query=mine.query,
            chosen=mine.chosen_ids, newest=newest, suggestion=offered,
            suggestion_words="Suggested: the corrected statement",
            label="Find the claims that answer it" if decision.kind == DecisionKind.UNANSWERED
            else "Find the claims it rests on now",
            empty_words="Nothing chosen yet: find the claims that support it and add them. "
            "The decision will rest on all of them together.",
        )  # fmt: skip
        own = actions[decision.id]
        item = ReviewItem(decision, correction, own, agents_selectors.open_actions(own), picker, here,
                          title=mine.title, rationale=mine.rationale, error=mine.error)  # fmt: skip
        items.append(item)
    return items
