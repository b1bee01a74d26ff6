"""The admin's audit trail: read-only, withholding what a reader may not read (workspaces/disclosure.py)."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import admin
from django.db import models
from django.db.models import QuerySet
from django.http import HttpRequest

from workspaces.admin.own_filters import OwnFiltersOnly
from workspaces.disclosure import event_shown, shown_whole
from workspaces.models import AuditEvent
from workspaces.selectors.memberships import memberships_by_workspace, readable_in


@admin.register(AuditEvent)
class AuditEventAdmin(OwnFiltersOnly):
    """Read-only: the audit trail has no add, change or delete path, here or anywhere. What an event names in a
    workspace the reader may not read is withheld, as on the audit pages (workspaces/disclosure.py)."""

    list_display = ["created_at", "actor_name", "workspace", "verb", "shown_target"]
    list_filter = ["verb", "workspace", "created_at"]
    search_fields = ["actor_name", "verb"]
    date_hierarchy = "created_at"
    readonly_fields = ("created_at", "actor", "actor_name", "workspace", "verb", "shown_target", "shown_payload")
    fields = readonly_fields
    # The lookups the list's own filters and date drill-down put in the address: the only ones it takes (a lookup on
    # the target or the payload would spell out withheld titles and quotes). Sorting is safe as it is: `?o=` picks a
    # column of list_display, and the target's column has no field to sort by.
    own_lookups = frozenset({
        "verb", "verb__isnull", "workspace__id__exact", "workspace__isnull",
        "created_at__gte", "created_at__lt", "created_at__year", "created_at__month", "created_at__day",
    })  # fmt: skip
    narrowed_by = "the filters beside the list (verb, workspace, created at)"

    def get_queryset(self, request: HttpRequest) -> QuerySet[AuditEvent]:
        # Each event knows whether this reader may read its workspace: one admin serves every request's thread.
        readable = readable_in(memberships_by_workspace(user=request.user))
        whole = models.Q(workspace__isnull=True) | models.Q(workspace_id__in=list(readable or ()))
        reads = models.ExpressionWrapper(models.Value(True) if readable is None else whole, models.BooleanField())
        return super().get_queryset(request).annotate(reads_workspace=reads)

    def get_search_results(self, request: HttpRequest, queryset: QuerySet[AuditEvent], search_term: str) -> Any:
        found, duplicates = super().get_search_results(request, queryset, search_term)
        if search_term:
            # The targets only where this reader may read them: a search is no way around the rule.
            readable = readable_in(memberships_by_workspace(user=request.user))
            found |= queryset.filter(shown_whole(readable), target__icontains=search_term)
        return found, duplicates

    @admin.display(description="Target")
    def shown_target(self, event: AuditEvent) -> str:
        return event_shown(event, reads_workspace=event.reads_workspace).target  # type: ignore[attr-defined]

    @admin.display(description="Payload")
    def shown_payload(self, event: AuditEvent) -> str:
        shown = event_shown(event, reads_workspace=event.reads_workspace)  # type: ignore[attr-defined]
        return json.dumps(shown.payload, ensure_ascii=False, sort_keys=True)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
