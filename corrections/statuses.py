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
