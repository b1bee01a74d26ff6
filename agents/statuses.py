"""Statuses of decisions and actions, shared by the code, the pages and the API's schemas."""

from __future__ import annotations

from enum import StrEnum


class DecisionStatus(StrEnum):
    """Whether a decision still rests on something that holds."""

    SUPPORTED = "supported"
    NEEDS_REVIEW = "needs_review"


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
