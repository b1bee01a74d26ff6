"""How MCP clients reach the tools: `/mcp` on the app's own address (the SDK's streamable-HTTP app, served
stateless inside the WSGI server through a2wsgi) and stdio (`manage.py mcp --user NAME`).

The bearer token is checked exactly as the API checks it, in the WSGI thread, before the request reaches the
SDK; the database connection that check used is handed back at once, so no thread holds one while it waits.
Only POST reaches the SDK: the server is stateless, so it has no event stream to open (GET) and no session to end
(DELETE), and says so with a 405 before anything else is looked at (`ALLOWED`). Every answer, the SDK's and this
module's own, is marked no-store and carries the app's Permissions-Policy (`PRIVATE_HEADERS`): Django's middleware,
which adds them to the app's answers, never sees these.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import threading
from collections.abc import Callable, Iterable
from typing import Any, cast

from a2wsgi import ASGIMiddleware
from django.conf import settings
from django.db import connections
from django.http.request import split_domain_port, validate_host
from mcp.server.transport_security import TransportSecuritySettings

from afterhack.http import PERMISSIONS_POLICY, bearer_challenge
from afterhack.outages import RETRY_AFTER, outage_detail, store_outage
from mcp_server import services
from mcp_server.calls import PRINCIPAL, UNAUTHORIZED, Principal
from mcp_server.models import Transport
from mcp_server.server import build_server
from workspaces.auth import TokenRefused, token_authenticate

Environ = dict[str, Any]
StartResponse = Callable[..., Any]
WSGIApp = Callable[[Environ, StartResponse], Iterable[bytes]]

PATH = "/mcp"
PRINCIPAL_KEY = "afterhack.mcp_principal"
# What a stateless streamable-HTTP server serves: clients POST their JSON-RPC messages and get each answer as JSON.
# The protocol lets a server refuse GET (the server-to-client event stream) and DELETE (ending a session) with 405,
# and the SDK's stateless handler for the current protocol answers every other method `405 Allow: POST`; but its
# handler for clients of the handshake protocol opens that event stream and keeps it, pinged, for as long as the
# client stays, holding a server thread each (issue #23). So the method is answered here, before the SDK.
ALLOWED = "POST"
NOT_ALLOWED = (
    "The MCP endpoint is stateless: send each JSON-RPC message with POST. It opens no event stream (GET) and has "
    "no session to end (DELETE)."
)


# What Django's middleware adds to the app's own answers, added here since /mcp is served beside Django: a tool's
# answer holds workspace content and a session handle, so no cache may keep it (every /mcp request needs a token),
# and the browser features the app denies are denied alike.
PRIVATE_HEADERS = (("Cache-Control", "no-store"), ("Permissions-Policy", PERMISSIONS_POLICY))
PRIVATE_NAMES = frozenset(name.lower() for name, _ in PRIVATE_HEADERS)


def _private(start_response: StartResponse) -> StartResponse:
    """`start_response`, with the private headers in place of any the answer had of their names."""

    def start(status: str, headers: list[tuple[str, str]], *exc_info: Any) -> Any:
        kept = [(name, value) for name, value in headers if name.lower() not in PRIVATE_NAMES]
        return start_response(status, [*kept, *PRIVATE_HEADERS], *exc_info)

    return start


def _json(start_response: StartResponse, status: str, body: dict[str, str], *extra: tuple[str, str]) -> list[bytes]:
    data = json.dumps(body).encode()
    start_response(status, [("Content-Type", "application/json"), ("Content-Length", str(len(data))), *extra])
    return [data]


class Unavailable(Exception):
    """The token could not be checked: a store is down; the message names it, as the API's 503 does."""


def _principal(environ: Environ) -> Principal | str:
    """The token's user as the caller, or the words of the 401 the API answers."""
    header = environ.get("HTTP_AUTHORIZATION", "")
    scheme, _, raw = header.partition(" ")
    try:
        token = token_authenticate(raw.strip()) if scheme.lower() == "bearer" else None
    except TokenRefused as refused:
        return str(refused)
    except Exception as error:
        store = store_outage(error)
        if store is None:
            raise
        raise Unavailable(outage_detail(store, error)) from error
    finally:
        connections.close_all()
    return Principal(user_id=token.user_id, transport=Transport.HTTP) if token is not None else UNAUTHORIZED


class HttpEndpoint:
    """The SDK's streamable-HTTP app as a WSGI app, with its event loop (a thread of this process) started on the
    first request, so that each forked web worker runs its own."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._app: WSGIApp | None = None

    def _start(self) -> WSGIApp:
        server = build_server()
        # No Host check of the SDK's own: Django's ALLOWED_HOSTS is checked before (and a token is required).
        starlette = server.streamable_http_app(
            streamable_http_path=PATH, stateless_http=True, json_response=True,
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
            max_request_body_size=settings.DATA_UPLOAD_MAX_MEMORY_SIZE,
        )  # fmt: skip

        async def with_principal(scope: Any, receive: Any, send: Any) -> None:
            PRINCIPAL.set(scope.get("wsgi_environ", {}).get(PRINCIPAL_KEY))
            await starlette(scope, receive, send)

        loop = asyncio.new_event_loop()
        threading.Thread(target=loop.run_forever, name="mcp-event-loop", daemon=True).start()
        started: concurrent.futures.Future[None] = concurrent.futures.Future()

        async def keep_running() -> None:
            # What the Starlette app's lifespan would do: the SDK's request handling runs inside this task group.
            async with server.session_manager.run():
                started.set_result(None)
                await asyncio.Event().wait()

        asyncio.run_coroutine_threadsafe(keep_running(), loop)
        started.result(timeout=30)
        # a2wsgi types the environ as its own TypedDict; it is the server's plain dict all the same.
        return cast(WSGIApp, ASGIMiddleware(with_principal, loop=loop))

    def __call__(self, environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
        start_response = _private(start_response)
        host, _ = split_domain_port(environ.get("HTTP_HOST", ""))
        if not validate_host(host, settings.ALLOWED_HOSTS):
            return _json(start_response, "400 Bad Request", {"error": "invalid_input", "detail": "Unknown Host."})
        # Before the token: the answer depends on the method alone and says only what the protocol and the README
        # say (the endpoint takes POST); a token-less client learns nothing a token-less POST's 401 does not tell
        # it, no database is asked, and a wrong method is refused alike with or without a token, as the API does.
        if environ.get("REQUEST_METHOD") != ALLOWED:
            body = {"error": "method_not_allowed", "detail": NOT_ALLOWED}
            return _json(start_response, "405 Method Not Allowed", body, ("Allow", ALLOWED))
        try:
            principal = _principal(environ)
        except Unavailable as down:
            body = {"error": "unavailable", "detail": str(down)}
            return _json(start_response, "503 Service Unavailable", body, ("Retry-After", str(RETRY_AFTER)))
        if isinstance(principal, str):
            body = {"error": "unauthorized", "detail": principal}
            challenge = bearer_challenge(environ.get("HTTP_AUTHORIZATION", ""))
            return _json(start_response, "401 Unauthorized", body, ("WWW-Authenticate", challenge))
        environ[PRINCIPAL_KEY] = principal
        with self._lock:
            if self._app is None:
                self._app = self._start()
        return self._app(environ, start_response)


def with_mcp(app: WSGIApp) -> WSGIApp:
    """`app`, with `/mcp` answered by the MCP server instead."""
    endpoint = HttpEndpoint()

    def application(environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
        if environ.get("PATH_INFO", "").rstrip("/") == PATH:
            return endpoint(environ, start_response)
        return app(environ, start_response)

    return application


def serve_stdio(user: Any) -> None:
    """Serves the tools on stdin/stdout for `user`, whose one session is the default of every call."""
    _, handle = services.session_open(user=user, transport=Transport.STDIO)
    connections.close_all()
    PRINCIPAL.set(Principal(user.pk, Transport.STDIO, default_handle=handle))
    build_server().run("stdio")
