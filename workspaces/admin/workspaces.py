"""The admin's workspaces with their members, and memberships. Every change goes through
`workspaces.services`, so the admin keeps the same rules (a workspace keeps an admin) and leaves the same audit
events as the pages and the API."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import QuerySet
from django.forms import BaseInlineFormSet, ModelForm
from django.http import HttpRequest, HttpResponse

from afterhack.admin import CheckedModelAdmin, CheckedTabularInline
from afterhack.errors import UserError
from workspaces.admin.people import RefusesLeavingNoAdmin
from workspaces.models import Membership, Role, Workspace
from workspaces.services import admins as admin_services
from workspaces.services import audit as audit_services
from workspaces.services import memberships as membership_services
from workspaces.services import workspaces as workspace_services


class NewMemberForm(forms.ModelForm):
    """A membership's form: a person with a deactivated account is not added (in `member_addable`'s words)."""

    def clean_user(self) -> Any:
        user = self.cleaned_data.get("user")
        if user is not None and self.instance.pk is None:
            try:
                membership_services.member_addable(user)
            except membership_services.DeactivatedUser as refused:
                raise ValidationError(str(refused)) from None
        return user


class MembershipInlineForm(NewMemberForm):
    class Meta:
        model = Membership
        fields = ["user", "role"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            # A membership is one person's; to give the seat to someone else, remove and add.
            self.fields["user"].disabled = True


def _kept(form: forms.ModelForm) -> dict[str, Any] | None:
    """What an inline row asks for (its person and role), or None for a row being removed or left empty."""
    data = form.cleaned_data
    return data if data and not data.get("DELETE") and data.get("user") else None


class MembershipFormSet(BaseInlineFormSet):
    def clean(self) -> None:
        super().clean()
        # The stored rows that stop being admins' (demoted or removed), and the people the rows keep or make admins.
        leaving = [
            form.instance.pk for form in self.forms
            if form.instance.pk and (not (data := _kept(form)) or data.get("role") != Role.ADMIN)
        ]  # fmt: skip
        admins = [data["user"].pk for form in self.forms if (data := _kept(form)) and data.get("role") == Role.ADMIN]
        why = admin_services.no_admin_left(
            change="Saving these members", leaving=Membership.objects.filter(pk__in=leaving), admins=admins,
            asked=[self.instance],
        )  # fmt: skip
        if why:
            raise ValidationError(why)


class MembershipInline(CheckedTabularInline):
    model = Membership
    form = MembershipInlineForm
    formset = MembershipFormSet
    extra = 1
    autocomplete_fields = ["user"]
    fields = ["user", "role", "created_at"]
    readonly_fields = ["created_at"]


class RefusedInTheForm(admin.ModelAdmin):
    """A rule a service keeps while the form's changes are saved (someone changed the members meanwhile) is said in
    the form, in words, with what was entered; never a 500."""

    def changeform_view(
        self, request: HttpRequest, object_id: str | None = None, form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:  # fmt: skip
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except UserError as refused:
            # The view saves in one transaction, rolled back by the refusal: the form again, refused with its words.
            request.refused_while_saving = str(refused)  # type: ignore[attr-defined]
            return super().changeform_view(request, object_id, form_url, extra_context)

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any) -> Any:
        form = super().get_form(request, obj, change, **kwargs)
        refused = getattr(request, "refused_while_saving", "")
        if not refused:
            return form

        def clean(self: forms.ModelForm) -> Any:
            raise ValidationError(refused)

        return type(form.__name__, (form,), {"clean": clean})


@admin.register(Workspace)
class WorkspaceAdmin(RefusedInTheForm, CheckedModelAdmin):
    # What an admin tells workspaces apart by; the id and graph name are on each workspace's page.
    list_display = ["name", "independent_sources", "agent_claims_need_approval", "created_at"]
    search_fields = ["name", "id"]
    search_help_text = "Search by name or id."
    readonly_fields = ["id", "graph_name", "created_at"]
    fields = ["name", "independent_sources", "agent_claims_need_approval", "id", "graph_name", "created_at"]
    inlines = [MembershipInline]

    def save_model(self, request: HttpRequest, obj: Workspace, form: ModelForm, change: bool) -> None:
        if not change:
            # Members come from the inline, so the admin who creates it is not added by default.
            workspace_services.workspace_register(workspace=obj, creator=request.user, creator_is_admin=False)
            return
        super().save_model(request, obj, form, change)
        if "independent_sources" in form.changed_data:
            # Previews were computed under the old policy: make them stale.
            workspace_services.previews_invalidate(workspace=obj)
        if form.changed_data:
            changed = form.changed_data
            audit_services.record_event(
                actor=request.user, workspace=obj, verb="workspace.changed", target=obj.name,
                payload={"fields": list(changed), "from": {field: form.initial.get(field) for field in changed},
                         "to": {field: form.cleaned_data.get(field) for field in changed}},
            )  # fmt: skip

    def save_formset(self, request: HttpRequest, form: ModelForm, formset: Any, change: bool) -> None:
        workspace, actor = form.instance, request.user
        # What the admin's change message reads (formset.save() would set these).
        formset.new_objects, formset.changed_objects, formset.deleted_objects = [], [], []
        # Additions and promotions first, then demotions, then removals: handing over admin in one save keeps an
        # admin at every step, whatever order the rows come in.
        for inline in sorted(formset.forms, key=_handover_step):
            data, membership = inline.cleaned_data, inline.instance
            if _kept(inline) is None:
                if data.get("DELETE") and membership.pk:
                    membership_services.member_remove(workspace=workspace, membership_id=membership.pk, actor=actor)
                    formset.deleted_objects.append(membership)
            elif membership.pk is None:
                username = data["user"].get_username()
                added = membership_services.member_add(
                    workspace=workspace, username=username, role=data["role"], actor=actor
                )
                formset.new_objects.append(added)
            elif "role" in inline.changed_data:
                changed = membership_services.member_change_role(
                    workspace=workspace, membership_id=membership.pk, role=data["role"], actor=actor
                )
                formset.changed_objects.append((changed, ["role"]))


def _handover_step(inline: forms.ModelForm) -> int:
    """When a row of the workspace's members is saved: 0 additions and promotions, 1 demotions, 2 removals."""
    if (data := _kept(inline)) is None:
        return 2
    demoted = inline.instance.pk is not None and inline.initial.get("role") == Role.ADMIN
    return 1 if demoted and data.get("role") != Role.ADMIN else 0


class MembershipAdminForm(NewMemberForm):
    class Meta:
        model = Membership
        fields = ["user", "workspace", "role"]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.instance.pk and data.get("role"):
            try:
                admin_services.member_keeps_an_admin(self.instance, role=data["role"])
            except admin_services.NoAdminLeft as refused:
                raise ValidationError(str(refused)) from None
        return data


@admin.register(Membership)
class MembershipAdmin(RefusedInTheForm, RefusesLeavingNoAdmin, CheckedModelAdmin):
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
            membership_services.member_change_role(
                workspace=obj.workspace, membership_id=obj.pk, role=obj.role, actor=request.user
            )
        else:
            created = membership_services.member_add(
                workspace=obj.workspace, username=obj.user.get_username(), role=obj.role, actor=request.user
            )
            obj.pk = created.pk

    def why_not_deleted(self, objs: list[Any]) -> str:
        leaving = Membership.objects.filter(pk__in=[membership.pk for membership in objs])
        return admin_services.no_admin_left(change="Removing these members", leaving=leaving)

    def delete_model(self, request: HttpRequest, obj: Membership) -> None:
        # Refused before the confirmation page (why_not_deleted); the service checks again, under its lock.
        membership_services.member_remove(workspace=obj.workspace, membership_id=obj.pk, actor=request.user)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Membership]) -> None:
        with transaction.atomic():
            for membership in queryset.select_related("user", "workspace"):
                self.delete_model(request, membership)
