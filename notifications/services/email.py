"""Notifications by email, through Django's email framework (the console backend unless EMAIL_HOST names an SMTP
server): each at once for people whose preference is instant, a daily digest for those who chose it, none for
"off" or for a person without an email address (they read the inbox). An email holds only text of the workspaces it
names, and goes only to a current member of them: membership is checked again when it is sent.

At most once: the rows of each email are claimed (`emailed_at` set, in a small transaction of their own that holds
them FOR UPDATE SKIP LOCKED) just before the email is handed to the mail server, one email at a time over one open
connection. So two workers never email one notification twice, and a failure partway through a batch never emails
those already emailed again. An email the server refuses (its recipient, or for good its content) is recorded on its
notifications (`email_error`) and not tried again. A failure of the server or the connection stops the batch: the
emails not yet tried are left for the retry and the sweep, and the one in flight is recorded as maybe not arrived
(it is not sent again)."""

from __future__ import annotations

import logging
import smtplib
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from datetime import timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.core.mail import EmailMessage, mailers
from django.db import transaction
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone

from afterhack.errors import UserError
from notifications.models import MAX_EMAIL_ERROR_CHARS, EmailPreference, Notification
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
    candidates = list(rows.order_by("pk").values_list("pk", flat=True)[:BATCH])
    # Each claim checks again that the notification is still to be emailed at once (unread, unemailed, a member's).
    return _send_one_at_a_time(
        [partial(_claim, _instant(Notification.objects.filter(pk=pk))) for pk in candidates],
        lambda held: _instant_message(held[0]),
    )


def email_digests() -> int:
    """Sends each person whose preference is the daily digest one email listing their unread notifications not
    emailed yet (of the workspaces they are still members of); answers how many emails were sent."""
    digest_users = EmailPreference.objects.filter(mode=EmailMode.DIGEST.value).values("user_id")
    rows = _emailable(Notification.objects.filter(user_id__in=digest_users))
    by_user: dict[int, list[int]] = defaultdict(list)
    for user_id, pk in rows.order_by("user_id", "pk").values_list("user_id", "pk")[: BATCH * 10]:
        by_user[user_id].append(pk)
    claims = [
        partial(
            _claim,
            _emailable(Notification.objects.filter(pk__in=ids, user__email_preference__mode=EmailMode.DIGEST.value))
            .order_by("workspace__name", "workspace_id", "created_at", "pk"),
        )
        for ids in by_user.values()
    ]  # fmt: skip
    return _send_one_at_a_time(claims, _digest_message)


def _claim(rows: QuerySet[Notification]) -> list[Notification]:
    """Marks `rows` emailed in a small transaction of its own (those another worker holds are passed over), before
    their email is sent: at most once. Answers the rows claimed."""
    with transaction.atomic():
        held = list(rows.select_related("user", "workspace").select_for_update(skip_locked=True, of=("self",)))
        if held:
            Notification.objects.filter(pk__in=[n.pk for n in held]).update(emailed_at=timezone.now())
    return held


def _send_one_at_a_time(
    claims: Sequence[Callable[[], list[Notification]]], compose: Callable[[list[Notification]], EmailMessage]
) -> int:
    """Over one connection, one email per claim: claims its rows, then hands the email over. A refused email is
    recorded on its rows; a failure of the server or the connection stops the batch and is raised (the caller's
    retry, or the sweep, sends what was not tried). Answers how many emails were handed over."""
    if not claims:
        return 0
    sent = 0
    with mailers.default as connection:
        for claim in claims:
            held = claim()
            if held and _hand_over(connection, compose(held), held):
                sent += 1
    return sent


def _hand_over(connection: Any, message: EmailMessage, held: list[Notification]) -> bool:
    """Sends one email; answers whether the server took it, or False when it refused it for good (recorded)."""
    try:
        connection.send_messages([message])
    except Exception as error:
        if _refused(error):
            _record(held, f"Refused by the mail server: {_why(error)}")
            return False
        if _not_sent(error):
            # Refused before the message was sent, for every email alike (the sender, the greeting, a busy server):
            # this one is tried again with the rest.
            Notification.objects.filter(pk__in=[n.pk for n in held]).update(emailed_at=None)
        else:
            _record(held, f"The mail server or the connection failed while it was sent (not sent again): {_why(error)}")
        raise
    return True


def _refused(error: Exception) -> bool:
    """The server refused this email for good: its recipient (or an address that cannot be written), its content."""
    if isinstance(error, (smtplib.SMTPRecipientsRefused, ValueError)):
        return True
    return isinstance(error, smtplib.SMTPDataError) and 500 <= error.smtp_code < 600


def _not_sent(error: Exception) -> bool:
    """The server did not take the message, and would answer the same to any email (the sender refused, a 4xx)."""
    return isinstance(error, (smtplib.SMTPSenderRefused, smtplib.SMTPHeloError, smtplib.SMTPDataError))


def _why(error: Exception) -> str:
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        answers = [f"{code} {_text(reply)}" for code, reply in error.recipients.values()]
        return "; ".join(answers) or "no recipient taken"
    if isinstance(error, smtplib.SMTPResponseException):
        return f"{error.smtp_code} {_text(error.smtp_error)}"
    return f"{type(error).__name__}: {error}"


def _text(reply: object) -> str:
    return reply.decode(errors="replace") if isinstance(reply, bytes) else str(reply)


def _record(held: list[Notification], why: str) -> None:
    """Writes why the email of these notifications may not have arrived (shown in the log, never to members)."""
    ids = [n.pk for n in held]
    Notification.objects.filter(pk__in=ids).update(email_error=" ".join(why.split())[:MAX_EMAIL_ERROR_CHARS])
    logger.warning("the email of notifications %s may not have arrived: %s", ids, why.split(":")[0])


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
