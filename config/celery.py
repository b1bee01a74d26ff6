"""The Celery app; the broker defaults to the embedded FalkorDB's Redis (another db number)."""

import os
from typing import Any

from celery import Celery
from celery.signals import beat_init, worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("afterhack")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_init.connect
def _refuse_worker(**kwargs: Any) -> None:
    """Celery's Django fixup runs the system checks but ignores their errors: the refusals stop it here."""
    from afterhack.startup import refuse_or_continue

    refuse_or_continue("Celery worker")


@beat_init.connect
def _refuse_beat(**kwargs: Any) -> None:
    from afterhack.startup import refuse_or_continue

    refuse_or_continue("Celery beat")
