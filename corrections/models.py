"""The Postgres side of a correction: an intent row written before the graph write, so a crash is recovered."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models

from workspaces.models import Workspace


class IntentState(models.TextChoices):
    PENDING = "pending", "Pending"
    APPLIED = "applied", "Applied"
    FAILED = "failed", "Failed"
    REFUSED = "refused", "Refused"


class CorrectionIntent(models.Model):
    """One request to apply a correction, keyed by its idempotency key.

    Written (and committed) before the graph write; its outcome afterwards. Recovery finds
    pending rows whose writer is gone and settles them from what the graph shows.
    """

    workspace = models.ForeignKey(Workspace, on_delete=models.PROTECT, related_name="correction_intents")
    idempotency_key = models.CharField(max_length=200)
    claim_id = models.CharField(max_length=64)
    statement = models.TextField()
    reason = models.TextField()
    revision = models.BigIntegerField()
    # The passage the replacement also cites, as the request sent it (no source id: none). The same
    # key with other evidence is another correction; where the passage was found is in the graph.
    evidence_source_id = models.CharField(max_length=64, blank=True, default="")
    evidence_quote = models.TextField(blank=True, default="")
    evidence_start = models.BigIntegerField(null=True, blank=True)
    # The suggestion this correction accepts (none: ""); the same key with another one is another correction.
    suggestion_id = models.CharField(max_length=64, blank=True, default="")
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True)
    actor_name = models.CharField(max_length=150)
    # Ids are chosen before the graph write, so recovery can look for exactly this correction.
    correction_id = models.UUIDField(default=uuid.uuid4, unique=True)
    replacement_claim_id = models.UUIDField(default=uuid.uuid4, unique=True)
    fragment_id = models.UUIDField(default=uuid.uuid4, unique=True)
    affected = models.JSONField(default=dict)
    state = models.CharField(max_length=16, choices=IntentState.choices, default=IntentState.PENDING)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    settled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["workspace", "idempotency_key"], name="one_intent_per_key"),
        ]
        indexes = [models.Index(fields=["state", "created_at"])]

    def __str__(self) -> str:
        return f"{self.idempotency_key} ({self.state}) on {self.claim_id}"
