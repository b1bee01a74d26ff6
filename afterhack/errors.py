"""Errors a person can act on. Each carries the API error code and status it is answered with."""

from __future__ import annotations


class UserError(ValueError):
    """Input that cannot be used as it is; the message says why, in words."""

    code = "invalid_input"
    status = 422


class Conflict(UserError):
    """The request was fine, but the thing it acts on changed or is in the wrong state."""

    code = "conflict"
    status = 409
