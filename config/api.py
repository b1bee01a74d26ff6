"""The JSON API at /api/v1: authentication, the error format, and the apps' routers."""

from __future__ import annotations

import logging
import re
from datetime import datetime
from typing import Annotated, Any

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.utils.csp import CSP
from django.views.decorators.cache import never_cache
from django.views.decorators.csp import csp_override
from ninja import Field, NinjaAPI, Schema, Status
from ninja.decorators import decorate_view
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.parser import Parser
from ninja.security import APIKeyCookie, HttpBearer

from afterhack.errors import FORBIDDEN, INTERNAL_ERROR, NOT_FOUND, GraphError, GraphUnavailable, UserError
from afterhack.http import ApiError, bearer_challenge, in_the_input
from afterhack.outages import unavailable_response
from afterhack.schemas import ERROR_ANSWERS, ErrorOut, Input, Refuse, Text, describe_validation_errors, errors
from afterhack.text import MAX_USERNAME_CHARS
from config.middleware import takes_sources
from workspaces.auth import LoginThrottled, TokenRefused, authenticate_throttled, token_authenticate
from workspaces.models import ApiToken
from workspaces.services import tokens as token_services

__all__ = ["ApiError", "ErrorOut", "Text", "api", "error_response"]

# Under the `afterhack` logger settings configure, named as the API's log lines were before the wiring moved.
logger = logging.getLogger("afterhack.api")


class UnsupportedMediaType(Exception):
    """A request body that is not sent as JSON."""


class JsonBodies(Parser):
    """Request bodies are JSON, and only JSON: a body of another media type is refused, not guessed at."""

    def parse_body(self, request: HttpRequest) -> Any:
        media_type = (request.content_type or "").lower()
        if media_type != "application/json" and not media_type.endswith("+json"):
            raise UnsupportedMediaType(media_type or "no Content-Type")
        return super().parse_body(request)


class BearerToken(HttpBearer):
    """An API token; the endpoint finds it as `request.auth` (DELETE /auth/token revokes it)."""

    def authenticate(self, request: HttpRequest, token: str) -> ApiToken | None:
        api_token = token_authenticate(token)
        if api_token is not None:
            request.user = api_token.user
        return api_token


class BrowserSession(APIKeyCookie):
    """The logged-in browser session; CSRF is checked on writes."""

    param_name = "sessionid"

    def _get_key(self, request: HttpRequest) -> str | None:
        # Without a logged-in session there is nothing to protect: answer 401, not a CSRF 403.
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated:
            return None
        return super()._get_key(request)

    def authenticate(self, request: HttpRequest, key: str | None) -> Any | None:
        user = getattr(request, "user", None)
        return user if user is not None and user.is_authenticated else None


def docs_policy() -> dict[str, Any]:
    """The pages' Content-Security-Policy, plus data: images: Swagger UI's stylesheet draws its icons so."""
    policy: dict[str, Any] = dict(settings.SECURE_CSP)
    if policy:
        images: list[str] = [*policy.get("img-src", [CSP.SELF]), "data:"]
        policy["img-src"] = images
    return policy


class JsonApi(NinjaAPI):
    """The API, whose OpenAPI document also says what each error status means (with its codes) and
    what JsonBodies does: every operation with a body answers 415 to one that is not JSON."""

    def get_openapi_schema(self, *, path_prefix: str | None = None, path_params: Any = None) -> Any:
        document = super().get_openapi_schema(path_prefix=path_prefix, path_params=path_params)
        error_body = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorOut"}}}
        for item in document["paths"].values():
            for operation in item.values():
                answers = operation["responses"]
                if "requestBody" in operation:
                    answers.setdefault(415, {"content": error_body})
                for status, answer in answers.items():
                    answer["description"] = ERROR_ANSWERS.get(int(status), answer.get("description", "OK"))
        return document


api = JsonApi(
    title="Afterhack API",
    version="1",
    urls_namespace="api",
    auth=[BearerToken(), BrowserSession()],
    docs_url="/docs",
    docs_decorator=csp_override(docs_policy()),
    openapi_url="/openapi.json",
    parser=JsonBodies(),
)


def error_response(request: HttpRequest, status: int, code: str, detail: str, **extra: Any) -> HttpResponse:
    """The API's one error shape; a 401 says how to authenticate (WWW-Authenticate, as HTTP requires)."""
    response = api.create_response(request, {"error": code, "detail": detail, **extra}, status=status)
    if status == 401:
        response["WWW-Authenticate"] = bearer_challenge(request.headers.get("Authorization", ""))
    return response


@api.exception_handler(ApiError)
def on_api_error(request: HttpRequest, exc: ApiError) -> HttpResponse:
    return error_response(request, exc.status, exc.code, exc.detail, **exc.extra)


@api.exception_handler(UserError)
def on_user_error(request: HttpRequest, exc: UserError) -> HttpResponse:
    return error_response(request, exc.status, exc.code, str(exc), **getattr(exc, "extra", {}))


@api.exception_handler(AuthenticationError)
def on_unauthenticated(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
    return error_response(request, 401, "unauthorized", "Send a valid API token as 'Authorization: Bearer <token>'.")


@api.exception_handler(TokenRefused)
def on_token_refused(request: HttpRequest, exc: TokenRefused) -> HttpResponse:
    return error_response(request, 401, "unauthorized", str(exc))


@api.exception_handler(LoginThrottled)
def on_login_throttled(request: HttpRequest, exc: LoginThrottled) -> HttpResponse:
    response = error_response(request, 429, "throttled", str(exc))
    response["Retry-After"] = str(exc.retry_after)
    return response


@api.exception_handler(Http404)
def on_not_found(request: HttpRequest, exc: Http404) -> HttpResponse:
    return error_response(request, 404, "not_found", str(exc) or NOT_FOUND)


CSRF_FAILED = (
    "A browser-session request needs its CSRF token in the X-CSRFToken header; "
    "scripts should send 'Authorization: Bearer <token>' instead."
)


@api.exception_handler(PermissionDenied)
def on_forbidden(request: HttpRequest, exc: PermissionDenied) -> HttpResponse:
    detail = str(exc) or FORBIDDEN
    return error_response(request, 403, "forbidden", CSRF_FAILED if "CSRF" in detail else detail)


WORKSPACE_PATH = re.compile(r"^/api/v1/workspaces/([^/]+)/")
# Writes a viewer may make: watching writes nothing in the workspace.
VIEWERS_MAY = re.compile(r"^/api/v1/workspaces/[^/]+/watch$")


def workspace_gate(request: HttpRequest) -> HttpResponse | None:
    """The 404 or 403 a request under a workspace gets before any complaint about its body.

    django-ninja parses the body before the endpoint's access check runs; without this an
    outsider could tell a workspace exists from a 422.
    """
    match = WORKSPACE_PATH.match(request.path)
    if match is None:
        return None
    from workspaces.access import get_membership

    try:
        membership = get_membership(request.user, match.group(1))
    except Http404 as error:
        return on_not_found(request, error)
    read_only = request.method in ("GET", "HEAD", "OPTIONS") or VIEWERS_MAY.match(request.path)
    if not read_only and not membership.can_write:
        return error_response(request, 403, "forbidden", "Viewers can read this workspace but not change it.")
    return None


@api.exception_handler(ValidationError)
def on_validation_error(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    # An input schema answers its own error code in words (afterhack.schemas.Input); the rest is invalid_input.
    refused = next((e for e in exc.errors if e.get("ctx", {}).get("refused")), None)
    code, detail = (refused["type"], refused["msg"]) if refused else ("invalid_input", None)
    return workspace_gate(request) or error_response(
        request, 422, code, detail or describe_validation_errors([in_the_input(e) for e in exc.errors])
    )


@api.exception_handler(HttpError)
def on_http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    detail = str(exc.message)
    if isinstance(exc.__cause__, UnsupportedMediaType):
        words = f"Send the request body as JSON, with 'Content-Type: application/json' (not {exc.__cause__})."
        return workspace_gate(request) or error_response(request, 415, "unsupported_media_type", words)
    if exc.status_code == 400:
        words = "The request body is not valid JSON." if "parse request body" in detail else detail
        code = "invalid_input"
        if not _is_utf8(request.body):
            words = "The request body is not UTF-8 text."
            code = "invalid_source" if takes_sources(request.path) else code
        return workspace_gate(request) or error_response(request, 422, code, words)
    code = {401: "unauthorized", 403: "forbidden", 404: "not_found"}.get(exc.status_code, "error")
    return error_response(request, exc.status_code, code, CSRF_FAILED if "CSRF" in detail else detail)


@api.exception_handler(GraphError)
def on_graph_error(request: HttpRequest, exc: GraphError) -> HttpResponse:
    if isinstance(exc, GraphUnavailable):
        return unavailable_response(request, "falkordb", exc)
    # A query the graph refused is a bug of ours, not an outage: a 500 with its traceback in the log.
    logger.error("graph refused a query on %s %s", request.method, request.path, exc_info=exc)
    return error_response(request, 500, "internal_error", INTERNAL_ERROR)


def _is_utf8(body: bytes) -> bool:
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


class TokenIn(Input):
    username: Annotated[
        Text,
        Field(max_length=MAX_USERNAME_CHARS),
        Refuse(words=f"Give your username: text of at most {MAX_USERNAME_CHARS} characters, without NUL characters."),
    ]
    password: Annotated[Text, Refuse(words="Give your password as text, without NUL characters.")]


class TokenOut(Schema):
    token: str = Field(
        description="Send it as 'Authorization: Bearer <token>'; it is shown once, only its hash is kept."
    )
    expires_at: datetime = Field(description="From this moment on the token is refused (ISO 8601, UTC).")


RETRY_AFTER = {
    "responses": {429: {"headers": {"Retry-After": {"description": "Seconds to wait.", "schema": {"type": "integer"}}}}}
}


@api.post(
    "/auth/token",
    auth=None,
    response={200: TokenOut, **errors(401, 422, 429, 503)},
    tags=["auth"],
    openapi_extra=RETRY_AFTER,
)
# Never stored (RFC 6749 §5.1): the answer is a secret, yet its request carries no credentials, so
# PrivateAnswersMiddleware does not take it for a private one.
@decorate_view(never_cache)
def auth_token(request: HttpRequest, payload: TokenIn) -> Any:
    """Exchanges a username and password for a bearer token and the moment it expires.

    After AFTERHACK_LOGIN_MAX_FAILURES failed attempts for one username from one address, that
    username is refused from that address with 429 `throttled` and Retry-After (seconds) until
    the window passes, even with the right password.
    """
    user = authenticate_throttled(request, username=payload.username, password=payload.password)
    if user is None or not user.is_active:
        raise ApiError(401, "unauthorized", "Wrong username or password.")
    token, raw = token_services.token_issue(user=user, name="auth/token")
    return {"token": raw, "expires_at": token.expires_at}


SESSION_HAS_NOTHING_TO_REVOKE = (
    "This request was made with a browser session, not an API token, so there is no token to revoke. "
    "Send the token to revoke as 'Authorization: Bearer <token>', or log out to end the session."
)


@api.delete(
    "/auth/token",
    response={204: None, **errors(401, 403, 422, 503)},
    tags=["auth"],
)
def auth_token_revoke(request: HttpRequest) -> Any:
    """Revokes the token this request is made with: it is refused from now on."""
    if not isinstance(request.auth, ApiToken):  # type: ignore[attr-defined]
        raise ApiError(422, "invalid_input", SESSION_HAS_NOTHING_TO_REVOKE)
    token_services.token_revoke(token=request.auth, actor=request.user)  # type: ignore[attr-defined]
    return Status(204, None)


def _add_routers() -> None:
    from agents.api.routes import router as agents_router
    from claims.api.router import router as claims_router
    from corrections.api.router import router as corrections_router
    from notifications.api import router as notifications_router
    from notifications.api import workspace_router as watch_router
    from webhooks.api import router as webhooks_router
    from workspaces.api import router as workspaces_router

    api.add_router("/workspaces", workspaces_router)
    api.add_router("/workspaces", claims_router)
    api.add_router("/workspaces", agents_router)
    api.add_router("/workspaces", corrections_router)
    api.add_router("/workspaces", watch_router)
    api.add_router("/notifications", notifications_router)
    api.add_router("/workspaces", webhooks_router)


_add_routers()
