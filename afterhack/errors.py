"""Errors a person can act on. Each carries the API error code and status it is answered with."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import Http404

# The sentences the API, the pages' JSON answers and the MCP tools say when nothing more specific applies.
INTERNAL_ERROR = "Something went wrong on the server. Try again, and report it if it repeats."
NOT_FOUND = "Not found."
FORBIDDEN = "You are not allowed to do this."


class UserError(ValueError):
    """Input that cannot be used as it is; the message says why, in words."""

    code = "invalid_input"
    status = 422


class Conflict(UserError):
    """The request was fine, but the thing it acts on changed or is in the wrong state."""

    code = "conflict"
    status = 409


class NotFound(Http404):
    """No such thing in this workspace (404); the sentence names the thing."""

    thing = "thing"

    def __init__(self, message: str = "", *, as_of: str | None = None) -> None:
        if not message and as_of:
            # A read of the past (a graph time): the thing may exist now, made after that moment.
            message = f"No such {self.thing} in this workspace as of {as_of}: it did not exist yet, or never did."
        super().__init__(message or f"No such {self.thing} in this workspace.")


class GraphError(RuntimeError):
    """A FalkorDB call failed; the message says what and why, in words."""


class GraphUnavailable(GraphError):
    """FalkorDB could not be reached, went away mid-call, or is too busy: worth trying again shortly."""


def found[T](value: T | None, missing: Exception) -> T:
    """`value` as read, or `missing` raised where the read found nothing (no such id in the workspace)."""
    if value is None:
        raise missing
    return value


def answered_as(error: Exception) -> tuple[int, str, str] | None:
    """The status, error code and sentence an error a caller can act on is answered with (bad input, not found,
    not allowed); None for any other error."""
    if isinstance(error, UserError):
        return error.status, error.code, str(error)
    if isinstance(error, Http404):
        return 404, "not_found", str(error) or NOT_FOUND
    if isinstance(error, PermissionDenied):
        return 403, "forbidden", str(error) or FORBIDDEN
    return None
