"""Timestamps as the graph stores them (ISO 8601 UTC), and when a long job counts as stalled."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta

from afterhack.errors import UserError

# A job (extraction, agent run) that has not reported progress for this long is taken to have
# died with its worker: it no longer blocks a new one and is shown as failed.
STALE_AFTER = timedelta(minutes=10)


def now_iso() -> str:
    """The current time as ISO 8601 UTC, the form every graph timestamp takes."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


def epoch_ms(moment: str) -> int:
    """An ISO 8601 time (as `now_iso` gives) in milliseconds since the epoch: kept beside the text where a window of
    it must be read through a range index, which FalkorDB 4.22 answers rightly for numbers but not for strings
    (a `<` bound on a string parameter is dropped: FalkorDB issue #2239, workspaces/graph.py `is_time`)."""
    return int(datetime.fromisoformat(moment).timestamp() * 1000)


def stale_before() -> str:
    """The timestamp before which a job's last progress means it has stalled."""
    return (datetime.now(UTC) - STALE_AFTER).isoformat(timespec="microseconds")


def is_stale(updated_at: str | None) -> bool:
    """True when a job last reported progress longer than STALE_AFTER ago."""
    return bool(updated_at) and str(updated_at) < stale_before()


STALLED_ERROR = "It stopped reporting progress (its worker may have stopped); start it again."


class BadMoment(UserError):
    """A moment that cannot be read; the message says why, in words (answered 422 invalid_input)."""


def moment_iso(value: str, *, name: str = "as_of", day_starts: bool = False) -> str:
    """A moment given by a person or a program (ISO 8601: a date, a date and time, with or without an offset;
    without one it is UTC) as the graph stores times, so string comparison orders it among them.
    A date alone means the end of that day (UTC): "as of 12 May" includes what happened on 12 May; with
    `day_starts` (the start of a window: "changes from 5 May") it means the start of that day.
    BadMoment, in words, for anything else."""
    text = (value or "").strip()
    if re.fullmatch(r".+T.+ \d{2}:?\d{2}", text):
        # An address's unencoded "+02:00" arrives as " 02:00": read the space as the plus it was.
        text = text[: text.rindex(" ")] + "+" + text[text.rindex(" ") + 1 :]
    try:
        day = date.fromisoformat(text)  # a date alone, in any ISO form (2026-05-12, 20260512, 2026-W20-2)
    except ValueError:
        day = None
    try:
        if day is not None:
            moment = datetime.combine(day, time.min if day_starts else time.max)
        else:
            moment = datetime.fromisoformat(text.replace("z", "Z"))
    except ValueError:
        raise BadMoment(
            f"“{name}” must be a moment in ISO 8601, like 2026-05-12T09:30:00Z or 2026-05-12; {text[:40]!r} is not one."
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:
        return moment.astimezone(UTC).isoformat(timespec="microseconds")
    except OverflowError:
        raise BadMoment(f"“{name}” is out of range; give a moment between the years 1 and 9999.") from None
