"""Timestamps as the graph stores them (ISO 8601 UTC), and when a long job counts as stalled."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

# A job (extraction, agent run) that has not reported progress for this long is taken to have
# died with its worker: it no longer blocks a new one and is shown as failed.
STALE_AFTER = timedelta(minutes=10)


def now_iso() -> str:
    """The current time as ISO 8601 UTC, the form every graph timestamp takes."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


def stale_before() -> str:
    """The timestamp before which a job's last progress means it has stalled."""
    return (datetime.now(UTC) - STALE_AFTER).isoformat(timespec="microseconds")


def is_stale(updated_at: str | None) -> bool:
    """True when a job last reported progress longer than STALE_AFTER ago."""
    return bool(updated_at) and str(updated_at) < stale_before()


STALLED_ERROR = "It stopped reporting progress (its worker may have stopped); start it again."
