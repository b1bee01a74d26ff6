"""The webhooks app's words: the event kinds an endpoint subscribes to, and the states of a message."""

from __future__ import annotations

from enum import StrEnum


class EventKind(StrEnum):
    """What a webhook is told about (the `type` of a delivery's body)."""

    CORRECTION_APPLIED = "correction.applied"
    DECISION_NEEDS_REVIEW = "decision.needs_review"
    ACTION_HELD = "action.held"
    ACTION_FOLLOW_UP_NEEDED = "action.follow_up_needed"
    SUGGESTION_CREATED = "suggestion.created"
    CLAIM_RETRACTED = "claim.retracted"
    SOURCE_NEW_VERSION = "source.new_version"


class MessageState(StrEnum):
    """A message to one endpoint: still to be sent (or retried), delivered (a 2xx), or failed after its retries."""

    PENDING = "pending"
    DELIVERED = "delivered"
    FAILED = "failed"
