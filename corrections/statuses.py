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


class NextStep(StrEnum):
    """What a change to something an agent relied on asks of it (`GET …/changes?cited_by=me`, MCP what_changed):
    cite the claim that replaced a superseded one, stop citing one that no longer holds, cite a proposed claim now
    approved, re-check a decision that lost its support, rely on the decision that replaced one, drop a decision a
    reviewer dismissed, read the later change of something that changed again since, or nothing."""

    USE_CLAIM = "use_claim"
    STOP_CITING = "stop_citing"
    CITE_NOW = "cite_now"
    RECHECK_DECISION = "recheck_decision"
    USE_DECISION = "use_decision"
    DROP_DECISION = "drop_decision"
    SEE_LATER_CHANGE = "see_later_change"
    NOTHING = "nothing"
