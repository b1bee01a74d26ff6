"""The dispatcher: what the outbox (workspaces.models.Tell, written with the audit event of each change that tells)
still has to tell, turned into notifications for people and messages for webhooks, exactly once.

Each batch is one transaction: the Tell rows taken with FOR UPDATE SKIP LOCKED (several workers never tell one event
twice), each event's teller asked what to tell and whom (workspaces/registry.py `Teller`, registered by the app whose
verb it is), its notifications and webhook messages written (both unique per event, so even a second telling writes
nothing new), and the Tell rows deleted. Sending happens after the commit: the webhook messages' first attempt and the
instant emails are queued then, and the messages' own schedule retries whatever fails. A teller that fails (a store
down) leaves its event for the next run, counted and logged; the rest of the batch is told."""

from __future__ import annotations

import logging
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from afterhack.graph import GraphError
from notifications.selectors.watches import watchers
from notifications.services.email import email_soon
from notifications.services.notices import Notice, notify
from webhooks.services.deliveries import enqueue, send_due, send_soon
from workspaces import registry
from workspaces.models import AuditEvent, Membership, Role, Tell, Workspace

logger = logging.getLogger("notifications")

BATCH = 100
# An event that could not be told is tried again after 2, 4, 8 … seconds, at most an hour apart.
MAX_RETRY_SECONDS = 3600
WATCHING = "you watch what changed"


@dataclass
class TellReport:
    """What one run of the dispatcher did."""

    events: int = 0
    notifications: list[int] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    failed: int = 0

    def as_dict(self) -> dict[str, int]:
        return {"events": self.events, "notifications": len(self.notifications), "messages": len(self.messages),
                "failed": self.failed}  # fmt: skip


def _members(workspace: Workspace) -> dict[str, tuple[int, str]]:
    """The workspace's members by username: (user id, role)."""
    rows = Membership.objects.filter(workspace=workspace).values_list("user__username", "user_id", "role")
    return {username: (user_id, role) for username, user_id, role in rows}


def _who(event: AuditEvent, telling: registry.Telling, members: dict[str, tuple[int, str]]) -> dict[int, str]:
    """Who is told of one event (user id → why), each person once: named people first, then the reviewers, then the
    watchers; members only, never the event's own actor."""
    assert event.workspace is not None
    people = dict(telling.people)
    for why, roles in ((telling.reviewers, (Role.REVIEWER, Role.ADMIN)), (telling.admins, (Role.ADMIN,))):
        if why:
            for username, (_, role) in members.items():
                if role in roles:
                    people.setdefault(username, why)
    told = {members[name][0]: why for name, why in people.items() if name in members}
    if telling.about:
        member_ids = {user_id for user_id, _ in members.values()}
        for user_id in watchers(workspace=event.workspace, node_ids=list(telling.about)):
            if user_id in member_ids:
                told.setdefault(user_id, WATCHING)
    if event.actor_id is not None:
        told.pop(event.actor_id, None)
    return told


def tell_event(event: AuditEvent, members: dict[str, tuple[int, str]]) -> tuple[list[int], list[str]]:
    """Tells one event (inside the batch's transaction): the ids of its notifications and of its webhook messages."""
    teller = registry.TELLERS.get(event.verb)
    if teller is None or event.workspace is None:
        return [], []
    telling = teller.tell(event)
    told = _who(event, telling, members)
    notices = [Notice(user_id, event.verb, telling.text, why, telling.url) for user_id, why in told.items()]
    notifications = notify(workspace=event.workspace, event_id=event.pk, notices=notices) if notices else []
    messages = [
        message_id
        for kind, data in telling.events
        for message_id in enqueue(workspace=event.workspace, event_id=event.pk, kind=kind, data=data)
    ]
    return notifications, messages


def tell_pending(*, limit: int = BATCH, send_now: bool = False) -> TellReport:
    """Tells up to `limit` events of the outbox, oldest first; what it did. The webhook messages it made are sent
    after the commit: here and now with `send_now` (the teller's task: one task, not two, for each event), else by
    a task queued for them."""
    report = TellReport()
    with transaction.atomic():
        now = timezone.now()
        tells = list(
            Tell.objects.select_for_update(skip_locked=True, of=("self",))
            .filter(Q(retry_at__isnull=True) | Q(retry_at__lte=now))
            .select_related("event", "event__workspace")
            .order_by("created_at", "event_id")[:limit]
        )
        members: dict[object, dict[str, tuple[int, str]]] = {}
        told, failed = [], []
        for tell in tells:
            event = tell.event
            if event.workspace is not None and event.workspace_id not in members:
                members[event.workspace_id] = _members(event.workspace)
            try:
                with transaction.atomic():
                    notifications, messages = tell_event(event, members.get(event.workspace_id, {}))
            except GraphError as error:
                failed.append(tell.pk)
                logger.warning("event %s (%s) could not be told yet: %s", event.pk, event.verb, error)
                continue
            except Exception:
                failed.append(tell.pk)
                logger.exception("event %s (%s) could not be told", event.pk, event.verb)
                continue
            told.append(tell.pk)
            report.notifications += notifications
            report.messages += messages
        Tell.objects.filter(pk__in=told).delete()
        for tell in (t for t in tells if t.pk in failed):
            tell.failures += 1
            tell.retry_at = now + timedelta(seconds=min(2**tell.failures, MAX_RETRY_SECONDS))
        Tell.objects.bulk_update([t for t in tells if t.pk in failed], ["failures", "retry_at"])
        report.events, report.failed = len(told), len(failed)
        transaction.on_commit(lambda: _send(report, send_now=send_now))
    return report


def _send(report: TellReport, *, send_now: bool) -> None:
    if report.messages and send_now:
        send_due(message_ids=report.messages)
    elif report.messages:
        send_soon(report.messages)
    if report.notifications:
        email_soon(report.notifications)


def tell_all(*, send_now: bool = False) -> TellReport:
    """Tells what the outbox holds, a batch at a time, until it is empty (or a batch told too little: failures)."""
    total = TellReport()
    while True:
        report = tell_pending(send_now=send_now)
        total.events += report.events
        total.failed += report.failed
        total.notifications += report.notifications
        total.messages += report.messages
        if report.events + report.failed < BATCH:  # the outbox is empty of what is due (failures wait their turn)
            return total


class _Kicker:
    """Queues the dispatcher from a thread of its own, so a commit that wrote to the outbox never waits for the broker
    (an apply answers without it); kicks asked for while one waits to be sent are that one. A kick lost with its
    process is the beat's sweep's. A forked child (a Celery or benchmark process) makes its own thread."""

    def __init__(self) -> None:
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tell-kick")
        self.lock = threading.Lock()
        self.waiting = False

    def kick(self) -> None:
        with self.lock:
            if self.waiting:
                return
            self.waiting = True
        self.pool.submit(self._send)

    def _send(self) -> None:
        with self.lock:
            self.waiting = False
        from notifications import tasks

        try:
            tasks.tell_pending.delay()
        except Exception as error:  # noqa: BLE001 - any failure to queue leaves the events for the sweep
            logger.warning("the dispatcher could not be queued; the sweep will tell what is waiting: %s", error)


_KICKER = _Kicker()


def _new_kicker() -> None:
    global _KICKER
    _KICKER = _Kicker()


os.register_at_fork(after_in_child=_new_kicker)


def tell_soon() -> None:
    """Asks the teller worker to tell what was just committed, without waiting (workspaces/registry.py
    `tell_soon`). Where Celery runs tasks in the caller (tests), it tells them here and now."""
    from notifications import tasks

    if tasks.tell_pending.app.conf.task_always_eager:
        tasks.tell_pending.delay()
        return
    _KICKER.kick()
