"""Notifications by email, through Django's email framework (the console backend unless EMAIL_HOST names an SMTP
server): each at once for people whose preference is instant, a daily digest for those who chose it, none for
"off" or for a person without an email address (they read the inbox). An email holds only text of the workspaces it
names, and goes only to a current member of them: membership is checked again when it is sent. Sending holds the
rows it sends (FOR UPDATE SKIP LOCKED), so two workers never email one notification twice."""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Iterable
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.mail import EmailMessage, mailers
from django.db import transaction
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone

from afterhack.errors import UserError
from notifications.models import EmailPreference, Notification
from notifications.statuses import EmailMode
from workspaces.models import Membership

logger = logging.getLogger(__name__)

SUBJECT_CHARS = 150
# Instant emails the worker never got to (the broker was down when they were queued) are sent by the sweep, if they
# are at least this old (the queued task had its chance) and at most a day old (older news goes unemailed).
SWEEP_AFTER = timedelta(minutes=2)
SWEEP_WITHIN = timedelta(days=1)
# At most this many emails are sent in one go (one SMTP connection).
BATCH = 500


def email_soon(notification_ids: Iterable[int]) -> None:
    """After the commit that wrote them, queues the instant emails of these notifications (the worker sends them)."""
    ids = list(notification_ids)
    if not ids:
        return
    from notifications import tasks

    transaction.on_commit(lambda: _queue(tasks.email_notifications.delay, ids))


def _queue(send: Callable[[list[int]], Any], ids: list[int]) -> None:
    # A broker that is down must not fail the caller's request: the sweep sends these later.
    try:
        send(ids)
    except Exception:  # noqa: BLE001 - any failure to queue leaves the notifications for the sweep
        logger.warning("could not queue the emails of %d notifications; the sweep will send them", len(ids))


def _emailable(rows: QuerySet[Notification]) -> QuerySet[Notification]:
    """The unread, unemailed notifications among `rows` of people with an email address who are still members."""
    member = Membership.objects.filter(user_id=OuterRef("user_id"), workspace_id=OuterRef("workspace_id"))
    return rows.filter(Exists(member), emailed_at__isnull=True, read_at__isnull=True).exclude(user__email="")


def _instant(rows: QuerySet[Notification]) -> QuerySet[Notification]:
    return _emailable(rows).filter(
        Q(user__email_preference__isnull=True) | Q(user__email_preference__mode=EmailMode.INSTANT.value)
    )


def email_instant(*, notification_ids: Iterable[int]) -> int:
    """Emails each of these notifications to its person whose preference is instant; answers how many were sent."""
    return _send_each(_instant(Notification.objects.filter(pk__in=list(notification_ids))))


def email_sweep() -> int:
    """Emails the instant notifications of the last day whose queued email never ran; answers how many."""
    now = timezone.now()
    return _send_each(_instant(Notification.objects.filter(created_at__range=(now - SWEEP_WITHIN, now - SWEEP_AFTER))))


def _send_each(rows: QuerySet[Notification]) -> int:
    with transaction.atomic():
        held = list(rows.select_related("user", "workspace").select_for_update(skip_locked=True, of=("self",))[:BATCH])
        if not held:
            return 0
        mailers.default.send_messages([_instant_message(n) for n in held])
        Notification.objects.filter(pk__in=[n.pk for n in held]).update(emailed_at=timezone.now())
    return len(held)


def email_digests() -> int:
    """Sends each person whose preference is the daily digest one email listing their unread notifications not
    emailed yet (of the workspaces they are still members of); answers how many emails were sent."""
    digest_users = EmailPreference.objects.filter(mode=EmailMode.DIGEST.value).values("user_id")
    with transaction.atomic():
        held = list(
            _emailable(Notification.objects.filter(user_id__in=digest_users))
            .select_related("user", "workspace")
            .select_for_update(skip_locked=True, of=("self",))
            .order_by("user_id", "workspace__name", "created_at")[: BATCH * 10]
        )
        by_user: dict[int, list[Notification]] = defaultdict(list)
        for notification in held:
            by_user[notification.user_id].append(notification)
        if not by_user:
            return 0
        mailers.default.send_messages([_digest_message(notices) for notices in by_user.values()])
        Notification.objects.filter(pk__in=[n.pk for n in held]).update(emailed_at=timezone.now())
    return len(by_user)


def set_email_mode(*, user: Any, mode: object) -> EmailMode:
    """Sets how the person wants their notifications emailed: instant, digest or off."""
    if mode not in {*EmailMode}:
        raise UserError("Choose how to get email: instant (each at once), digest (one a day) or off.")
    chosen = EmailMode(str(mode))
    EmailPreference.objects.update_or_create(user=user, defaults={"mode": chosen.value})
    return chosen


def link(path: str) -> str:
    """The address of one of the app's pages, for an email (AFTERHACK_PUBLIC_URL and the path)."""
    return settings.AFTERHACK_PUBLIC_URL.rstrip("/") + path


def _footer(mode: EmailMode) -> str:
    how = "each at once" if mode == EmailMode.INSTANT else "in one email a day"
    return (
        f"All your notifications: {link('/notifications/')}\n"
        f"You get these emails {how}; choose instant, a daily digest or none at {link('/notifications/email')}.\n"
    )


def _instant_message(notification: Notification) -> EmailMessage:
    subject = f"[Afterhack] {notification.workspace.name}: {notification.text}"
    body = (
        f"{notification.text}\n\n"
        f"Workspace: {notification.workspace.name}\n"
        f"Why you are told: {notification.reason}.\n"
        f"Open it: {link(notification.url)}\n\n" + _footer(EmailMode.INSTANT)
    )
    return EmailMessage(_one_line(subject), body, to=[notification.user.email])


def _digest_message(notifications: list[Notification]) -> EmailMessage:
    count = len(notifications)
    lines = [f"{count} notification{'s' if count != 1 else ''} since your last digest.", ""]
    workspace = None
    for notification in notifications:
        if notification.workspace_id != workspace:
            workspace = notification.workspace_id
            lines += ["", f"In “{notification.workspace.name}”:"]
        lines.append(f"- {notification.text} ({notification.reason}) {link(notification.url)}")
    subject = f"[Afterhack] Your daily digest: {count} notification{'s' if count != 1 else ''}"
    body = "\n".join(lines) + "\n\n" + _footer(EmailMode.DIGEST)
    return EmailMessage(subject, body, to=[notifications[0].user.email])


def _one_line(subject: str) -> str:
    """A subject of one line, cut with an ellipsis (a header may not hold a line break)."""
    flat = " ".join(subject.split())
    return flat if len(flat) <= SUBJECT_CHARS else flat[: SUBJECT_CHARS - 1] + "…"
