"""How people and programs prove who they are: portal single sign-on and API tokens."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.backends import RemoteUserBackend
from django.contrib.auth.middleware import PersistentRemoteUserMiddleware
from django.utils import timezone

from workspaces.models import ApiToken, hash_token

USERNAME_MAX = 150


def _meta_key(header: str) -> str:
    """`X-Forwarded-User` → `HTTP_X_FORWARDED_USER`, the way Django names request headers."""
    return "HTTP_" + header.upper().replace("-", "_")


class PortalRemoteUserMiddleware(PersistentRemoteUserMiddleware):
    """Logs in the user the company portal's proxy names in AFTERHACK_REMOTE_USER_HEADER.

    Persistent: a request without the header (an API call with a token, say) keeps the
    session it has rather than being logged out.
    """

    def __init__(self, get_response: Any) -> None:
        # Read per instance, not at import, so the setting can differ between deployments and tests.
        self.header = _meta_key(settings.REMOTE_USER_HEADER)  # type: ignore[misc]
        super().__init__(get_response)


class PortalRemoteUserBackend(RemoteUserBackend):
    """Creates a user the first time the portal names them; portal users get no password."""

    create_unknown_user = True

    def authenticate(self, request: Any, remote_user: str | None) -> Any:  # type: ignore[override]
        # A blank or over-long name is refused, never stripped or cut: two different portal
        # identities must never end up as one account.
        if not remote_user or remote_user != remote_user.strip() or len(remote_user) > USERNAME_MAX:
            return None
        return super().authenticate(request, remote_user)

    def configure_user(self, request: Any, user: Any, created: bool = True) -> Any:
        # The portal vouches for them; a password login must never work for this account.
        if created:
            user.set_unusable_password()
            user.save(update_fields=["password"])
        return user


def user_for_token(raw: str) -> Any | None:
    """The active user a bearer token belongs to, or None; records when it was last used."""
    if not raw:
        return None
    token = ApiToken.objects.select_related("user").filter(key_hash=hash_token(raw), revoked_at__isnull=True).first()
    if token is None or not token.user.is_active:
        return None
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
    return token.user
