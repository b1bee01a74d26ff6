"""Statuses of the corrections app, shared by the code, the pages and the API's schemas."""

from __future__ import annotations

from enum import StrEnum


class ApplyStatus(StrEnum):
    """What an Apply did: wrote the correction, or found it already written under the same idempotency key."""

    APPLIED = "applied"
    ALREADY_APPLIED = "already_applied"


class CorrectionImpact(StrEnum):
    """What a correction did downstream, as the history filters it: sent decisions to review, held actions, left
    derived claims unsupported, or left everything standing."""

    REVIEW = "review"
    HELD = "held"
    UNSUPPORTED = "unsupported"
    NONE = "none"


class SuggestionStatus(StrEnum):
    """Where a suggested correction stands: waiting for a reviewer, made into a correction, turned down (that
    pair is never suggested again), or closed by itself because one of its claims stopped being current."""

    OPEN = "open"
    ACCEPTED = "accepted"
    REJECTED = "rejected"
    OBSOLETE = "obsolete"


class SuggestionKind(StrEnum):
    """What a suggestion proposes: correcting a claim another says otherwise about, or approving an agent's claim."""

    CONTRADICTION = "contradiction"
    AGENT_CLAIM = "agent_claim"


class FoundBy(StrEnum):
    """Who or what found a suggestion: the offline rule, the model, an agent (MCP or an agent run), or a person."""

    RULE = "rule"
    MODEL = "model"
    AGENT = "agent"
    PERSON = "person"
