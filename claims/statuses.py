"""Statuses of the claims app's nodes, shared by the code, the pages and the API's schemas."""

from __future__ import annotations

from enum import StrEnum


class ClaimStatus(StrEnum):
    """Whether a claim holds: current, replaced by a correction, its evidence gone, or its support gone."""

    CURRENT = "current"
    SUPERSEDED = "superseded"
    RETRACTED = "retracted"
    UNSUPPORTED = "unsupported"


class SourceStatus(StrEnum):
    ACTIVE = "active"
    RETRACTED = "retracted"


class JobStatus(StrEnum):
    """Where a long job stands: an extraction here, an agent run in the agents app."""

    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
