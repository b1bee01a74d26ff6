"""How a guarded write (an apply, a retraction, a new version) tries again when unrelated writes keep slipping in
between: how many times, and the pause at random before each attempt."""

from __future__ import annotations

import random
import time

# A guarded write (an apply, a retraction, a new version) recomputes what it would do and tries
# again this many times when unrelated writes keep slipping in between, after a pause drawn at random up to
# RETRY_PAUSE_S doubled at each attempt (at most RETRY_PAUSE_CAP_S): writers that collided once do not collide again
# in step. 8 processes applying corrections to disjoint claims of one workspace at once had 87 of 480 refused after 5
# immediate attempts; with these pauses and attempts, 5 to 11 (docs/benchmarks.md, "Many appliers in one workspace").
WRITE_ATTEMPTS = 10
RETRY_PAUSE_S = 0.001
RETRY_PAUSE_CAP_S = 0.032


def pause(attempt: int) -> None:
    """Before attempt `attempt` (from 0) of a guarded write: nothing before the first."""
    if attempt:
        _sleep(random.uniform(0, min(RETRY_PAUSE_CAP_S, RETRY_PAUSE_S * 2**attempt)))  # noqa: S311 - a jitter, not a secret


_sleep = time.sleep  # the tests count the pauses here
