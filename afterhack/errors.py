"""Errors a person can act on. Each carries the API error code and status it is answered with."""

from __future__ import annotations

from django.http import Http404


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

    def __init__(self, message: str = "") -> None:
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
