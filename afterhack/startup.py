"""What stops Afterhack from starting on a configuration that would go wrong across hosts, in words.

The same sentences stop every process kind: `manage.py` commands (a Django system check, so
`manage.py run`, `migrate`, `check`), gunicorn (the WSGI app, afterhack.wsgi) and Celery's worker
and beat (afterhack.celery). Each is decided once, at start-up.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from django.conf import settings
from django.core import checks

from afterhack import graph

# gunicorn stops the whole server (not just the worker) when a worker exits with this code.
WORKER_BOOT_ERROR = 3

BROKER_REQUIRED = (
    "FALKORDB_URL names a node of a FalkorDB cluster (or FALKORDB_CLUSTER_NODES lists its nodes), and "
    "CELERY_BROKER_URL is not set: without it the "
    "Celery broker would be the FalkorDB server's own Redis, which a cluster can't be. Set CELERY_BROKER_URL "
    "to a separate Redis (not a cluster) or RabbitMQ, the same on every web and worker host."
)
BROKER_IS_CLUSTER = (
    "CELERY_BROKER_URL names a node of a Redis cluster: Celery can't use a cluster as its broker. "
    "Name a standalone Redis (with a replica for failover) or RabbitMQ."
)


def _redis_url(url: str) -> bool:
    return url.split(":", 1)[0] in {"redis", "rediss", "unix", "falkor", "falkors"}


def refusals() -> list[tuple[str, str]]:
    """(check id, the sentence) for each reason this configuration must not start; empty when it may."""
    found = []
    if settings.SECRET_KEY_REFUSAL:
        found.append(("afterhack.E001", settings.SECRET_KEY_REFUSAL))
    found.extend(("afterhack.E004", words) for words in settings.NUMBER_REFUSALS)
    if os.environ.get("AFTERHACK_STORES") == "none":
        return found  # type checking and other tools that never touch a store
    if not settings.CELERY_BROKER_URL_GIVEN:
        # FALKORDB_CLUSTER_NODES (issue #14: the cluster's nodes listed) says it outright; else one
        # INFO: a cluster node says `redis_mode:cluster`. A store that does not answer is no reason
        # to refuse here (the app waits for it; /readyz says so).
        listed = bool(os.environ.get("FALKORDB_CLUSTER_NODES", "").strip())
        if listed or graph.redis_mode(settings.FALKORDB_URL) == "cluster":
            found.append(("afterhack.E002", BROKER_REQUIRED))
    elif _redis_url(settings.CELERY_BROKER_URL) and graph.redis_mode(settings.CELERY_BROKER_URL) == "cluster":
        found.append(("afterhack.E003", BROKER_IS_CLUSTER))
    return found


@checks.register()
def refusal_check(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """The refusals as errors of Django's system checks: `manage.py` commands stop with their words."""
    return [checks.Error(words, id=check_id) for check_id, words in refusals()]


def refuse_or_continue(process: str) -> None:
    """For processes that run no system checks (gunicorn, Celery): prints the refusals and exits."""
    found = refusals()
    if not found:
        return
    for _, words in found:
        print(f"Afterhack's {process} will not start: {words}", file=sys.stderr, flush=True)
    raise SystemExit(WORKER_BOOT_ERROR)
