"""A workspace's webhook endpoints, the messages queued for each (one per event and kind) and every attempt."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone

from afterhack.text import MAX_URL_CHARS
from webhooks.statuses import EventKind, MessageState
from workspaces.models import Workspace


def message_id() -> str:
    """A message's id, sent as `webhook-id` on each of its attempts."""
    return f"msg_{uuid.uuid4().hex}"


class Endpoint(models.Model):
    """Where a workspace's events of the chosen kinds are POSTed; the secret signs them (never shown after it is
    made, but at creation and rotation)."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="webhook_endpoints")
    url = models.CharField("URL", max_length=MAX_URL_CHARS)
    events = models.JSONField(default=list, help_text="The event kinds it is sent.")
    secret = models.CharField(max_length=100, editable=False)
    enabled = models.BooleanField(default=True)
    disabled_reason = models.TextField(blank=True, default="")
    # A receiver that failed is paused until its next try (the retry schedule by its failures in a row): what is
    # queued meanwhile waits with it, so a receiver that hangs costs one bounded attempt per pause, not one per event.
    failures_in_a_row = models.PositiveIntegerField(default=0)
    paused_until = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = "webhook endpoint"
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"webhook {self.pk} of {self.workspace_id}"


class Message(models.Model):
    """One event of one kind to one endpoint: its body fixed when queued, its id the same across retries. A lease
    marks the attempt in flight, so that each attempt goes out at most once."""

    id = models.CharField(primary_key=True, max_length=40, default=message_id, editable=False)
    endpoint = models.ForeignKey(Endpoint, on_delete=models.CASCADE, related_name="messages")
    event_id = models.BigIntegerField(help_text="The audit event it tells of.")
    kind = models.CharField(max_length=40, choices=[(kind.value, kind.value) for kind in EventKind])
    body = models.TextField()
    attempt_count = models.PositiveIntegerField(default=0)
    # The attempt count when the retry schedule last started (a redelivery starts it again).
    schedule_from = models.PositiveIntegerField(default=0)
    state = models.CharField(
        max_length=20, choices=[(state.value, state.value) for state in MessageState], default=MessageState.PENDING
    )
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    lease = models.CharField(max_length=32, blank=True, default="")
    leased_until = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["endpoint", "event_id", "kind"], name="webhook_message_once_per_event")
        ]
        indexes = [models.Index(fields=["state", "next_attempt_at"], name="webhook_message_due")]

    def __str__(self) -> str:
        return self.id


class Attempt(models.Model):
    """One POST of a message: its number, the status code answered (none: no answer), the error in words."""

    message = models.ForeignKey(Message, on_delete=models.CASCADE, related_name="attempts")
    number = models.PositiveIntegerField()
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.TextField(blank=True, default="")
    at = models.DateTimeField(default=timezone.now)
    duration_ms = models.PositiveIntegerField(default=0)

    class Meta:
        indexes = [models.Index(fields=["message", "-at"], name="webhook_attempt_of_message")]

    def __str__(self) -> str:
        return f"attempt {self.number} of {self.message_id}"

    @property
    def succeeded(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300
