"""A store that is down or saturated is answered 503 naming it: alike for pages, the API and /healthz."""

from __future__ import annotations

import logging
import sys

import psycopg
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import loader
from kombu.exceptions import OperationalError as KombuOperationalError
from psycopg_pool import PoolTimeout, TooManyRequests

from afterhack.errors import INTERNAL_ERROR
from afterhack.graph import GraphUnavailable

logger = logging.getLogger("afterhack.outages")

API_PREFIX = "/api/"
# Seconds a client should wait before trying again; the launcher restarts an embedded store in about one.
RETRY_AFTER = 5
# The header that tells the page's script which store is unavailable.
STORE_HEADER = "Afterhack-Unavailable"

STORE_WORDS = {
    "postgres": "PostgreSQL (users, workspaces, the audit trail)",
    "falkordb": "FalkorDB (the graph database)",
    "broker": "The task queue (Celery's broker, by default on the FalkorDB server)",
}


def store_outage(error: BaseException | None) -> str | None:
    """'postgres', 'falkordb' or 'broker' when `error` (or what caused it) means that store cannot answer now."""
    seen = 0
    while error is not None and seen < 5:
        if isinstance(error, GraphUnavailable):
            return "falkordb"
        if isinstance(error, (OperationalError, InterfaceError, psycopg.OperationalError, psycopg.InterfaceError)):
            return "postgres"
        if isinstance(error, KombuOperationalError):
            return "broker"
        error, seen = error.__cause__ or error.__context__, seen + 1
    return None


def outage_detail(store: str, error: BaseException) -> str:
    """The sentence a person reads: which store, and what went wrong with it."""
    # A pool that gave no connection in time cannot tell a restarting server from a saturated one.
    waited = isinstance(error, (PoolTimeout, TooManyRequests)) or isinstance(
        error.__cause__, (PoolTimeout, TooManyRequests)
    )
    state = (
        "gave no connection in time (it is restarting, or every connection is in use)" if waited else "is not answering"
    )
    return f"{STORE_WORDS[store]} {state}; try again in a few seconds."


def unavailable_response(request: HttpRequest, store: str, error: BaseException) -> HttpResponse:
    """503 naming the store: {"error": "unavailable"} under the API, a page in words elsewhere."""
    detail = outage_detail(store, error)
    logger.warning("%s unavailable on %s %s: %s", store, request.method, request.path, error)
    if request.path.startswith(API_PREFIX):
        response: HttpResponse = JsonResponse({"error": "unavailable", "detail": detail, "store": store}, status=503)
    else:
        # Rendered without the request: the context processors would reach for the store that is down.
        page = loader.render_to_string("503.html", {"detail": detail})
        response = HttpResponse(page, status=503)
    response["Retry-After"] = str(RETRY_AFTER)
    response[STORE_HEADER] = store
    return response


def server_error(request: HttpRequest) -> HttpResponse:
    """Django's handler500: 503 naming the store when one is down, else the plain 500 (JSON under the API)."""
    error = sys.exc_info()[1]
    store = store_outage(error)
    if store is not None and error is not None:
        return unavailable_response(request, store, error)
    if request.path.startswith(API_PREFIX):
        return JsonResponse({"error": "internal_error", "detail": INTERNAL_ERROR}, status=500)
    return HttpResponse(loader.render_to_string("500.html"), status=500)
