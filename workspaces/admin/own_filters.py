"""A changelist of the admin narrowed only by the filters it shows (the audit trail's, the tokens')."""

from __future__ import annotations

import logging
from typing import Any

from django.contrib.admin import SimpleListFilter
from django.contrib.admin.exceptions import DisallowedModelAdminLookup
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse

from afterhack.admin import CheckedModelAdmin

# Where Django logs a refused lookup when it answers the refusal itself.
security_logger = logging.getLogger("django.security.DisallowedModelAdminLookup")


class OwnFiltersOnly(CheckedModelAdmin):
    """A changelist narrowed only by the filters it shows. Django's admin takes any lookup on the model's own fields
    from the address (`?target__icontains=…`, `?key_hash__startswith=…`), and how many rows match would spell out
    what the list withholds (titles, quotes, token hashes) letter by letter; any other lookup is refused (400) in
    words, whatever it matches, so the answer tells nothing of the value asked. A SimpleListFilter's parameter is
    its own, taken as it is."""

    own_lookups: frozenset[str] = frozenset()
    narrowed_by = "the filters beside the list"

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest) -> bool:
        # A SimpleListFilter's parameter is asked for too (Django checks every parameter of the address).
        simple = {
            f.parameter_name
            for f in self.get_list_filter(request)
            if isinstance(f, type) and issubclass(f, SimpleListFilter)
        }
        return lookup in self.own_lookups or lookup in simple

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        try:
            return super().changelist_view(request, extra_context)
        except DisallowedModelAdminLookup as refused:
            security_logger.warning("%s", refused)
            detail = (
                f"The {self.model._meta.verbose_name_plural} can be narrowed only by {self.narrowed_by} and the "
                "search box above it. Nothing else in the address is taken."
            )
            return TemplateResponse(request, "400.html", {"detail": detail}, status=400)
