"""The Django admin of webhooks: endpoints (changed and deleted through the services, so audited; added on the
workspace's Webhooks page, which shows the new secret once) and the read-only log of delivery attempts. A secret is
never shown here."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import HttpRequest

from afterhack.errors import UserError
from webhooks.addresses import clean_url
from webhooks.models import Attempt, Endpoint
from webhooks.services import endpoints
from webhooks.statuses import EventKind


class EndpointAdminForm(forms.ModelForm):
    events = forms.MultipleChoiceField(
        choices=[(kind.value, kind.value) for kind in EventKind], widget=forms.CheckboxSelectMultiple
    )

    class Meta:
        model = Endpoint
        fields = ["url", "events", "enabled"]

    def clean_url(self) -> str:
        try:
            return clean_url(self.cleaned_data["url"])
        except UserError as error:
            raise ValidationError(str(error)) from None


@admin.register(Endpoint)
class EndpointAdmin(admin.ModelAdmin):
    form = EndpointAdminForm
    list_display = ["id", "workspace", "url", "kinds", "enabled", "created_by", "created_at"]
    list_filter = ["enabled"]
    search_fields = ["url", "workspace__name"]
    readonly_fields = ["workspace", "disabled_reason", "created_by", "created_at"]
    actions = None

    @admin.display(description="Events")
    def kinds(self, endpoint: Endpoint) -> str:
        return ", ".join(endpoint.events)

    def has_add_permission(self, request: HttpRequest) -> bool:
        # Added on the workspace's Webhooks page, which shows the new secret once.
        return False

    def save_model(self, request: HttpRequest, obj: Endpoint, form: Any, change: bool) -> None:
        saved = Endpoint.objects.get(pk=obj.pk)
        endpoints.endpoint_change(
            endpoint=saved, actor=request.user, url=form.cleaned_data["url"], events=form.cleaned_data["events"],
            enabled=form.cleaned_data["enabled"],
        )  # fmt: skip

    def delete_model(self, request: HttpRequest, obj: Endpoint) -> None:
        endpoints.endpoint_delete(endpoint=obj, actor=request.user)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Endpoint]) -> None:
        for endpoint in queryset:
            endpoints.endpoint_delete(endpoint=endpoint, actor=request.user)


@admin.register(Attempt)
class AttemptAdmin(admin.ModelAdmin):
    list_display = ["id", "message_id", "event", "number", "status_code", "error", "at", "duration_ms"]
    list_filter = ["status_code"]
    search_fields = ["message__id", "message__endpoint__url"]
    list_select_related = ["message"]

    @admin.display(description="Event")
    def event(self, attempt: Attempt) -> str:
        return f"{attempt.message.kind} (event {attempt.message.event_id})"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
