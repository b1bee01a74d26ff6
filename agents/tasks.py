"""Celery tasks of the agents app: thin wrappers that take ids and call one service."""

from __future__ import annotations

from celery import shared_task

from afterhack.jobs import run_job
from agents.services import runs as run_services
from workspaces.selectors import memberships as membership_selectors


@shared_task
def execute_run(workspace_id: str, run_id: str) -> str | None:
    """Runs one queued agent run; returns its final status."""
    return run_job(
        membership_selectors.workspace_get(workspace_id=workspace_id), run_id,
        work=lambda workspace: run_services.run_execute(workspace=workspace, run_id=run_id),
        give_up=lambda workspace: run_services.run_fail_unexpectedly(workspace=workspace, run_id=run_id),
    )  # fmt: skip
