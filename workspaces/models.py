"""Workspaces, who belongs to them with which role, API tokens, and the append-only audit trail."""

from __future__ import annotations

import hashlib
import math
import uuid
from datetime import datetime, timedelta
from typing import Any, ClassVar

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.crypto import RANDOM_STRING_CHARS, get_random_string
from django.views.decorators.debug import sensitive_variables

from afterhack.text import MAX_WORKSPACE_NAME_CHARS
from workspaces import registry


class Role(models.TextChoices):
    VIEWER = "viewer", "Viewer"
    REVIEWER = "reviewer", "Reviewer"
    ADMIN = "admin", "Admin"


AUDIT_EVERY_WORKSPACE = "audit_every_workspace"


class Workspace(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    name = models.CharField(max_length=MAX_WORKSPACE_NAME_CHARS)
    # Off by default: alternative support from the corrected claim's own source version counts.
    independent_sources = models.BooleanField(
        default=False,
        help_text="Count a justification as alternative support only if none of its claims "
        "comes from the corrected claim's source version.",
    )
    # Off by default: claims proposed by agents (MCP, a model's extraction) are current at once, as people's are.
    agent_claims_need_approval = models.BooleanField(
        default=False,
        help_text="Claims proposed by agents (over MCP, or extracted by a model) wait as “proposed”, never citable, "
        "until a reviewer approves them in the review queue.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    members: models.ManyToManyField[Any, Any] = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="Membership", related_name="workspaces"
    )

    class Meta:
        ordering = ["name"]
        # Granted explicitly (a superuser does not have it by being one: workspaces stay apart), in the Django admin,
        # to a staff auditor: they read every workspace as its viewers do, past included, and change nothing.
        permissions = [(AUDIT_EVERY_WORKSPACE, "Can read every workspace as a viewer, to audit it")]

    def __str__(self) -> str:
        return self.name

    @property
    def graph_name(self) -> str:
        """The FalkorDB graph of this workspace, derived from its server-generated UUID."""
        return f"ws_{self.id.hex}"


class Membership(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.VIEWER)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "workspace"], name="one_membership_per_user"),
            models.CheckConstraint(condition=models.Q(role__in=Role.values), name="membership_role_known"),
        ]
        ordering = ["workspace__name", "user__username"]

    def __str__(self) -> str:
        return f"{self.user} as {self.get_role_display().lower()} of {self.workspace}"

    @property
    def can_write(self) -> bool:
        return self.role in (Role.REVIEWER, Role.ADMIN)

    @property
    def is_admin(self) -> bool:
        return self.role == Role.ADMIN


class AuditEventQuerySet(models.QuerySet["AuditEvent"]):
    def update(self, **kwargs: Any) -> int:
        raise AuditEventImmutable("Audit events are append-only: they cannot be updated.")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise AuditEventImmutable("Audit events are append-only: they cannot be deleted.")


class AuditEventImmutable(Exception):
    """Raised on any attempt to change or remove an audit event."""


# Each verb's words and its kind in words (the audit's and the activity page's kind filter and column), as the apps
# registered them (workspaces/registry.py `AuditVerb`, each app's registration.py): the registry's own dicts, so they
# hold every verb once the apps are ready. Every verb a service records has both (tests/workspaces/test_activity.py
# checks the source for new ones).
EVENT_WORDS = registry.EVENT_WORDS
EVENT_KINDS = registry.EVENT_KINDS


class AuditEvent(models.Model):
    """One thing someone did. Append-only: a database trigger refuses UPDATE and DELETE."""

    # PROTECT: a person or workspace with history cannot disappear from under its audit trail.
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True)
    actor_name = models.CharField(max_length=150)
    workspace = models.ForeignKey(Workspace, on_delete=models.PROTECT, null=True, blank=True)
    verb = models.CharField(max_length=64)
    target = models.CharField(max_length=255, blank=True)
    payload = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    objects: ClassVar[AuditEventQuerySet] = AuditEventQuerySet.as_manager()  # type: ignore[assignment]

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["workspace", "-created_at"])]

    def __str__(self) -> str:
        # No target: the admin names an event this way to readers who may not read its workspace (a workspace's or
        # a person's delete page lists the events that keep them), so it names no workspace content.
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.actor_name} {self.verb} (event {self.pk})"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise AuditEventImmutable("Audit events are append-only: they cannot be updated.")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise AuditEventImmutable("Audit events are append-only: they cannot be deleted.")

    @property
    def kind(self) -> str:
        """What kind of event this is, in words, e.g. “Role changed”."""
        return EVENT_KINDS.get(self.verb, self.verb)

    @property
    def summary(self) -> str:
        """The event in words, e.g. “added rita as reviewer”."""
        template = EVENT_WORDS.get(self.verb)
        if template is None:
            return f"{self.verb} {self.target}".strip()
        return template.format(target=self.target, **{k: v for k, v in self.payload.items() if isinstance(v, str)})


class Tell(models.Model):
    """The outbox: an audit event that tells someone (its verb has a teller, workspaces/registry.py `Teller`), not told
    yet. Written in the statement or transaction of the event itself, so a change is told exactly when it happened;
    the dispatcher (notifications/outbox.py) turns it into notifications and webhook messages and deletes it, in one
    transaction."""

    event = models.OneToOneField(AuditEvent, on_delete=models.CASCADE, primary_key=True, related_name="+")
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    # Times the dispatcher could not tell it (a store down, a teller's bug): logged, and tried again from `retry_at`
    # on (doubling, at most an hour apart), so a few events that cannot be told never hold up the others.
    failures = models.PositiveIntegerField(default=0)
    retry_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"to tell: event {self.pk}"


TOKEN_PREFIX = "ah_"  # noqa: S105 - a prefix that marks tokens, not a secret
# After the prefix, letters and digits only: a double-click selects the whole token (a "-" would end the
# selection, and "_" is a word character). 43 of these 62 characters are 256 bits of randomness.
TOKEN_CHARS = math.ceil(256 / math.log2(len(RANDOM_STRING_CHARS)))


def hash_token(raw: str) -> str:
    """The stored form of a token: its SHA-256 (tokens are random, so no salt is needed)."""
    return hashlib.sha256(raw.encode()).hexdigest()


def token_expiry() -> datetime:
    """When a token issued now expires: AFTERHACK_TOKEN_TTL_DAYS from now, to the second."""
    return timezone.now().replace(microsecond=0) + timedelta(days=settings.AFTERHACK_TOKEN_TTL_DAYS)


class ApiToken(models.Model):
    """A bearer token for the JSON API; only its hash is stored."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100, default="API token")
    key_hash = models.CharField(max_length=64, unique=True, editable=False)
    hint = models.CharField(max_length=16, editable=False, help_text="The first characters, to tell tokens apart.")
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(default=token_expiry, help_text="The token is refused from this moment on (UTC).")

    # The token itself, only on the instance the admin has just issued, for the one answer that shows it: never
    # saved (only its hash is), never put in the session.
    raw: str = ""

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "API token"

    def __str__(self) -> str:
        return f"{self.name} ({self.hint}…) for {self.user}"

    @classmethod
    @sensitive_variables("raw")
    def issue(cls, *, user: Any, name: str = "API token", expires_at: datetime | None = None) -> tuple[ApiToken, str]:
        """A new token for `user` and its raw value, which is shown once and never stored."""
        # Tokens issued before had URL-safe characters ("-" and "_"): only the hash is looked up, so they still work.
        raw = TOKEN_PREFIX + get_random_string(TOKEN_CHARS)
        token = cls.objects.create(
            user=user, name=name, key_hash=hash_token(raw), hint=raw[:8], expires_at=expires_at or token_expiry()
        )
        return token, raw

    @property
    def is_expired(self) -> bool:
        return self.expires_at <= timezone.now()


class LoginFailures(models.Model):
    """Failed password logins of one username from one client address in the current window.

    Kept in PostgreSQL so every web server process sees the same count; a row is gone once
    its user logs in, and is started afresh once its window has passed.
    """

    # As typed, known or not: unknown names are throttled exactly like real ones.
    username = models.CharField(max_length=150)
    # The client's IP address (see workspaces.auth.client_address), or "unknown".
    client = models.CharField(max_length=64)
    failures = models.PositiveIntegerField(default=0)
    window_started_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["username", "client"], name="one_login_count_per_client")]
        verbose_name_plural = "login failures"

    def __str__(self) -> str:
        return f"{self.failures} failed logins as {self.username} from {self.client}"
