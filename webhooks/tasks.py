"""Celery tasks of the webhooks app: thin wrappers that call one service."""

from __future__ import annotations

from celery import shared_task

from webhooks.services import deliveries


@shared_task
def send_messages(message_ids: list[str]) -> int:
    """Sends the due ones of these messages (queued after the transaction that made them committed, or a soon
    retry); answers how many were sent."""
    return deliveries.send_due(message_ids=message_ids)


@shared_task
def send_due() -> int:
    """Sends every message whose attempt is due (the beat, every few seconds); answers how many were sent."""
    return deliveries.send_due()


@shared_task
def prune_log() -> int:
    """Removes settled messages older than AFTERHACK_WEBHOOK_LOG_DAYS, with their attempts (the beat, hourly)."""
    return deliveries.prune_log()
