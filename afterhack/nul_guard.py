"""Refuses NUL characters in query and form fields at the door, for every view (the admin's included), and every
control character no stored text may hold in the admin's forms."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, JsonResponse, QueryDict
from django.shortcuts import render

from afterhack.ids import unstorable

API_PREFIX = "/api/"
ADMIN_PREFIX = "/admin/"
FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


class RefuseNulMiddleware:
    """A query or form field holding NUL gets 400 in words (the API: 422 invalid_input) before any view runs; so
    does a field of an admin form holding any control character but tab and line breaks (afterhack.ids.CONTROL).

    PostgreSQL cannot store NUL and FalkorDB's query parameters cannot carry it, nobody types one,
    and views (Django's admin among them) would otherwise hand it to a store and fail with a 500.
    Forms still refuse NUL on their own; this covers every parameter a form does not read. The app's own
    forms refuse the other control characters through their services, in place; the admin's forms (names of
    people, groups, tokens, workspaces) have no such check of their own, so it is made here.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        refused = _field_with_nul(request) or _admin_field_with_control(request)
        if refused is None:
            return self.get_response(request)
        field, problem = refused
        shown = field.replace("\x00", "\\0")[:80]
        detail = f"The field “{shown}” {problem}. Nothing was saved."
        if request.path.startswith(API_PREFIX):
            return JsonResponse({"error": "invalid_input", "detail": detail}, status=422)
        return render(request, "400.html", {"detail": detail}, status=400)


NUL_WORDS = "contains a NUL character (\\0), which no field here can hold"


def _form(request: HttpRequest) -> QueryDict | None:
    """The form fields of a page's POST (the API reads JSON, and its schemas refuse what cannot be stored)."""
    if request.method == "POST" and request.content_type in FORM_TYPES and not request.path.startswith(API_PREFIX):
        return request.POST
    return None


def _field_with_nul(request: HttpRequest) -> tuple[str, str] | None:
    """The name of the first query or form field (name or value) holding NUL, and the words, or None."""
    form = _form(request)
    for params in (request.GET, *([form] if form is not None else [])):
        for name, values in params.lists():
            if "\x00" in name or any("\x00" in value for value in values):
                return name, NUL_WORDS
    return None


def _admin_field_with_control(request: HttpRequest) -> tuple[str, str] | None:
    """The first field of an admin form whose value holds what no stored text may, and the words, or None."""
    form = _form(request) if request.path.startswith(ADMIN_PREFIX) else None
    for name, values in (form or QueryDict()).lists():
        for value in values:
            if (problem := unstorable(value)) is not None:
                return name, f"cannot contain {problem}"
    return None
