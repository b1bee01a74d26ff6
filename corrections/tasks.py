"""Celery tasks of the corrections app."""

from __future__ import annotations

from celery import shared_task

from corrections import intents


@shared_task
def recover_corrections() -> dict[str, int]:
    """Settles correction intents left pending by a crashed process."""
    report = intents.recover()
    return {"completed": report.completed, "failed": report.failed, "busy": report.busy}
