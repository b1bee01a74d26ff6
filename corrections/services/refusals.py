"""Why a suggestion cannot be decided, in words: the same refusals for accepting one (a correction), turning one
down and approving an agent's claim, each said from one table (docs/suggestions.md)."""

from __future__ import annotations

from enum import StrEnum

from afterhack.errors import Conflict, UserError
from corrections.statuses import SuggestionKind, SuggestionStatus


class Doing(StrEnum):
    """What a reviewer was doing with a suggestion, as the refusal's last words say it."""

    ACCEPT = "accepted"
    TURN_DOWN = "turned down"
    APPROVE = "approved"


# What a suggestion that is no longer open already is, by its kind and status.
_DECIDED: dict[tuple[SuggestionKind, SuggestionStatus], str] = {
    (SuggestionKind.CONTRADICTION, SuggestionStatus.ACCEPTED): "is already accepted (a correction was made of it)",
    (SuggestionKind.CONTRADICTION, SuggestionStatus.REJECTED): "is already turned down",
    (SuggestionKind.CONTRADICTION, SuggestionStatus.OBSOLETE): "is obsolete (one of its claims is no longer current)",
    (SuggestionKind.AGENT_CLAIM, SuggestionStatus.ACCEPTED): "is already approved (its claim is current)",
    (SuggestionKind.AGENT_CLAIM, SuggestionStatus.REJECTED): "is already rejected (its claim will never be current)",
    (SuggestionKind.AGENT_CLAIM, SuggestionStatus.OBSOLETE): "is obsolete (its claim can no longer be approved)",
}


class SuggestionNotOpen(Conflict):
    """409: the suggestion was decided already (or is obsolete), so it cannot be accepted, turned down or approved."""

    def __init__(self, status: SuggestionStatus, doing: Doing, *, kind: SuggestionKind) -> None:
        state = _DECIDED.get((kind, status), f"is {status}")
        super().__init__(f"This suggestion {state}; only an open suggestion can be {doing} (nothing was stored).")


class ProposerCannotDecide(UserError):
    """403: the person (or their agent, with their token) who proposed the claim or flagged the contradiction is
    deciding it; another reviewer must. Said so, in words, with nothing stored."""

    code = "forbidden"
    status = 403

    def __init__(self, kind: SuggestionKind) -> None:
        super().__init__(
            "You proposed this claim through an agent; another reviewer must approve it (nothing was stored)."
            if kind == SuggestionKind.AGENT_CLAIM
            else "You flagged this contradiction (yourself or through an agent); another reviewer must accept it "
            "(nothing was stored)."
        )


def proposed_by(created_by: str | None, actor: str) -> bool:
    """Whether the suggestion was proposed or flagged by `actor` (a name, as workspaces.services.actor_name gives
    it): one found by the rule or the model has no author."""
    return bool(created_by) and created_by == actor
