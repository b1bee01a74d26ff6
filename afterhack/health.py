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


# Once this process has seen every migration it knows applied (and its static files collected), it
# stops asking: migrations are only ever added, by a deploy (the process is replaced then).
_migrated = {"all": False, "static": False}


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


def static_state() -> str:
    """'ok', or 'missing' when the hashed static files' manifest was never collected on this host (every page
    would fail naming a static file): `manage.py collectstatic` (the launcher runs it) must come first."""
    if _migrated.get("static"):
        return "ok"
    from django.contrib.staticfiles.storage import ManifestFilesMixin, staticfiles_storage

    if isinstance(staticfiles_storage, ManifestFilesMixin) and not staticfiles_storage.manifest_storage.exists(
        staticfiles_storage.manifest_name
    ):
        return "missing"
    _migrated["static"] = True
    return "ok"


@csrf_exempt
@require_GET
def readyz(request: HttpRequest) -> JsonResponse:
    """For load balancers: 200 when this process can serve requests, else 503.

    Ready means: both stores answer this process, PostgreSQL has every migration this process's code
    knows (a new host started before `manage.py migrate` ran waits out of rotation), and this host's
    static files were collected. The body names each part:
    {"ready": true, "postgres": "ok", "falkordb": "ok", "migrations": "applied", "static": "ok"}.
    """
    report: dict[str, object] = {"ready": False, "postgres": postgres_state(), "falkordb": falkordb_state()}
    report["migrations"] = migrations_state() if report["postgres"] == "ok" else "unknown"
    report["static"] = static_state()
    ready = (
        report["postgres"] == "ok"
        and report["falkordb"] == "ok"
        and report["migrations"] == "applied"
        and report["static"] == "ok"
    )
    report["ready"] = ready
    return JsonResponse(report, status=200 if ready else 503)
