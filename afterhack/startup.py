"""What stops Afterhack from starting on a configuration that would go wrong across hosts, in words.

The same sentences stop every process that serves or runs jobs: the launcher (`manage.py run`, and `runserver`),
gunicorn (the WSGI app, config.wsgi), Celery's worker and beat (config.celery), and `manage.py check`
(with or without --deploy), for a deployment to try its environment. Other `manage.py` commands (`migrate`,
`createsuperuser`, `backup`, ...) refuse only what the settings alone show (a missing shared key, a number that is
not one): the broker's check asks a server over the network (one INFO, up to 2 s when nothing answers), and a
migrate step has no broker to be wrong about. Each is decided once.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core import checks

from afterhack import graph

# gunicorn stops the whole server (not just the worker) when a worker exits with this code.
WORKER_BOOT_ERROR = 3

# The manage.py commands whose system checks include the refusals.
REFUSING_COMMANDS = frozenset({"run", "runserver", "check"})

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


def refusals(*, ask_servers: bool = True) -> list[tuple[str, str]]:
    """(check id, the sentence) for each reason this configuration must not start; empty when it may. Without
    `ask_servers`, only what the settings alone show (a missing shared key, a number that is not one)."""
    found = []
    if settings.SECRET_KEY_REFUSAL:
        found.append(("afterhack.E001", settings.SECRET_KEY_REFUSAL))
    found.extend(("afterhack.E004", words) for words in settings.NUMBER_REFUSALS)
    if not ask_servers or os.environ.get("AFTERHACK_STORES") == "none":
        return found  # type checking and other tools that never touch a store
    if not settings.CELERY_BROKER_URL_GIVEN:
        # The gateway's own reading of a cluster (nodes listed, or a node that says so). A store that does not
        # answer is no reason to refuse here (the app waits for it; /readyz says so).
        if graph.names_a_cluster(settings.FALKORDB_URL, settings.FALKORDB_CLUSTER_NODES):
            found.append(("afterhack.E002", BROKER_REQUIRED))
    elif _redis_url(settings.CELERY_BROKER_URL) and graph.redis_mode(settings.CELERY_BROKER_URL) == "cluster":
        found.append(("afterhack.E003", BROKER_IS_CLUSTER))
    return found


def manage_py_command(argv: list[str]) -> str | None:
    """The `manage.py` (or django-admin, `python -m django`) command `argv` runs, or None for any other program."""
    program = Path(argv[0]).name if argv else ""
    if program not in {"manage.py", "django-admin", "__main__.py"} or len(argv) < 2:
        return None
    return argv[1]


@checks.register()
def refusal_check(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """The refusals as errors of Django's system checks: every command refuses what the settings alone show;
    the commands that start the app or check it also ask the servers."""
    found = refusals(ask_servers=manage_py_command(sys.argv) in REFUSING_COMMANDS)
    return [checks.Error(words, id=check_id) for check_id, words in found]


def refuse_or_continue(process: str) -> None:
    """For processes that run no system checks (gunicorn, Celery): prints the refusals and exits."""
    found = refusals()
    if not found:
        return
    for _, words in found:
        print(f"Afterhack's {process} will not start: {words}", file=sys.stderr, flush=True)
    raise SystemExit(WORKER_BOOT_ERROR)
