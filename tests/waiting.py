"""Waiting in tests for something to happen: ask until it holds or a deadline passes, never sleep a fixed time.

A fixed sleep is too short on a loaded machine and wasted on a quiet one. A sleep that remains in the suite is the
behaviour under test (a slow client trickling bytes, a moment that must pass) and says so in a comment.
"""

from __future__ import annotations

import time
from collections.abc import Callable


def poll[T](condition: Callable[[], T], *, seconds: float, every: float = 0.05) -> T | None:
    """The condition's first true value, asked every `every` seconds for up to `seconds`; None if it never held."""
    deadline = time.monotonic() + seconds
    while True:
        if value := condition():
            return value
        if time.monotonic() >= deadline:
            return None
        time.sleep(every)


def wait_until[T](
    condition: Callable[[], T], *, seconds: float, what: str | Callable[[], str], every: float = 0.05
) -> T:
    """As `poll`, but fails the test, naming what it waited for (`what`, or what it returns), if it never held."""
    value = poll(condition, seconds=seconds, every=every)
    if value is None:
        raise AssertionError(f"waited {seconds:g} s for {what() if callable(what) else what}, in vain")
    return value
