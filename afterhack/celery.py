"""The Celery app; the broker defaults to the embedded FalkorDB's Redis (another db number)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "afterhack.settings")

app = Celery("afterhack")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
