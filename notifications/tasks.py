"""Celery tasks of the notifications app: the dispatcher of the outbox, and the emails."""

from __future__ import annotations

import smtplib

from celery import shared_task

from notifications import outbox
from notifications.services import email as email_services

# An SMTP server that fails is tried again later: after 1, 2, 4, 8 and 16 minutes (what it had not been handed).
RETRIES = 5


@shared_task(bind=True, max_retries=RETRIES)
def email_notifications(self: object, notification_ids: list[int]) -> int:
    """Sends the instant emails of these notifications; answers how many were sent."""
    try:
        return email_services.email_instant(notification_ids=notification_ids)
    except (OSError, smtplib.SMTPException) as error:
        raise self.retry(exc=error, countdown=60 * 2**self.request.retries) from error  # type: ignore[attr-defined]


@shared_task
def email_sweep() -> int:
    """Sends the instant emails whose queued task never ran (Celery beat, every five minutes)."""
    return email_services.email_sweep()


@shared_task(bind=True, max_retries=RETRIES)
def email_digests(self: object) -> int:
    """Sends the daily digests (Celery beat, once a day); what a failing SMTP server left unsent is tried again."""
    try:
        return email_services.email_digests()
    except (OSError, smtplib.SMTPException) as error:
        raise self.retry(exc=error, countdown=60 * 2**self.request.retries) from error  # type: ignore[attr-defined]


@shared_task
def tell_pending() -> dict[str, int]:
    """Tells what the outbox holds (queued after each commit that wrote to it, and by Celery beat every 30 seconds
    for whatever a lost queueing left), and sends its webhook messages' first attempt."""
    return outbox.tell_all(send_now=True).as_dict()
