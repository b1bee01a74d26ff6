"""WSGI entry point (gunicorn serves `config.wsgi:application`)."""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterable
from typing import Any

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

Environ = dict[str, Any]
StartResponse = Callable[..., Any]
WSGIApp = Callable[[Environ, StartResponse], Iterable[bytes]]


def with_chunked_bodies(app: WSGIApp, *, limit: int) -> WSGIApp:
    """Gives Django the body of a chunked request, which it would otherwise read as empty.

    The server (gunicorn) decodes the chunks and marks its input as terminated at the body's end
    (`wsgi.input_terminated`); Django only reads CONTENT_LENGTH bytes. At most `limit` + 1 bytes
    are read, so a body over Django's limit is still refused by Django, in words. The read never waits on the
    client: gunicorn's worker (afterhack/web_worker.py) hands the app a request only once its body has arrived
    whole, and answers 408 to one that does not arrive in time.
    """

    def application(environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
        chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
        if chunked and not environ.get("CONTENT_LENGTH") and environ.get("wsgi.input_terminated"):
            body = environ["wsgi.input"].read(limit + 1)
            environ["wsgi.input"] = io.BytesIO(body)
            environ["CONTENT_LENGTH"] = str(len(body))
        return app(environ, start_response)

    return application


def _application() -> WSGIApp:
    django_app = get_wsgi_application()
    from django.conf import settings

    from afterhack.startup import refuse_or_continue

    # gunicorn runs no system checks: the start-up refusals are checked here, once per worker.
    refuse_or_continue("web server")

    # /mcp is the MCP server's (streamable HTTP); every other path is Django's.
    from mcp_server.transport import with_mcp

    return with_chunked_bodies(with_mcp(django_app), limit=settings.DATA_UPLOAD_MAX_MEMORY_SIZE)


application = _application()
