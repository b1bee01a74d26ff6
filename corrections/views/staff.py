"""The staff audit's guard: its pages are for staff, every other person is told so in words."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http.response import HttpResponseBase


def staff_only[**P, R: HttpResponseBase](view: Callable[P, R]) -> Callable[P, R]:
    """The staff audit's pages: a visitor logs in first; a person who is not staff gets the 403 page in words
    (not the Django admin's login form)."""

    @wraps(view)
    @login_required
    def guarded(*args: P.args, **kwargs: P.kwargs) -> R:
        request = args[0]
        if not request.user.is_staff:  # type: ignore[attr-defined]
            raise PermissionDenied("The audit is for staff auditors; ask an administrator if you need it.")
        return view(*args, **kwargs)

    return guarded
