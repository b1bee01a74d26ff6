"""Running one background job (a Celery task body) for a workspace, so a crash never leaves it 'running'."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import Any

from afterhack.graph import GraphError

logger = logging.getLogger("afterhack.jobs")


def run_job[W](workspace: W | None, job_id: str, work: Callable[[W], Any], give_up: Callable[[W], None]) -> str | None:
    """Runs `work(workspace)`; on any unexpected error calls `give_up(workspace)`; returns the job's final status.
    A workspace deleted since the job was queued (None) leaves nothing to do."""
    if workspace is None:
        return None
    try:
        outcome = work(workspace)
    except Exception:
        logger.exception("job %s crashed", job_id)
        # Best effort: if the graph itself is down, this fails too and the job shows as stalled.
        with contextlib.suppress(GraphError):
            give_up(workspace)
        return "failed"
    return getattr(outcome, "status", None)
