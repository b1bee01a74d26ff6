"""Django admin: workspaces with their members, memberships, the read-only audit trail, tokens.

Every change goes through `workspaces.services`, so the admin keeps the same rules (a
workspace keeps an admin) and leaves the same audit events as the pages and the API.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.forms import AdminAuthenticationForm
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import QuerySet
from django.forms import BaseInlineFormSet, ModelForm
from django.http import HttpRequest
from django.utils import timezone

from afterhack.admin import CheckedModelAdmin, CheckedTabularInline
from workspaces import services

# Importing it registers the people's and groups' admin (the admin's autodiscovery loads only this module).
from workspaces.admin_users import RefusesLeavingNoAdmin
from workspaces.auth import ThrottledLoginForm
from workspaces.models import ApiToken, AuditEvent, LoginFailures, Membership, Role, Workspace


class ThrottledAdminLoginForm(ThrottledLoginForm, AdminAuthenticationForm):
    """The admin's login form, throttled like every other password login (and staff only)."""


admin.site.login_form = ThrottledAdminLoginForm


class MembershipInlineForm(forms.ModelForm):
    class Meta:
        model = Membership
        fields = ["user", "role"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            # A membership is one person's; to give the seat to someone else, remove and add.
            self.fields["user"].disabled = True


class MembershipFormSet(BaseInlineFormSet):
    def clean(self) -> None:
        super().clean()
        kept = [
            form.cleaned_data
            for form in self.forms
            if form.cleaned_data and not form.cleaned_data.get("DELETE") and form.cleaned_data.get("user")
        ]
        # Only an active admin counts: a deactivated one cannot sign in to manage anyone.
        if not any(data.get("role") == Role.ADMIN and data["user"].is_active for data in kept):
            raise ValidationError(
                "A workspace needs at least one admin whose account is active: keep or make someone admin."
            )


class MembershipInline(CheckedTabularInline):
    model = Membership
    form = MembershipInlineForm
    formset = MembershipFormSet
    extra = 1
    autocomplete_fields = ["user"]
    fields = ["user", "role", "created_at"]
    readonly_fields = ["created_at"]


@admin.register(Workspace)
class WorkspaceAdmin(CheckedModelAdmin):
    list_display = ["name", "id", "graph_name", "independent_sources", "created_at"]
    search_fields = ["name", "id"]
    readonly_fields = ["id", "graph_name", "created_at"]
    fields = ["name", "independent_sources", "id", "graph_name", "created_at"]
    inlines = [MembershipInline]

    def save_model(self, request: HttpRequest, obj: Workspace, form: ModelForm, change: bool) -> None:
        if not change:
            # Members come from the inline, so the admin who creates it is not added by default.
            services.workspace_register(workspace=obj, creator=request.user, creator_is_admin=False)
            return
        super().save_model(request, obj, form, change)
        if "independent_sources" in form.changed_data:
            # Previews were computed under the old policy: make them stale.
            services.previews_invalidate(workspace=obj)
        if form.changed_data:
            changed = form.changed_data
            services.record_event(
                actor=request.user, workspace=obj, verb="workspace.changed", target=obj.name,
                payload={"fields": list(changed), "from": {field: form.initial.get(field) for field in changed},
                         "to": {field: form.cleaned_data.get(field) for field in changed}},
            )  # fmt: skip

    def save_formset(self, request: HttpRequest, form: ModelForm, formset: Any, change: bool) -> None:
        workspace = form.instance
        # What the admin's change message reads (formset.save() would set these).
        formset.new_objects, formset.changed_objects, formset.deleted_objects = [], [], []
        # Additions and promotions first, removals last, so the workspace always keeps an admin.
        for inline in formset.forms:
            data = inline.cleaned_data
            if not data or data.get("DELETE") or not data.get("user"):
                continue
            if inline.instance.pk is None:
                formset.new_objects.append(services.member_add(
                    workspace=workspace, username=data["user"].get_username(), role=data["role"], actor=request.user
                ))  # fmt: skip
            elif "role" in inline.changed_data:
                formset.changed_objects.append((services.member_change_role(
                    workspace=workspace, membership_id=inline.instance.pk, role=data["role"], actor=request.user
                ), ["role"]))  # fmt: skip
        for inline in formset.forms:
            if inline.cleaned_data.get("DELETE") and inline.instance.pk:
                services.member_remove(workspace=workspace, membership_id=inline.instance.pk, actor=request.user)
                formset.deleted_objects.append(inline.instance)


class MembershipAdminForm(forms.ModelForm):
    class Meta:
        model = Membership
        fields = ["user", "workspace", "role"]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.instance.pk and services.leaves_no_admin(self.instance, role=data.get("role")):
            raise ValidationError(services.needs_an_admin(self.instance.workspace))
        return data


@admin.register(Membership)
class MembershipAdmin(RefusesLeavingNoAdmin, CheckedModelAdmin):
    form = MembershipAdminForm
    list_display = ["user", "workspace", "role", "created_at"]
    list_filter = ["role", "workspace"]
    search_fields = ["user__username", "workspace__name"]
    autocomplete_fields = ["user", "workspace"]
    actions = ["delete_selected"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return ["user", "workspace"] if obj is not None else []

    def save_model(self, request: HttpRequest, obj: Membership, form: ModelForm, change: bool) -> None:
        if change:
            services.member_change_role(
                workspace=obj.workspace, membership_id=obj.pk, role=obj.role, actor=request.user
            )
        else:
            created = services.member_add(
                workspace=obj.workspace, username=obj.user.get_username(), role=obj.role, actor=request.user
            )
            obj.pk = created.pk

    def why_not_deleted(self, objs: list[Any]) -> str:
        lost = services.workspaces_losing_admins_with(membership_ids=[membership.pk for membership in objs])
        return services.no_admin_left("Removing these members", lost) if lost else ""

    def delete_model(self, request: HttpRequest, obj: Membership) -> None:
        # Refused before the confirmation page (why_not_deleted); the service checks again, under its lock.
        services.member_remove(workspace=obj.workspace, membership_id=obj.pk, actor=request.user)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Membership]) -> None:
        with transaction.atomic():
            for membership in queryset.select_related("user", "workspace"):
                self.delete_model(request, membership)


@admin.register(AuditEvent)
class AuditEventAdmin(CheckedModelAdmin):
    """Read-only: the audit trail has no add, change or delete path, here or anywhere."""

    list_display = ["created_at", "actor_name", "workspace", "verb", "target"]
    list_filter = ["verb", "workspace", "created_at"]
    search_fields = ["actor_name", "target", "verb"]
    date_hierarchy = "created_at"
    readonly_fields = ["created_at", "actor", "actor_name", "workspace", "verb", "target", "payload"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ApiTokenAdminForm(forms.ModelForm):
    class Meta:
        model = ApiToken
        fields = ["user", "name", "expires_at", "revoked_at"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if "expires_at" in self.fields:
            self.fields["expires_at"].required = False
            self.fields["expires_at"].help_text = "Left empty: AFTERHACK_TOKEN_TTL_DAYS days from now."

    def clean_expires_at(self) -> Any:
        expires_at = self.cleaned_data["expires_at"]
        if expires_at is not None and "expires_at" in self.changed_data and expires_at <= timezone.now():
            raise ValidationError("Choose a moment in the future; to stop a token now, set “Revoked at”.")
        return expires_at


@admin.register(ApiToken)
class ApiTokenAdmin(CheckedModelAdmin):
    form = ApiTokenAdminForm
    list_display = ["name", "user", "hint", "created_at", "expires_at", "last_used_at", "revoked_at"]
    list_filter = ["revoked_at", "expires_at"]
    search_fields = ["name", "user__username", "hint"]
    autocomplete_fields = ["user"]
    fields = ["user", "name", "hint", "created_at", "expires_at", "last_used_at", "revoked_at"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        # A token stays with the person it was issued to, for the time it was issued for.
        frozen = ["hint", "created_at", "last_used_at"]
        return ["user", "expires_at", *frozen] if obj is not None else frozen

    def save_model(self, request: HttpRequest, obj: ApiToken, form: ModelForm, change: bool) -> None:
        if change:
            super().save_model(request, obj, form, change)
            if "revoked_at" in form.changed_data:
                verb = "token.revoked" if obj.revoked_at else "token.restored"
                services.record_event(
                    actor=request.user, workspace=None, verb=verb, target=f"{obj.hint}… for {obj.user}"
                )
            return
        created, raw = services.token_issue(user=obj.user, name=obj.name, actor=request.user, expires_at=obj.expires_at)
        obj.pk, obj.hint, obj.key_hash = created.pk, created.hint, created.key_hash
        messages.warning(
            request,
            f"The new token is {raw} — copy it now; it is not stored and cannot be shown again. "
            f"It expires on {created.expires_at:%Y-%m-%d %H:%M} UTC.",
        )

    def delete_model(self, request: HttpRequest, obj: ApiToken) -> None:
        services.record_event(
            actor=request.user, workspace=None, verb="token.deleted", target=f"{obj.hint}… for {obj.user}"
        )
        super().delete_model(request, obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[ApiToken]) -> None:
        for token in queryset.select_related("user"):
            self.delete_model(request, token)


@admin.register(LoginFailures)
class LoginFailuresAdmin(CheckedModelAdmin):
    """Who is being throttled; deleting a row lets that username log in from that address at once."""

    list_display = ["username", "client", "failures", "window_started_at"]
    search_fields = ["username", "client"]
    readonly_fields = ["username", "client", "failures", "window_started_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
