"""Headers and formats every answer gets: the API's error format under /api/v1 (even for answers Django makes
itself), no caching of what was answered to someone signed in, and the browser features the app denies."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.utils.cache import add_never_cache_headers

from afterhack.errors import INTERNAL_ERROR
from afterhack.http import PERMISSIONS_POLICY
from afterhack.outages import store_outage, unavailable_response
from claims.text import MAX_SOURCE_CHARS

# Under the `afterhack` logger settings configure, named as the API's log lines were before the wiring moved.
logger = logging.getLogger("afterhack.api")

API_PREFIX = "/api/"
# The endpoints whose bodies are sources: a body they cannot read is an invalid_source.
SOURCE_PATHS = ("/sources", "/sources:batch")


def takes_sources(path: str) -> bool:
    """Whether the API endpoint at `path` takes sources as its body (its unreadable body is an invalid_source)."""
    return path.rstrip("/").endswith(SOURCE_PATHS)


FALLBACKS = {
    404: ("not_found", "There is no such API endpoint; see /api/v1/docs."),
    405: ("method_not_allowed", "This endpoint does not accept that HTTP method; see /api/v1/docs."),
}


class ApiErrorFormatMiddleware:
    """404, 405 and unhandled errors under /api/v1 answered as {"error", "detail"}, never as HTML."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if not request.path.startswith(API_PREFIX) or response.status_code not in FALLBACKS:
            return response
        if response.get("Content-Type", "").startswith("application/json") and _has_error_shape(response):
            return response
        code, detail = FALLBACKS[response.status_code]
        answer = JsonResponse({"error": code, "detail": detail}, status=response.status_code)
        if response.has_header("Allow"):
            answer["Allow"] = response["Allow"]
        return answer

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not request.path.startswith(API_PREFIX):
            return None
        if isinstance(exception, RequestDataTooBig):
            code = "invalid_source" if takes_sources(request.path) else "invalid_input"
            limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE // (1024 * 1024)
            detail = f"The request body is larger than {limit} MB; a source can hold at most {MAX_SOURCE_CHARS:,} characters."
            if request.path.rstrip("/").endswith(":batch"):
                detail = f"The request body is larger than {limit} MB; send the sources in smaller batches."
            return JsonResponse({"error": code, "detail": detail}, status=422)
        if (store := store_outage(exception)) is not None:
            return unavailable_response(request, store, exception)
        logger.exception("unhandled error on %s %s", request.method, request.path, exc_info=exception)
        return JsonResponse({"error": "internal_error", "detail": INTERNAL_ERROR}, status=500)


def _has_error_shape(response: HttpResponse) -> bool:
    try:
        body = json.loads(response.content)
    except ValueError:
        return False
    return isinstance(body, dict) and "error" in body and "detail" in body


class PrivateAnswersMiddleware:
    """Every answer to a request that carries credentials is marked never to be stored (Cache-Control: no-store,
    with Django's never_cache headers): the pages of a signed-in person, the API's answers to a token or a session,
    the CSV and PROV downloads. A browser's cache, a shared computer's disk or a proxy must not keep a workspace's
    content after the person signs out.

    Judged by what the request carries (a session cookie, an Authorization header, the portal's user header), never
    by asking the session store who the user is: this runs after the view, also when a store is down. Anonymous
    answers (/healthz, public errors) are left as they are (the login page is never cached by Django itself, the
    answer with a new API token by `config.api.auth_token`; /mcp, served beside Django, by its transport);
    static files never reach it (WhiteNoise answers them first and keeps its year-long caching).
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if _carries_credentials(request):
            add_never_cache_headers(response)
        return response


def _carries_credentials(request: HttpRequest) -> bool:
    portal = settings.REMOTE_USER_HEADER
    return (
        settings.SESSION_COOKIE_NAME in request.COOKIES
        or "Authorization" in request.headers
        or bool(portal and portal in request.headers)
    )


class PermissionsPolicyMiddleware:
    """The Permissions-Policy header on every answer, static files included (Django has no setting for it)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        response.headers.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
        return response
