"""Who is acting, for the audit events that model signals record (workspaces/signals.py).

A change of who may do what can come from the Django admin, the pages, the API or a command, and only the
first three have a request. `ActingPersonMiddleware` keeps the request being served in a context variable for
as long as it is served; `acting_person()` then reads its user at the moment a change is recorded — after the
API's token authentication has set it — and answers None (the audit trail's "system") outside a request: a
`manage.py` command, a worker's task, the shell.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from django.http import HttpRequest, HttpResponse

# A context variable, not a thread-local: each of gunicorn's threads (and any asyncio task) sees only its own.
_serving: ContextVar[HttpRequest | None] = ContextVar("afterhack_serving", default=None)


class ActingPersonMiddleware:
    """Keeps the request being served where model signals can find who is acting (after authentication)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        token = _serving.set(request)
        try:
            return self.get_response(request)
        finally:
            _serving.reset(token)


def acting_person() -> Any | None:
    """The signed-in person whose request is being served, or None (a command, a task: the system)."""
    request = _serving.get()
    user = getattr(request, "user", None) if request is not None else None
    return user if user is not None and user.is_authenticated else None


# Where a change was made, by the start of the request's path.
THROUGH = (("/admin/", "the Django admin"), ("/api/", "the API"), ("/mcp", "MCP"))


def acting_through() -> str:
    """Where the change is being made, in words: the Django admin, the API, the pages, or a command."""
    request = _serving.get()
    if request is None:
        return "a command or background task"
    return next((words for start, words in THROUGH if request.path.startswith(start)), "the pages")
