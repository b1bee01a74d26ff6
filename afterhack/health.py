"""GET /healthz: are both stores answering?"""

from __future__ import annotations

from django.db import connection
from django.db.utils import Error as DatabaseError
from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_GET

from afterhack import graph


@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    report = {"status": "ok", "postgres": "ok", "falkordb": "ok"}
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError as error:
        report["postgres"] = f"down: {error.__class__.__name__}"
    try:
        graph.ping()
    except graph.GraphError as error:
        report["falkordb"] = f"down: {error}"
    healthy = report["postgres"] == "ok" and report["falkordb"] == "ok"
    report["status"] = "ok" if healthy else "unavailable"
    return JsonResponse(report, status=200 if healthy else 503)
