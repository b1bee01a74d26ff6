"""Celery tasks of the corrections app."""

from __future__ import annotations

from celery import shared_task

from corrections import intents
from corrections.services import watch as watch_services
from workspaces.selectors import memberships as membership_selectors


@shared_task
def recover_corrections() -> dict[str, int]:
    """Settles correction intents left pending by a crashed process."""
    report = intents.recover()
    return {"completed": report.completed, "failed": report.failed, "busy": report.busy}


@shared_task
def claims_watch(workspace_id: str, claim_ids: list[str]) -> int:
    """The contradiction watch on claims that became current; returns how many suggestions it stored."""
    workspace = membership_selectors.workspace_get(workspace_id=workspace_id)
    return watch_services.claims_watch(workspace=workspace, claim_ids=claim_ids) if workspace else 0
