"""The wiring on top: settings, the URLconf, the API root, the WSGI app (with /mcp), Celery's app, the middleware,
the demo workspace and the commands that compose the apps. It imports every app; nothing below it imports it."""

from config.celery import app as celery_app

__all__ = ["celery_app"]
