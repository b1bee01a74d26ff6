"""What people are told (the inbox), what they watch, and how they want it emailed."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from notifications.statuses import EmailMode, WatchKind
from workspaces.models import AuditEvent, Workspace

MAX_NOTICE_CHARS = 500
MAX_REASON_CHARS = 120
MAX_URL_CHARS = 500
MAX_EMAIL_ERROR_CHARS = 300


class Notification(models.Model):
    """One thing a person is told about one event of a workspace: a sentence, why they are told, and where to look."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications")
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="notifications")
    # The audit event it tells of; PROTECT as every reference to the append-only trail. Null for a notice that tells
    # of no event (the admins told that a webhook receiver was disabled).
    event = models.ForeignKey(AuditEvent, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    # The event's kind in the webhook's words, e.g. "correction.applied".
    kind = models.CharField(max_length=64)
    text = models.CharField(max_length=MAX_NOTICE_CHARS)
    # Why this person is told, e.g. "you recorded it", "you watch it", "you review this workspace".
    reason = models.CharField(max_length=MAX_REASON_CHARS)
    # A path of this app (no host), e.g. /w/<ws>/decisions/<id>/.
    url = models.CharField(max_length=MAX_URL_CHARS)
    created_at = models.DateTimeField(auto_now_add=True)
    read_at = models.DateTimeField(null=True, blank=True)
    # When its email was claimed, just before it was handed to the mail server (at most once: never emailed again).
    emailed_at = models.DateTimeField(null=True, blank=True)
    # Why that email may not have arrived (the server refused it, or failed while it was sent); empty when it went.
    # For the operators (the log, the database), never shown to members.
    email_error = models.CharField(max_length=MAX_EMAIL_ERROR_CHARS, blank=True, db_default="")

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            # Telling one event to one person twice makes one notification (the dispatcher may run an event again).
            models.UniqueConstraint(fields=["user", "event"], name="one_notification_per_user_and_event"),
        ]
        indexes = [
            # The inbox, newest first.
            models.Index(fields=["user", "-created_at", "-id"], name="notification_inbox"),
            # The bell: the unread ones, joined with the person's memberships by workspace.
            models.Index(
                fields=["user", "workspace"], condition=models.Q(read_at__isnull=True), name="notification_unread"
            ),
            # The daily digest: what nobody has emailed yet.
            models.Index(fields=["user"], condition=models.Q(emailed_at__isnull=True), name="notification_unemailed"),
        ]

    def __str__(self) -> str:
        # No text: the admin may name it to staff who may not read its workspace.
        return f"notification {self.pk} ({self.kind}) for {self.user}"

    @property
    def read(self) -> bool:
        return self.read_at is not None


class Watch(models.Model):
    """A person follows a claim, decision or action of a workspace: they are told of its changes."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="watches")
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="watches")
    node_id = models.CharField(max_length=64)
    kind = models.CharField(max_length=16, choices=[(k.value, k.value) for k in WatchKind])
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "workspace", "node_id"], name="one_watch_per_user_and_node"),
            models.CheckConstraint(condition=models.Q(kind__in=[k.value for k in WatchKind]), name="watch_kind_known"),
        ]
        # Who watches these nodes (the dispatcher's question).
        indexes = [models.Index(fields=["workspace", "node_id"], name="watch_by_node")]

    def __str__(self) -> str:
        return f"{self.user} watches {self.kind} {self.node_id}"


class EmailPreference(models.Model):
    """How a person wants their notifications emailed; without a row, each at once (instant)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="email_preference")
    mode = models.CharField(
        max_length=16, choices=[(m.value, m.value) for m in EmailMode], default=EmailMode.INSTANT.value
    )
    changed_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=models.Q(mode__in=[m.value for m in EmailMode]), name="email_mode_known")
        ]

    def __str__(self) -> str:
        return f"{self.user} wants email: {self.mode}"
