"""The project's named vocabulary and text limits, given to every template so pages use them by name."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from afterhack.text import LIMITS
from agents.statuses import (
    ActionStatus,
    DecisionKind,
    DecisionStatus,
    FollowUp,
    Origin,
    RunAgent,
    RunOrigin,
    TrajectoryEventKind,
)
from claims.statuses import ClaimStatus, ConfidenceKind, JobStatus, SourceStatus
from corrections.statuses import FoundBy, SuggestionKind, SuggestionStatus

VOCABULARY: tuple[type[StrEnum], ...] = (
    ClaimStatus,
    SourceStatus,
    JobStatus,
    ConfidenceKind,
    DecisionStatus,
    DecisionKind,
    ActionStatus,
    FollowUp,
    Origin,
    RunAgent,
    RunOrigin,
    TrajectoryEventKind,
    SuggestionStatus,
    SuggestionKind,
    FoundBy,
)


def vocabulary(request: Any) -> dict[str, Mapping[str, object]]:
    """Each enum by its class name, as a mapping of member names (`{% if claim.status == ClaimStatus.CURRENT %}`),
    and the text limits as `limits` (`maxlength="{{ limits.MAX_TITLE_CHARS }}"`)."""
    # The members mapping, not the class: a template would call the class, as it calls any callable.
    enums: dict[str, Mapping[str, object]] = {enum.__name__: enum.__members__ for enum in VOCABULARY}
    return {**enums, "limits": LIMITS}
