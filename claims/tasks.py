"""Celery tasks of the claims app: thin wrappers that take ids and call one service."""

from __future__ import annotations

import contextlib
import logging

from celery import shared_task

from afterhack.graph import GraphError
from claims import services
from workspaces.models import Workspace

logger = logging.getLogger("claims")


@shared_task
def run_extraction(workspace_id: str, extraction_id: str) -> str | None:
    """Runs one queued extraction; returns its final status."""
    workspace = Workspace.objects.filter(id=workspace_id).first()
    if workspace is None:
        return None
    try:
        extraction = services.extraction_run(workspace=workspace, extraction_id=extraction_id)
    except Exception:
        logger.exception("extraction %s crashed", extraction_id)
        # Best effort: if the graph itself is down, this fails too and the extraction shows as stalled.
        with contextlib.suppress(GraphError):
            services.extraction_fail_unexpectedly(workspace=workspace, extraction_id=extraction_id)
        return "failed"
    return extraction.status if extraction else None
