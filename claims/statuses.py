"""Statuses of the claims app's nodes, shared by the code, the pages and the API's schemas."""

from __future__ import annotations

from enum import StrEnum


class ClaimStatus(StrEnum):
    """Whether a claim holds: current, replaced by a correction, its evidence gone, or its support gone; or, for an
    agent's claim in a workspace that asks for approval, proposed (waiting for a reviewer: never citable) or rejected
    (a reviewer turned it down)."""

    CURRENT = "current"
    SUPERSEDED = "superseded"
    RETRACTED = "retracted"
    UNSUPPORTED = "unsupported"
    PROPOSED = "proposed"
    REJECTED = "rejected"


class SourceStatus(StrEnum):
    """Whether a source may still be cited: active, or retracted with every claim that quoted it."""

    ACTIVE = "active"
    RETRACTED = "retracted"


class JobStatus(StrEnum):
    """Where a long job stands: an extraction here, an agent run in the agents app."""

    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


class ConfidenceKind(StrEnum):
    """Where a claim's evidence comes from, which is what its confidence means."""

    RULE_MATCH = "rule_match"
    MODEL = "model"
    MANUAL = "manual"
    DERIVED = "derived"
    HUMAN_CORRECTION = "human_correction"


class SearchMode(StrEnum):
    """How claims are searched: by their words (fulltext), by meaning (vectors), or both fused."""

    LEXICAL = "lexical"
    SEMANTIC = "semantic"
    HYBRID = "hybrid"


class Match(StrEnum):
    """How a search result matched the query: by its words, by its meaning, or both."""

    LEXICAL = "lexical"
    SEMANTIC = "semantic"
    BOTH = "both"
