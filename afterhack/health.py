"""GET /healthz: are both stores answering?"""

from __future__ import annotations

import logging

from django.db import connection
from django.db.utils import Error as DatabaseError
from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET

from afterhack import graph

# Details (socket paths, error text) go to the log, not to an endpoint anyone can call.
logger = logging.getLogger("afterhack.health")


@csrf_exempt
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    report = {"status": "ok", "postgres": "ok", "falkordb": "ok"}
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError:
        logger.exception("healthz: postgres is down")
        report["postgres"] = "down"
    try:
        graph.ping()
    except graph.GraphError:
        logger.exception("healthz: falkordb is down")
        report["falkordb"] = "down"
    healthy = report["postgres"] == "ok" and report["falkordb"] == "ok"
    report["status"] = "ok" if healthy else "unavailable"
    return JsonResponse(report, status=200 if healthy else 503)
