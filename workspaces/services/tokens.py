"""Writes of API tokens: issuing one (its raw value shown once, never stored) and revoking one or many, each
audited."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from workspaces.models import ApiToken
from workspaces.services.audit import record_event


def token_issue(
    *, user: Any, name: str = "API token", actor: Any = None, expires_at: datetime | None = None
) -> tuple[ApiToken, str]:
    """A new API token for the user and its raw value, which is shown once and never stored.

    It expires at `expires_at`, by default AFTERHACK_TOKEN_TTL_DAYS from now.
    """
    with transaction.atomic():
        token, raw = ApiToken.issue(user=user, name=name[:100] or "API token", expires_at=expires_at)
        record_event(
            actor=actor or user, workspace=None, verb="token.issued", target=f"{token.hint}… for {user.get_username()}",
            payload={"user": user.get_username(), "expires_at": token.expires_at.isoformat()},
        )  # fmt: skip
    return token, raw


def token_revoke(*, token: ApiToken, actor: Any) -> ApiToken:
    """Revokes the token: it is refused from now on. Revoking it again changes nothing."""
    with transaction.atomic():
        revoked = ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
        if revoked:
            record_event(
                actor=actor, workspace=None, verb="token.revoked", target=f"{token.hint}… for {token.user.get_username()}",
                payload={"user": token.user.get_username(), "from": "valid", "to": "revoked"},
            )  # fmt: skip
    token.refresh_from_db(fields=["revoked_at"])
    return token


def tokens_revoke(*, tokens: QuerySet[ApiToken], actor: Any) -> int:
    """Revokes each of these tokens not revoked yet, audited one by one like `token_revoke`; returns how many."""
    with transaction.atomic():
        revoking = list(tokens.filter(revoked_at__isnull=True).select_related("user"))
        for token in revoking:
            token_revoke(token=token, actor=actor)
    return len(revoking)
