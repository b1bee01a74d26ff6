"""Django admin: workspaces with their members, memberships, the read-only audit trail, tokens."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.forms import ModelForm
from django.http import HttpRequest

from workspaces import services
from workspaces.models import ApiToken, AuditEvent, Membership, Workspace


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 1
    autocomplete_fields = ["user"]
    fields = ["user", "role", "created_at"]
    readonly_fields = ["created_at"]


@admin.register(Workspace)
class WorkspaceAdmin(admin.ModelAdmin):
    list_display = ["name", "id", "graph_name", "independent_sources", "created_at"]
    search_fields = ["name", "id"]
    readonly_fields = ["id", "graph_name", "created_at"]
    fields = ["name", "independent_sources", "id", "graph_name", "created_at"]
    inlines = [MembershipInline]

    def save_model(self, request: HttpRequest, obj: Workspace, form: ModelForm, change: bool) -> None:
        if change:
            super().save_model(request, obj, form, change)
            services.record_event(
                actor=request.user, workspace=obj, verb="workspace.changed",
                target=obj.name, payload={"fields": list(form.changed_data)},
            )  # fmt: skip
        else:
            # Members come from the inline, so the admin who creates it is not added by default.
            services.workspace_register(workspace=obj, creator=request.user, creator_is_admin=False)

    def save_formset(self, request: HttpRequest, form: ModelForm, formset: Any, change: bool) -> None:
        instances = formset.save(commit=False)
        for membership in formset.deleted_objects:
            services.record_event(
                actor=request.user, workspace=membership.workspace, verb="member.removed",
                target=membership.user.get_username(), payload={"role": membership.role, "via": "admin"},
            )  # fmt: skip
            membership.delete()
        for membership in instances:
            verb = "member.role_changed" if membership.pk else "member.added"
            membership.save()
            services.record_event(
                actor=request.user, workspace=membership.workspace, verb=verb,
                target=membership.user.get_username(), payload={"role": membership.role, "via": "admin"},
            )  # fmt: skip
        formset.save_m2m()


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["user", "workspace", "role", "created_at"]
    list_filter = ["role", "workspace"]
    search_fields = ["user__username", "workspace__name"]
    autocomplete_fields = ["user", "workspace"]

    def save_model(self, request: HttpRequest, obj: Membership, form: ModelForm, change: bool) -> None:
        super().save_model(request, obj, form, change)
        services.record_event(
            actor=request.user, workspace=obj.workspace, verb="member.role_changed" if change else "member.added",
            target=obj.user.get_username(), payload={"role": obj.role, "via": "admin"},
        )  # fmt: skip

    def delete_model(self, request: HttpRequest, obj: Membership) -> None:
        services.record_event(
            actor=request.user, workspace=obj.workspace, verb="member.removed",
            target=obj.user.get_username(), payload={"role": obj.role, "via": "admin"},
        )  # fmt: skip
        super().delete_model(request, obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Membership]) -> None:
        for membership in queryset.select_related("user", "workspace"):
            self.delete_model(request, membership)


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
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


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ["name", "user", "hint", "created_at", "last_used_at", "revoked_at"]
    list_filter = ["revoked_at"]
    search_fields = ["name", "user__username", "hint"]
    autocomplete_fields = ["user"]
    readonly_fields = ["hint", "created_at", "last_used_at"]
    fields = ["user", "name", "hint", "created_at", "last_used_at", "revoked_at"]

    def save_model(self, request: HttpRequest, obj: ApiToken, form: ModelForm, change: bool) -> None:
        if change:
            super().save_model(request, obj, form, change)
            return
        created, raw = services.token_issue(user=obj.user, name=obj.name, actor=request.user)
        obj.pk, obj.hint, obj.key_hash = created.pk, created.hint, created.key_hash
        messages.warning(request, f"The new token is {raw} — copy it now; it is not stored and cannot be shown again.")
