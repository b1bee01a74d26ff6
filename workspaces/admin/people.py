"""The Django admin's people and groups: what a person may do, said plainly; no workspace left without an admin.

Every change made here is audited by workspaces/signals.py (as it is from any other path). Here the admin only
adds what a form can do better than a signal: it refuses in words, before anything is saved, to deactivate or
delete the last active admin of a workspace (in the person's form, the list's actions and the delete pages); it
offers the groups as ticks that say what each gives (the ready "Auditors" and "Workspace creators", made by
migration 0006) instead of hiding the auditor's permission among the raw ones; and it says on each person's page
what they may do and through what.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import actions as django_actions
from django.contrib.admin.utils import unquote
from django.contrib.auth.forms import UserChangeForm
from django.contrib.auth.models import Group, User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import ManyToManyField, Model, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from afterhack import admin as checked
from workspaces.selectors import memberships as membership_selectors
from workspaces.services.admins import NoAdminLeft, accounts_keep_admins, accounts_without_admin, quoted

ADD_WORKSPACE = "workspaces.add_workspace"


class RefusesLeavingNoAdmin(admin.ModelAdmin):
    """Deleting (one from its page, or many with the list's action) is refused in words, before the confirmation
    page, when it would leave a workspace without an active admin."""

    def why_not_deleted(self, objs: list[Any]) -> str:
        """Why deleting these is refused ('' when it is not)."""
        raise NotImplementedError

    def delete_view(self, request: HttpRequest, object_id: str, extra_context: dict[str, Any] | None = None) -> Any:
        obj = self.get_object(request, unquote(object_id))
        if obj is not None and (why := self.why_not_deleted([obj])):
            self.message_user(request, why, messages.ERROR)
            opts = self.model._meta
            return HttpResponseRedirect(reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk]))
        return super().delete_view(request, object_id, extra_context)

    # Named as Django's own action, so it takes its place in the list (the admin site's actions come after).
    @admin.action(permissions=["delete"], description="Delete selected %(verbose_name_plural)s")
    def delete_selected(self, request: HttpRequest, queryset: QuerySet[Any]) -> HttpResponse | None:
        if why := self.why_not_deleted(list(queryset)):
            self.message_user(request, f"{why} Nothing was deleted.", messages.ERROR)
            return None
        return django_actions.delete_selected(self, request, queryset)


class GroupChoices(forms.ModelMultipleChoiceField):
    """The groups as ticks, each saying what it gives (its permissions' names)."""

    def label_from_instance(self, obj: Model) -> str:
        given = "; ".join(permission.name for permission in obj.permissions.all())  # type: ignore[attr-defined]
        return f"{obj} — {given or 'no permissions yet'}"


class AccountChangeForm(UserChangeForm):
    """A person's account; deactivating the last active admin of a workspace is refused, naming the workspace."""

    def clean_is_active(self) -> bool:
        active = bool(self.cleaned_data.get("is_active"))
        deactivating = self.instance.pk and self.initial.get("is_active") and not active
        if deactivating and (why := accounts_without_admin(users=[self.instance], change="Deactivating")):
            raise ValidationError(why)
        return active


GROUPS_HELP = (
    "Tick to give everything a group gives. Auditors read every workspace as a viewer and see the audit trail "
    "(with Staff status, the audit pages too); Workspace creators may create workspaces."
)


class UserAdmin(RefusesLeavingNoAdmin, checked.UserAdmin):
    form = AccountChangeForm
    # The groups are ticks (GroupChoices); the raw permissions keep Django's two-list picker.
    filter_horizontal = ("user_permissions",)
    readonly_fields = ("access",)
    list_display = ("username", "email", "first_name", "last_name", "is_active", "is_staff")
    actions = ["delete_selected", "deactivate", "reactivate"]
    fieldsets = (
        (None, {"fields": ("username", "password")}),
        ("Personal info", {"fields": ("first_name", "last_name", "email")}),
        ("What they may do", {"fields": ("access",)}),
        ("Permissions", {"fields": ("is_active", "is_staff", "is_superuser", "groups", "user_permissions")}),
        ("Important dates", {"fields": ("last_login", "date_joined")}),
    )

    def formfield_for_manytomany(
        self, db_field: ManyToManyField[Any, Any], request: HttpRequest, **kwargs: Any
    ) -> forms.ModelMultipleChoiceField[Any] | None:
        if db_field.name == "groups":
            return GroupChoices(
                queryset=Group.objects.prefetch_related("permissions").order_by("name"),
                widget=forms.CheckboxSelectMultiple, required=False, help_text=GROUPS_HELP, label="Groups",
            )  # fmt: skip
        return super().formfield_for_manytomany(db_field, request, **kwargs)

    @admin.display(description="In short")
    def access(self, user: Any) -> str:
        """What the person may do and through what, one line each."""
        if user is None or user.pk is None:
            return "—"
        return format_html(
            '<ul class="access-summary">{}</ul>',
            format_html_join("", "<li>{}</li>", ((line,) for line in _access(user))),
        )

    def why_not_deleted(self, objs: list[Any]) -> str:
        return accounts_without_admin(users=objs, change="Deleting")

    @admin.action(description="Deactivate the selected people (they can no longer sign in)", permissions=["change"])
    def deactivate(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        self._set_active(request, list(queryset.filter(is_active=True)), active=False)

    @admin.action(description="Reactivate the selected people", permissions=["change"])
    def reactivate(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        self._set_active(request, list(queryset.filter(is_active=False)), active=True)

    def _set_active(self, request: HttpRequest, users: list[Any], *, active: bool) -> None:
        """All of them or, when deactivating them would leave a workspace without an active admin, none."""
        done = "Reactivated" if active else "Deactivated"
        if not users:
            self.message_user(request, f"Nothing to do: none of them is {'deactivated' if active else 'active'}.")
            return
        try:
            with transaction.atomic():
                if not active:
                    accounts_keep_admins(users=users, change="Deactivating")
                for user in users:
                    user.is_active = active
                    # Saved one by one, not with update(): each change is audited (workspaces/signals.py).
                    user.save(update_fields=["is_active"])
                    self.log_change(request, user, f"{done} with the list's action.")
        except NoAdminLeft as error:
            self.message_user(request, f"{error} Nobody was deactivated.", messages.ERROR)
            return
        names = ", ".join(sorted(user.get_username() for user in users))
        self.message_user(request, f"{done}: {names}.", messages.SUCCESS)


def _access(user: Any) -> list[str]:
    """What a person may do, in words, each with how they hold it."""
    lines = ["Signs in." if user.is_active else "Cannot sign in: the account is deactivated."]
    every = membership_selectors.grants_of(user_ids=[user.pk]).get(user.pk)
    if every:
        not_now = "" if user.is_active else " (not while deactivated)"
        lines.append(f"Reads every workspace as a viewer{not_now}, {_through(every)}.")
    else:
        lines.append("Reads only the workspaces they are a member of.")
    lines.append(
        "Staff: opens the Django admin and the audit pages."
        if user.is_staff
        else "Not staff: no Django admin, no audit pages."
    )
    creates = membership_selectors.grants_of(user_ids=[user.pk], permission=ADD_WORKSPACE).get(user.pk)
    if user.is_superuser:
        lines.append("Superuser: every permission of the Django admin; workspaces still only as a member or auditor.")
    elif creates:
        lines.append(f"Creates workspaces, {_through(creates)}.")
    memberships = list(membership_selectors.memberships_for_user(user=user))
    lines.append(f"Member of {_memberships(memberships)}." if memberships else "Member of no workspace.")
    return lines


def _through(grant: membership_selectors.Grant) -> str:
    ways = ["given directly"] * grant.direct
    if grant.groups:
        ways.append(("through the group " if len(grant.groups) == 1 else "through the groups ") + quoted(grant.groups))
    return " and ".join(ways)


def _memberships(memberships: list[Any]) -> str:
    return ", ".join(f"“{m.workspace.name}” ({m.role})" for m in memberships)


class GroupAdmin(checked.GroupAdmin):
    readonly_fields = ("members",)
    fields = ("name", "permissions", "members")

    @admin.display(description="Members (what the group gives, they have)")
    def members(self, group: Group) -> str:
        if group.pk is None:
            return "—"
        names = list(group.user_set.order_by("username").values_list("username", flat=True))
        return ", ".join(names) or "Nobody yet: add people from their own page (People → a person → Groups)."


# They replace afterhack.admin's registrations, whose checks they keep (afterhack's admin module is loaded first).
admin.site.unregister(User)
admin.site.unregister(Group)
admin.site.register(User, UserAdmin)
admin.site.register(Group, GroupAdmin)
