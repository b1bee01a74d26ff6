"""Deliveries: the messages queued for an event (in the caller's transaction: the outbox), sent off the request path
by the worker, retried on a schedule, and the endpoint disabled when its last retry fails.

Each attempt goes out at most once: the worker claims due messages with SELECT … FOR UPDATE SKIP LOCKED (several
workers never claim the same one), leases each for the attempt's deadline and counts the attempt before sending; the
outcome is written only by the holder of the lease. A message whose worker died is claimed again when its lease ends.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from afterhack.errors import Conflict, NotFound
from webhooks import sending
from webhooks.addresses import host_of
from webhooks.models import Attempt, Endpoint, Message
from webhooks.statuses import EventKind, MessageState
from workspaces.models import Workspace
from workspaces.services.audit import record_event

logger = logging.getLogger("webhooks")

# Messages claimed by one worker at once; a lease lasts the attempt's deadline and this much more.
BATCH = 100
LEASE_MARGIN = timedelta(seconds=30)
# A retry due this soon is also queued with a countdown, so it does not wait for the next beat.
SHORT_RETRY_SECONDS = 60.0


class WebhookDisabled(Conflict):
    """A redelivery to an endpoint that is disabled."""


class AttemptInFlight(Conflict):
    """A redelivery of a message whose attempt is on its way."""


class DeliveryNotFound(NotFound):
    thing = "delivery of this webhook"


def enqueue(*, workspace: Workspace, event_id: int, kind: str, data: Mapping[str, Any]) -> list[str]:
    """Queues one message of the event for each enabled endpoint of the workspace subscribed to `kind`, in the
    caller's transaction (the same event and kind queued again makes nothing new); answers the ids of the event's
    pending messages. `data` holds ids and `url`, a path of the app, which the body gives as an absolute link.
    Call `send_soon` with the ids after the transaction commits."""
    kind = EventKind(kind)
    endpoints = list(Endpoint.objects.filter(workspace=workspace, enabled=True, events__contains=[kind.value]))
    if not endpoints:
        return []
    body = message_body(workspace=workspace, kind=kind, data=data, at=timezone.now())
    now = timezone.now()
    Message.objects.bulk_create(
        [
            Message(
                endpoint=endpoint,
                event_id=event_id,
                kind=kind,
                body=body,
                created_at=now,
                next_attempt_at=max(now, endpoint.paused_until or now),
            )  # a paused receiver's wait with it
            for endpoint in endpoints
        ],
        ignore_conflicts=True,
    )
    pending = Message.objects.filter(endpoint__in=endpoints, event_id=event_id, kind=kind, state=MessageState.PENDING)
    return list(pending.values_list("id", flat=True))


def message_body(*, workspace: Workspace, kind: EventKind, data: Mapping[str, Any], at: datetime) -> str:
    """The JSON body of a delivery: `{"type", "timestamp", "data": {"workspace_id", ids…, "url"}}`, `url` absolute."""
    path = data.get("url", "")
    if not isinstance(path, str) or (path and (not path.startswith("/") or path.startswith("//"))):
        raise ValueError(f"A webhook's data gives a path of the app as its url, not {path!r}.")
    ids = {name: value for name, value in data.items() if name != "url"}
    for name, value in ids.items():
        if not isinstance(value, str | int) and not (
            isinstance(value, list) and all(isinstance(v, str) for v in value)
        ):
            raise ValueError(f"A webhook's data holds only ids: {name} is {type(value).__name__}.")
    payload = {
        "type": kind.value,
        "timestamp": at.isoformat().replace("+00:00", "Z"),
        "data": {"workspace_id": str(workspace.id), **ids, "url": settings.AFTERHACK_PUBLIC_URL + path},
    }
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False)


def send_soon(message_ids: list[str]) -> None:
    """Queues the sending of these messages once the transaction (if any) commits."""
    if not message_ids:
        return
    ids = list(message_ids)
    transaction.on_commit(lambda: _queue_send(ids))


def _queue_send(ids: list[str]) -> None:
    from webhooks.tasks import send_messages

    # A broker that is down must not fail the caller (its change committed): the beat's sweep sends them.
    try:
        send_messages.delay(ids)
    except Exception as error:  # noqa: BLE001 - any failure to queue leaves the messages for the sweep
        logger.warning("could not queue the sending of %d webhook messages; the sweep sends them: %s", len(ids), error)


@dataclass(frozen=True)
class Claimed:
    """A message claimed for one attempt: its number, the lease that proves it, and what to send."""

    message_id: str
    endpoint_id: int
    number: int
    lease: str
    outgoing: sending.Outgoing


def send_due(*, message_ids: list[str] | None = None, limit: int = BATCH) -> int:
    """Sends one attempt of each due message (of these, when given) and records each outcome; answers how many
    were sent."""
    claimed = claim_due(message_ids=message_ids, limit=limit)
    outcomes = sending.send_all([c.outgoing for c in claimed], deadline=settings.AFTERHACK_WEBHOOK_TIMEOUT)
    retry_soon = record_all(list(zip(claimed, outcomes, strict=True)))
    for pause, ids in retry_soon.items():
        _queue_retry(ids, countdown=pause)
    return len(claimed)


def claim_due(*, message_ids: list[str] | None = None, limit: int = BATCH) -> list[Claimed]:
    """Claims up to `limit` due messages of enabled endpoints no other worker holds, counting their attempt."""
    now = timezone.now()
    due = (
        Message.objects.filter(state=MessageState.PENDING, next_attempt_at__lte=now, endpoint__enabled=True)
        .filter(Q(leased_until__isnull=True) | Q(leased_until__lt=now))
        .filter(Q(endpoint__paused_until__isnull=True) | Q(endpoint__paused_until__lte=now))
    )
    if message_ids is not None:
        due = due.filter(pk__in=message_ids)
    with transaction.atomic():
        messages = list(
            due.select_for_update(skip_locked=True, of=("self",))
            .select_related("endpoint")
            .order_by("next_attempt_at")[:limit]
        )
        # The lease covers the whole batch: its attempts go out CONCURRENCY at a time, each within the deadline.
        waves = -(-len(messages) // sending.CONCURRENCY)
        lease_ends = now + waves * timedelta(seconds=settings.AFTERHACK_WEBHOOK_TIMEOUT) + LEASE_MARGIN
        # One lease for the batch (it proves this claim of each attempt), set in one statement.
        lease = uuid.uuid4().hex
        Message.objects.filter(pk__in=[message.pk for message in messages]).update(
            attempt_count=F("attempt_count") + 1, lease=lease, leased_until=lease_ends
        )
        for message in messages:
            message.attempt_count += 1
            message.lease, message.leased_until = lease, lease_ends
    return [_claimed(message) for message in messages]


def _claimed(message: Message) -> Claimed:
    endpoint = message.endpoint
    outgoing = sending.Outgoing(message_id=message.id, url=endpoint.url, secret=endpoint.secret, body=message.body)
    return Claimed(message.id, endpoint.pk, message.attempt_count, message.lease, outgoing)


def record_all(sent: list[tuple[Claimed, sending.Outcome]]) -> dict[float, list[str]]:
    """Records the attempts of one sending and what follows from each (delivered, a retry later, or failed for good
    and the endpoint disabled), in one transaction (one commit for the batch, not one a message); answers the
    messages to retry soon enough to queue now, by their pause."""
    schedule = settings.AFTERHACK_WEBHOOK_RETRY_SECONDS
    now = timezone.now()
    retry_soon: dict[float, list[str]] = {}
    if not sent:
        return retry_soon
    with transaction.atomic():
        held = Message.objects.select_for_update().filter(pk__in=[claimed.message_id for claimed, _ in sent])
        messages = {message.pk: message for message in held}
        # A message whose endpoint was deleted meanwhile is gone (nothing to record); one whose lease ended is another
        # worker's now (that one decides).
        sent = [(c, o) for c, o in sent if c.message_id in messages and messages[c.message_id].lease == c.lease]
        Attempt.objects.bulk_create(
            Attempt(message_id=claimed.message_id, number=claimed.number, status_code=outcome.status_code,
                    error=outcome.error, at=now - timedelta(milliseconds=outcome.duration_ms),
                    duration_ms=outcome.duration_ms)
            for claimed, outcome in sent
        )  # fmt: skip
        settled: dict[tuple[str, datetime | None], list[str]] = {}
        for claimed, outcome in sent:
            message = messages[claimed.message_id]
            message.lease, message.leased_until = "", None
            retry = message.attempt_count - message.schedule_from
            if outcome.succeeded:
                message.state, message.next_attempt_at = MessageState.DELIVERED, None
            elif retry <= len(schedule):
                message.next_attempt_at = now + timedelta(seconds=schedule[retry - 1])
                if 0 < schedule[retry - 1] <= SHORT_RETRY_SECONDS:
                    retry_soon.setdefault(schedule[retry - 1], []).append(message.pk)
            else:
                message.state, message.next_attempt_at = MessageState.FAILED, None
                _disable(message.endpoint_id, attempts=retry, error=outcome.error)
            settled.setdefault((message.state, message.next_attempt_at), []).append(message.pk)
        # One statement for each outcome (delivered, failed, each retry time), not one a message.
        for (state, next_attempt_at), ids in settled.items():
            Message.objects.filter(pk__in=ids).update(
                lease="", leased_until=None, state=state, next_attempt_at=next_attempt_at
            )
        _pause_or_resume(sent, now)
    return retry_soon


def release(endpoint_ids: list[int], now: datetime) -> None:
    """What waits for these receivers (queued while they were paused, or retries after their failures) is due now:
    they answer again, were enabled again or given another URL."""
    if endpoint_ids:
        Message.objects.filter(
            endpoint_id__in=endpoint_ids, state=MessageState.PENDING, next_attempt_at__gt=now, leased_until__isnull=True
        ).update(next_attempt_at=now)


def _pause_or_resume(sent: list[tuple[Claimed, sending.Outcome]], now: datetime) -> None:
    """A receiver that answered any attempt of the batch is resumed; one that failed them all is paused until its
    next try, by its failures in a row (the same schedule as a message's retries)."""
    schedule = settings.AFTERHACK_WEBHOOK_RETRY_SECONDS
    answered: dict[int, bool] = {}
    for claimed, outcome in sent:
        answered[claimed.endpoint_id] = answered.get(claimed.endpoint_id, False) or outcome.succeeded
    if resumed := [endpoint_id for endpoint_id, ok in answered.items() if ok]:
        was_paused = Endpoint.objects.filter(pk__in=resumed).exclude(failures_in_a_row=0, paused_until=None)
        release(list(was_paused.values_list("pk", flat=True)), now)
        was_paused.update(failures_in_a_row=0, paused_until=None)
    for endpoint in Endpoint.objects.filter(pk__in=[e for e, ok in answered.items() if not ok]):
        endpoint.failures_in_a_row += 1
        pause = schedule[min(endpoint.failures_in_a_row, len(schedule)) - 1] if schedule else 0
        endpoint.paused_until = now + timedelta(seconds=pause)
        endpoint.save(update_fields=["failures_in_a_row", "paused_until"])


def _disable(endpoint_id: int, *, attempts: int, error: str) -> None:
    """Disables the endpoint whose message failed its last retry, and records `webhook.disabled` (its admins are
    told through the audit trail)."""
    endpoint = Endpoint.objects.select_for_update().select_related("workspace").filter(pk=endpoint_id).first()
    if endpoint is None or not endpoint.enabled:
        return
    endpoint.enabled = False
    endpoint.disabled_reason = (
        f"Disabled on {timezone.now():%d %B %Y at %H:%M} UTC after {attempts} failed attempts of one delivery; "
        f"the last: {error or 'no answer'} Enable it again once the receiver answers."
    )
    endpoint.save(update_fields=["enabled", "disabled_reason"])
    record_event(
        actor=None, workspace=endpoint.workspace, verb="webhook.disabled", target=host_of(endpoint.url),
        payload={"endpoint_id": endpoint.pk, "attempts": str(attempts)},
    )  # fmt: skip
    logger.warning("webhook %s of %s disabled after %s failed attempts", endpoint.pk, endpoint.workspace_id, attempts)


def _queue_retry(message_ids: list[str], *, countdown: float) -> None:
    """Queues a soon retry now (the beat would find it too, a little later); it sends only what is due then."""
    from webhooks.tasks import send_messages

    send_messages.apply_async((message_ids,), countdown=countdown)


def redeliver(*, endpoint: Endpoint, attempt_id: int | str, actor: Any) -> Message:
    """Sends the message of this attempt again now, as a new attempt, its retry schedule started again (admins: the
    caller checked). A disabled endpoint is refused (409): it is enabled again first."""
    if not endpoint.enabled:
        raise WebhookDisabled("This webhook is disabled: enable it again, then redeliver.")
    if not (str(attempt_id).isascii() and str(attempt_id).isdecimal()) or len(str(attempt_id)) > 18:
        raise DeliveryNotFound()
    attempt = Attempt.objects.filter(pk=int(attempt_id), message__endpoint=endpoint).first()
    if attempt is None:
        raise DeliveryNotFound()
    with transaction.atomic():
        message = Message.objects.select_for_update().get(pk=attempt.message_id)
        if message.leased_until is not None and message.leased_until > timezone.now():
            raise AttemptInFlight("An attempt of this delivery is being sent now; its outcome will be in the log.")
        message.state, message.next_attempt_at = MessageState.PENDING, timezone.now()
        message.schedule_from = message.attempt_count
        message.save(update_fields=["state", "next_attempt_at", "schedule_from"])
        # An admin asks for an attempt now: a pause after failures does not hold it back.
        Endpoint.objects.filter(pk=endpoint.pk).update(paused_until=None)
        record_event(
            actor=actor, workspace=endpoint.workspace, verb="webhook.redelivered", target=host_of(endpoint.url),
            payload={"endpoint_id": endpoint.pk, "message_id": message.id, "event_id": str(message.event_id)},
        )  # fmt: skip
        send_soon([message.id])
    return message


def prune_log(*, now: datetime | None = None) -> int:
    """Removes delivered and failed messages settled more than AFTERHACK_WEBHOOK_LOG_DAYS ago, with their attempts
    (a cascade), a thousand at a time; answers how many. Pending ones stay whatever their age."""
    before = (now or timezone.now()) - timedelta(days=settings.AFTERHACK_WEBHOOK_LOG_DAYS)
    removed = 0
    while True:
        old = Message.objects.filter(state__in=[MessageState.DELIVERED, MessageState.FAILED], created_at__lt=before)
        ids = list(old.values_list("pk", flat=True)[:1000])
        if not ids:
            return removed
        removed += Message.objects.filter(pk__in=ids).delete()[1].get(Message._meta.label, 0)
