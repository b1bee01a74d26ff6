"""The review queue's "Already acted on": each done action whose decision lost its support, with when and by whom it
was done, its decisions as they are now (what changed: why each needs review), and the decisions a follow-up would
depend on by default (those that hold now, or the decision a revision replaced one with), read in a few queries for
all of them."""

from __future__ import annotations

from dataclasses import dataclass

from afterhack.holds import status_holds
from agents.selectors import decisions as agents_selectors
from workspaces.models import Workspace

# How many revisions are followed from a decision to the one that now stands in its place.
MAX_REVISIONS_FOLLOWED = 20


@dataclass(frozen=True)
class ActedOn:
    """A done action needing a follow-up, with what the reviewer needs to answer it, and the form's state."""

    action: agents_selectors.Action
    done: agents_selectors.DoneWhen | None
    decisions: list[agents_selectors.Decision]
    # The decisions a follow-up depends on unless the reviewer chooses otherwise: those that hold now.
    holding: list[agents_selectors.Decision]
    title: str = ""
    reason: str = ""
    error: str = ""


def holds_now(decision: agents_selectors.Decision) -> bool:
    return status_holds(decision=True, status=decision.status) and not decision.dismissed_at


def standing_in(
    workspace: Workspace, decisions: list[agents_selectors.Decision]
) -> dict[str, agents_selectors.Decision]:
    """For each decision, the one standing in its place now: itself, or the newest revision of it (by id; one query
    per step of revision, for all of them at once)."""
    standing = {d.id: d for d in decisions}
    for _ in range(MAX_REVISIONS_FOLLOWED):
        newer_ids = sorted({d.superseded_by for d in standing.values() if d.superseded_by})
        if not newer_ids:
            break
        newer = {d.id: d for d in agents_selectors.decisions_get(workspace=workspace, decision_ids=newer_ids)}
        moved = {i: newer[d.superseded_by] for i, d in standing.items() if d.superseded_by in newer}
        if not moved:
            break
        standing.update(moved)
    return standing


def acted_on_items(
    workspace: Workspace, actions: list[agents_selectors.Action], *, state: dict[str, dict[str, str]] | None = None
) -> list[ActedOn]:
    """Each done action with when it was done, its decisions, and the decisions a follow-up would rest on; `state`
    keeps what a refused form had (by action id: title, reason, error)."""
    done = agents_selectors.actions_done_when(workspace=workspace, action_ids=[a.id for a in actions])
    ids = list(dict.fromkeys(d for a in actions for d in a.decision_ids))
    decisions = {d.id: d for d in agents_selectors.decisions_get(workspace=workspace, decision_ids=ids)}
    standing = standing_in(workspace, list(decisions.values()))
    items = []
    for action in actions:
        own = [decisions[d] for d in action.decision_ids if d in decisions]
        holding = list({s.id: s for d in own if holds_now(s := standing[d.id])}.values())
        typed = (state or {}).get(action.id, {})
        item = ActedOn(action, done.get(action.id), own, holding, title=typed.get("title", ""),
                       reason=typed.get("reason", ""), error=typed.get("error", ""))  # fmt: skip
        items.append(item)
    return items
