"""Statuses of decisions and actions, shared by the code, the pages and the API's schemas."""

from __future__ import annotations

from enum import StrEnum


class DecisionStatus(StrEnum):
    """Whether a decision still rests on something that holds, or was replaced by a revision."""

    SUPPORTED = "supported"
    NEEDS_REVIEW = "needs_review"
    SUPERSEDED = "superseded"


class DecisionKind(StrEnum):
    """What a decision is: made by a person, the agent's answer, or a question the agent could not answer."""

    MANUAL = "manual"
    AGENT = "agent"
    UNANSWERED = "unanswered"


class RevisedActions(StrEnum):
    """What a revision does with the open (pending or held) actions of the decision it replaces."""

    MOVE = "move"
    CANCEL = "cancel"


class ActionStatus(StrEnum):
    """Where an action stands; held while a decision it depends on needs review."""

    PENDING = "pending"
    HELD = "held"
    DONE = "done"
    CANCELLED = "cancelled"


class Origin(StrEnum):
    """Who made a decision or an action: a person, or the agent."""

    REVIEWER = "reviewer"
    AGENT = "agent"
