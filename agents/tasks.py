"""Celery tasks of the agents app: thin wrappers that take ids and call one service."""

from __future__ import annotations

import contextlib
import logging

from celery import shared_task

from afterhack.graph import GraphError
from agents import services
from workspaces.models import Workspace

logger = logging.getLogger("agents")


@shared_task
def execute_run(workspace_id: str, run_id: str) -> str | None:
    """Runs one queued agent run; returns its final status."""
    workspace = Workspace.objects.filter(id=workspace_id).first()
    if workspace is None:
        return None
    try:
        run = services.run_execute(workspace=workspace, run_id=run_id)
    except Exception:
        logger.exception("run %s crashed", run_id)
        # Best effort: if the graph itself is down, this fails too and the run shows as stalled.
        with contextlib.suppress(GraphError):
            services.run_fail_unexpectedly(workspace=workspace, run_id=run_id)
        return "failed"
    return run.status if run else None
