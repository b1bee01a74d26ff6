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
def claims_watch(workspace_id: str, claim_ids: list[str]) -> dict[str, int]:
    """The contradiction watch on claims that became current; returns what it did (claims watched, suggestions by
    the rule and by the model, the model's calls, failures and tokens: the task's result, and a log line)."""
    workspace = membership_selectors.workspace_get(workspace_id=workspace_id)
    if workspace is None:
        return {}
    return watch_services.watch(workspace=workspace, claim_ids=claim_ids).as_dict()


@shared_task
def watches_sweep() -> dict[str, int]:
    """Watches the claims whose queued watch was lost (the broker down, a worker killed): current claims of the last
    day, never watched, a batch a workspace (Celery beat, every minute); returns what it did."""
    return watch_services.watches_sweep().as_dict()
