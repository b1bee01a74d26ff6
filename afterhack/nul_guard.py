"""Refuses NUL characters in query and form fields at the door, for every view (the admin's included)."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, JsonResponse, QueryDict
from django.shortcuts import render

API_PREFIX = "/api/"
FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


class RefuseNulMiddleware:
    """A query or form field holding NUL gets 400 in words (the API: 422 invalid_input) before any view runs.

    PostgreSQL cannot store NUL and FalkorDB's query parameters cannot carry it, nobody types one,
    and views (Django's admin among them) would otherwise hand it to a store and fail with a 500.
    Forms still refuse NUL on their own; this covers every parameter a form does not read.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        field = _field_with_nul(request)
        if field is None:
            return self.get_response(request)
        shown = field.replace("\x00", "\\0")[:80]
        detail = f"The field “{shown}” contains a NUL character (\\0), which no field here can hold. Nothing was saved."
        if request.path.startswith(API_PREFIX):
            return JsonResponse({"error": "invalid_input", "detail": detail}, status=422)
        return render(request, "400.html", {"detail": detail}, status=400)


def _field_with_nul(request: HttpRequest) -> str | None:
    """The name of the first query or form field (name or value) holding NUL, or None."""
    fields: list[QueryDict] = [request.GET]
    # The API reads JSON (its schemas refuse NUL); a form body there is left to the API's own error format.
    if request.method == "POST" and request.content_type in FORM_TYPES and not request.path.startswith(API_PREFIX):
        fields.append(request.POST)
    for params in fields:
        for name, values in params.lists():
            if "\x00" in name or any("\x00" in value for value in values):
                return name
    return None
