"""How people and programs prove who they are: portal single sign-on, API tokens, throttled password logins."""

from __future__ import annotations

import ipaddress
import logging
import math
from datetime import UTC, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import authenticate
from django.contrib.auth.backends import RemoteUserBackend
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.middleware import PersistentRemoteUserMiddleware
from django.contrib.auth.views import LoginView
from django.core.exceptions import ImproperlyConfigured, ValidationError
from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.views.decorators.debug import sensitive_variables

from afterhack.text import MAX_USERNAME_CHARS
from workspaces.models import ApiToken, LoginFailures, hash_token

logger = logging.getLogger("workspaces.auth")


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
        if not remote_user or remote_user != remote_user.strip() or len(remote_user) > MAX_USERNAME_CHARS:
            return None
        return super().authenticate(request, remote_user)

    def configure_user(self, request: Any, user: Any, created: bool = True) -> Any:
        # The portal vouches for them; a password login must never work for this account.
        if created:
            user.set_unusable_password()
            user.save(update_fields=["password"])
        return user


HOW_TO_RENEW = "Get a new one with POST /api/v1/auth/token."


class TokenRefused(Exception):
    """A bearer token that was valid once but is no longer; the message says why, in words."""


def token_authenticate(raw: str) -> ApiToken | None:
    """The valid token `raw` is, or None; raises TokenRefused for an expired or revoked one.

    Saying why only for a token the caller holds tells them nothing they could not guess.
    """
    if not raw:
        return None
    token = ApiToken.objects.select_related("user").filter(key_hash=hash_token(raw)).first()
    if token is None or not token.user.is_active:
        return None
    if token.revoked_at is not None:
        raise TokenRefused(f"This API token was revoked. {HOW_TO_RENEW}")
    if token.is_expired:
        raise TokenRefused(
            f"This API token expired on {token.expires_at.astimezone(UTC):%Y-%m-%d %H:%M} UTC. {HOW_TO_RENEW}"
        )
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
    return token


class LoginThrottled(Exception):
    """Too many failed logins of one username from one client; try again in `retry_after` seconds."""

    def __init__(self, retry_after: int) -> None:
        self.retry_after = retry_after
        super().__init__(
            f"Too many failed logins for this username from your address. Try again in {wait_in_words(retry_after)}."
        )


def wait_in_words(seconds: int) -> str:
    """“40 seconds”, “1 minute”, “15 minutes”: a wait rounded up to what a person reads."""
    if seconds < 60:
        return f"{seconds} second{'s' * (seconds != 1)}"
    minutes = math.ceil(seconds / 60)
    return f"{minutes} minute{'s' * (minutes != 1)}"


def client_address(request: HttpRequest) -> str:
    """The address a login attempt comes from, as the throttle counts it.

    REMOTE_ADDR, which the client cannot choose. Only behind the company portal's proxy
    (AFTERHACK_REMOTE_USER_HEADER set, so every request comes through it) is REMOTE_ADDR the
    proxy itself; then the last X-Forwarded-For entry, the one that proxy appended, names the
    client. Earlier entries are whatever the client sent and are never read.
    """
    address = request.META.get("REMOTE_ADDR", "")
    if settings.REMOTE_USER_HEADER:
        address = request.META.get("HTTP_X_FORWARDED_FOR", "").rsplit(",", 1)[-1].strip() or address
    try:
        return str(ipaddress.ip_address(address))
    except ValueError:
        return "unknown"


# One statement, so concurrent attempts from any number of processes are counted one by
# one under the row's lock: an attempt is counted as failed *before* its password is checked.
COUNT_ATTEMPT = """
INSERT INTO {table} AS counted (username, client, failures, window_started_at)
VALUES (%(username)s, %(client)s, 1, %(now)s)
ON CONFLICT (username, client) DO UPDATE SET
    failures = CASE WHEN counted.window_started_at <= %(window_start)s THEN 1
                    ELSE LEAST(counted.failures + 1, %(limit)s + 1) END,
    window_started_at = CASE WHEN counted.window_started_at <= %(window_start)s THEN %(now)s
                             ELSE counted.window_started_at END
RETURNING failures, window_started_at
"""

# Rows whose window has passed, a batch at a time; SKIP LOCKED never waits for an attempt under way.
FORGET_OLD = """
DELETE FROM {table} WHERE id IN (
    SELECT id FROM {table} WHERE window_started_at <= %(window_start)s LIMIT 100 FOR UPDATE SKIP LOCKED
)
"""


def _count_attempt(*, username: str, client: str) -> None:
    """Counts a login attempt as failed until it succeeds; raises LoginThrottled past the limit."""
    now = timezone.now()
    window = timedelta(seconds=settings.AFTERHACK_LOGIN_WINDOW_SECONDS)
    limit = settings.AFTERHACK_LOGIN_MAX_FAILURES
    params: dict[str, Any] = {
        "username": username,
        "client": client,
        "now": now,
        "window_start": now - window,
        "limit": limit,
    }
    table = connection.ops.quote_name(LoginFailures._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(FORGET_OLD.format(table=table), params)
        cursor.execute(COUNT_ATTEMPT.format(table=table), params)
        failures, window_started_at = cursor.fetchone()
    if failures > limit:
        logger.warning("login throttled for %r from %s", username, client)
        raise LoginThrottled(retry_after=max(1, math.ceil((window_started_at + window - now).total_seconds())))


@sensitive_variables("password")
def authenticate_throttled(request: HttpRequest, *, username: str, password: str) -> Any | None:
    """The user these credentials name, or None; raises LoginThrottled after too many failures.

    A throttled attempt is refused without its password being checked, so even the right
    password waits; unknown usernames are counted exactly like real ones.
    """
    # Longer names are no account's (usernames have at most 150 characters): they share one count.
    counted_as, client = username[:MAX_USERNAME_CHARS], client_address(request)
    _count_attempt(username=counted_as, client=client)
    user = authenticate(request, username=username, password=password)
    if user is not None:
        LoginFailures.objects.filter(username=counted_as, client=client).delete()
    return user


class ThrottledLoginForm(AuthenticationForm):
    """Django's login form, with failed logins throttled per username and client."""

    throttled: LoginThrottled | None = None

    @sensitive_variables()
    def clean(self) -> dict[str, Any]:
        username = self.cleaned_data.get("username")
        password = self.cleaned_data.get("password")
        if username is not None and password:
            if self.request is None:
                raise ImproperlyConfigured("ThrottledLoginForm needs the request: the throttle counts per client.")
            try:
                self.user_cache = authenticate_throttled(self.request, username=username, password=password)
            except LoginThrottled as throttled:
                self.throttled = throttled
                raise ValidationError(str(throttled), code="throttled") from throttled
            if self.user_cache is None:
                raise self.get_invalid_login_error()
            self.confirm_login_allowed(self.user_cache)
        return self.cleaned_data


class ThrottledLoginView(LoginView):
    """The login page; a throttled attempt is answered 429 with Retry-After, the wait in words."""

    authentication_form = ThrottledLoginForm
    redirect_authenticated_user = True

    def form_invalid(self, form: ThrottledLoginForm) -> HttpResponse:  # type: ignore[override]
        return answered_throttled(super().form_invalid(form), form)


def answered_throttled(response: HttpResponse, form: Any) -> HttpResponse:
    """The login page `response`, answered 429 with Retry-After if the throttle refused its `form`."""
    throttled = getattr(form, "throttled", None)
    if isinstance(throttled, LoginThrottled):
        response.status_code = 429
        response["Retry-After"] = str(throttled.retry_after)
    return response
