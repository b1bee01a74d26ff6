"""GET /healthz and /readyz: are both stores answering this process, right now (and, for /readyz, is
the database migrated for this code)? See docs/operations.md, "Many hosts"."""

from __future__ import annotations

import logging

import psycopg
from django.db import connection
from django.db.utils import Error as DatabaseError
from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET
from psycopg_pool import PoolTimeout, TooManyRequests

from afterhack import graph

# Details (socket paths, error text) go to the log, not to an endpoint anyone can call.
logger = logging.getLogger("afterhack.health")


def postgres_state() -> str:
    """'ok', 'busy' (up, but every pooled connection is in use) or 'down'."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError as error:
        if isinstance(error.__cause__, (PoolTimeout, TooManyRequests)) and _server_answers():
            logger.warning("healthz: postgres is up but this process's connection pool is exhausted")
            return "busy"
        logger.warning("healthz: postgres is down: %s", error)
        # A broken connection must not be handed to the next request.
        connection.close()
        return "down"
    return "ok"


def _server_answers() -> bool:
    """Whether PostgreSQL accepts a new connection outside the pool: tells a full pool from a dead server."""
    params = {**connection.get_connection_params(), "connect_timeout": 2}
    params.pop("cursor_factory", None)
    try:
        with psycopg.connect(**params) as probe:
            probe.execute("SELECT 1")
    except psycopg.Error:
        return False
    return True


def falkordb_state() -> str:
    """'ok' or 'down'."""
    try:
        graph.ping()
    except graph.GraphError as error:
        logger.warning("healthz: falkordb is down: %s", error)
        return "down"
    return "ok"


@csrf_exempt
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """200 when both stores answer; else 503 with each store's state ('down', or 'busy' for a full pool)."""
    report = {"status": "ok", "postgres": postgres_state(), "falkordb": falkordb_state()}
    healthy = report["postgres"] == "ok" and report["falkordb"] == "ok"
    report["status"] = "ok" if healthy else "unavailable"
    return JsonResponse(report, status=200 if healthy else 503)


# Once this process has seen every migration it knows applied, it stops asking: migrations are only
# ever added, by a deploy (the process is replaced then).
_migrated = {"all": False}


def migrations_state() -> str:
    """'applied' when PostgreSQL has every migration this code knows, else 'pending' (or 'unknown': no answer)."""
    if _migrated["all"]:
        return "applied"
    from django.db.migrations.executor import MigrationExecutor

    try:
        executor = MigrationExecutor(connection)
        plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    except DatabaseError as error:
        logger.warning("readyz: the applied migrations could not be read: %s", error)
        connection.close()
        return "unknown"
    _migrated["all"] = not plan
    return "pending" if plan else "applied"


@csrf_exempt
@require_GET
def readyz(request: HttpRequest) -> JsonResponse:
    """For load balancers: 200 when this process can serve requests, else 503.

    Ready means: both stores answer this process, and PostgreSQL has every migration this process's
    code knows (a new host started before `manage.py migrate` ran waits out of rotation). The body
    names each part: {"ready": true, "postgres": "ok", "falkordb": "ok", "migrations": "applied"}.
    """
    report: dict[str, object] = {"ready": False, "postgres": postgres_state(), "falkordb": falkordb_state()}
    report["migrations"] = migrations_state() if report["postgres"] == "ok" else "unknown"
    ready = report["postgres"] == "ok" and report["falkordb"] == "ok" and report["migrations"] == "applied"
    report["ready"] = ready
    return JsonResponse(report, status=200 if ready else 503)
