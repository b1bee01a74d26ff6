"""Django admin: workspaces with their members, memberships, the read-only audit trail, tokens.

Every change goes through `workspaces.services`, so the admin keeps the same rules (a
workspace keeps an admin) and leaves the same audit events as the pages and the API.
"""

from __future__ import annotations

import json
import logging
import math
from datetime import UTC, datetime, timedelta
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin import SimpleListFilter, helpers
from django.contrib.admin.exceptions import DisallowedModelAdminLookup
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.db.models import QuerySet
from django.forms import BaseInlineFormSet, ModelForm
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils import dateformat, timezone
from django.utils.cache import add_never_cache_headers
from django.utils.decorators import method_decorator
from django.utils.html import format_html
from django.views.decorators.debug import sensitive_variables

from afterhack.admin import CheckedModelAdmin, CheckedTabularInline
from afterhack.errors import UserError
from workspaces import services

# Importing it registers the people's and groups' admin (the admin's autodiscovery loads only this module).
from workspaces.admin_users import RefusesLeavingNoAdmin
from workspaces.auth import ThrottledLoginForm, answered_throttled
from workspaces.disclosure import event_shown, shown_whole
from workspaces.models import ApiToken, AuditEvent, LoginFailures, Membership, Role, Workspace, token_expiry
from workspaces.selectors import memberships_by_workspace, readable_in


class ThrottledAdminLoginForm(ThrottledLoginForm, AdminAuthenticationForm):
    """The admin's login form, throttled like every other password login (and staff only)."""


admin.site.login_form = ThrottledAdminLoginForm
site_login = admin.site.login


@login_not_required
def throttled_admin_login(request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
    """The admin's login page; a throttled attempt is answered 429 with Retry-After, as on the app's login page."""
    response = site_login(request, extra_context)
    return answered_throttled(response, (getattr(response, "context_data", None) or {}).get("form"))


# The admin routes /admin/login/ to `admin.site.login` when its URLs are built, after this module is imported.
admin.site.login = throttled_admin_login  # type: ignore[method-assign]


class NewMemberForm(forms.ModelForm):
    """A membership's form: a person with a deactivated account is not added (services.member_addable's words)."""

    def clean_user(self) -> Any:
        user = self.cleaned_data.get("user")
        if user is not None and self.instance.pk is None:
            try:
                services.member_addable(user)
            except services.DeactivatedUser as refused:
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
        why = services.no_admin_left(
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
    list_display = ["name", "independent_sources", "created_at"]
    search_fields = ["name", "id"]
    search_help_text = "Search by name or id."
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
        workspace, actor = form.instance, request.user
        # What the admin's change message reads (formset.save() would set these).
        formset.new_objects, formset.changed_objects, formset.deleted_objects = [], [], []
        # Additions and promotions first, then demotions, then removals: handing over admin in one save keeps an
        # admin at every step, whatever order the rows come in.
        for inline in sorted(formset.forms, key=_handover_step):
            data, membership = inline.cleaned_data, inline.instance
            if _kept(inline) is None:
                if data.get("DELETE") and membership.pk:
                    services.member_remove(workspace=workspace, membership_id=membership.pk, actor=actor)
                    formset.deleted_objects.append(membership)
            elif membership.pk is None:
                username = data["user"].get_username()
                added = services.member_add(workspace=workspace, username=username, role=data["role"], actor=actor)
                formset.new_objects.append(added)
            elif "role" in inline.changed_data:
                changed = services.member_change_role(
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
                services.member_keeps_an_admin(self.instance, role=data["role"])
            except services.NoAdminLeft as refused:
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
            services.member_change_role(
                workspace=obj.workspace, membership_id=obj.pk, role=obj.role, actor=request.user
            )
        else:
            created = services.member_add(
                workspace=obj.workspace, username=obj.user.get_username(), role=obj.role, actor=request.user
            )
            obj.pk = created.pk

    def why_not_deleted(self, objs: list[Any]) -> str:
        leaving = Membership.objects.filter(pk__in=[membership.pk for membership in objs])
        return services.no_admin_left(change="Removing these members", leaving=leaving)

    def delete_model(self, request: HttpRequest, obj: Membership) -> None:
        # Refused before the confirmation page (why_not_deleted); the service checks again, under its lock.
        services.member_remove(workspace=obj.workspace, membership_id=obj.pk, actor=request.user)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Membership]) -> None:
        with transaction.atomic():
            for membership in queryset.select_related("user", "workspace"):
                self.delete_model(request, membership)


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


def time_left(left: timedelta) -> str:
    """“in 30 days”, “in 5 hours”, “in 1 minute”: how long until a moment, rounded as a person reads it."""
    for unit, name in ((timedelta(days=1), "day"), (timedelta(hours=1), "hour")):
        if left >= unit:
            count = round(left / unit)
            return f"in {count} {name}{'s' * (count != 1)}"
    minutes = max(1, math.ceil(left / timedelta(minutes=1)))
    return f"in {minutes} minute{'s' * (minutes != 1)}"


def moment_in_words(moment: datetime) -> str:
    """“31 December 2026 at 14:00 UTC”."""
    return dateformat.format(moment.astimezone(UTC), r"j F Y \a\t H:i \U\T\C")


def expiry_in_words(expires_at: datetime, *, now: datetime) -> str:
    """“on 31 December 2026 at 14:00 UTC, in 30 days”, or “on … UTC, already past”."""
    left = time_left(expires_at - now) if expires_at > now else "already past"
    return f"on {moment_in_words(expires_at)}, {left}"


def day_in_list(moment: datetime) -> str:
    """“31 Dec 2026”, short enough for a list's column, with the exact moment on hover."""
    return format_html('<time datetime="{}" title="{}">{}</time>', moment.isoformat(), moment_in_words(moment),
                       dateformat.format(moment.astimezone(UTC), "j M Y"))  # fmt: skip


class ApiTokenAdminForm(forms.ModelForm):
    class Meta:
        model = ApiToken
        fields = ["user", "name", "expires_at"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Only a new token's expiry is chosen here. It starts empty, not with the model's default (the moment
        # the form was drawn), so that empty means the usual lifetime, counted from the moment it is issued.
        if "expires_at" in self.fields:
            field = self.fields["expires_at"]
            self.initial.pop("expires_at", None)
            field.required, field.initial, field.show_hidden_initial = False, None, False
            days = settings.AFTERHACK_TOKEN_TTL_DAYS
            field.help_text = (
                f"Leave empty for the usual {days} day{'s' * (days != 1)} (AFTERHACK_TOKEN_TTL_DAYS): issued now, "
                f"it would expire on {moment_in_words(token_expiry())}. A date and time given here are UTC."
            )

    def clean_expires_at(self) -> Any:
        expires_at = self.cleaned_data["expires_at"]
        if expires_at is not None and "expires_at" in self.changed_data and expires_at <= timezone.now():
            raise ValidationError("Choose a moment in the future, or leave it empty for the usual lifetime.")
        return expires_at


class TokenStateFilter(admin.SimpleListFilter):
    title = "state"
    parameter_name = "state"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("active", "Active"), ("revoked", "Revoked"), ("expired", "Expired")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[ApiToken]) -> QuerySet[ApiToken]:
        now = timezone.now()
        match self.value():
            case "active":
                return queryset.filter(revoked_at__isnull=True, expires_at__gt=now)
            case "revoked":
                return queryset.filter(revoked_at__isnull=False)
            case "expired":
                return queryset.filter(revoked_at__isnull=True, expires_at__lte=now)
        return queryset


@admin.register(ApiToken)
class ApiTokenAdmin(OwnFiltersOnly):
    """Tokens are issued here and revoked, never edited into force again nor deleted: deleting one would lose
    who held it and when it was last used, and a revoked token may have leaked."""

    form = ApiTokenAdminForm
    list_display = ["name", "holder", "starts_with", "state", "last_used"]
    # Its one filter (the state) is a SimpleListFilter: no lookup is taken from the address, a hash's least of all.
    list_filter = [TokenStateFilter]
    narrowed_by = "their state"
    list_select_related = ["user"]
    search_fields = ["name", "user__username", "hint"]
    autocomplete_fields = ["user"]
    actions = ["revoke_selected"]

    def get_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        if obj is None:
            return ("user", "name", "expires_at")
        return ("user", "name", "hint", "state", "created_at", "expires_at", "last_used_at", "revoked_at")

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        # A token stays with the person it was issued to, for the time it was issued for; only its name changes.
        if obj is None:
            return []
        return ["user", "hint", "state", "created_at", "expires_at", "last_used_at", "revoked_at"]

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="User", ordering="user__username")
    def holder(self, token: ApiToken) -> str:
        """The username, which may break before an “@” (an email address is long for a column)."""
        local, at, domain = token.user.get_username().partition("@")
        return format_html("{}<wbr>{}{}", local, at, domain)

    @admin.display(description="Starts with")
    def starts_with(self, token: ApiToken) -> str:
        return f"{token.hint}…"

    @admin.display(description="State", ordering="expires_at")
    def state(self, token: ApiToken) -> str:
        """“Active until 31 Dec 2026”, “Expired 29 Nov 2026”, “Revoked 1 Dec 2026”: one column, not three."""
        if token.revoked_at is not None:
            return format_html("Revoked {}", day_in_list(token.revoked_at))
        return format_html("{} {}", "Expired" if token.is_expired else "Active until", day_in_list(token.expires_at))

    @admin.display(description="Last used", ordering="last_used_at")
    def last_used(self, token: ApiToken) -> str:
        return "never" if token.last_used_at is None else day_in_list(token.last_used_at)

    def add_view(
        self, request: HttpRequest, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        # Whatever button is pressed, the next page is the new token's: one Save button.
        buttons = {"show_save_and_continue": False, "show_save_and_add_another": False}
        return super().add_view(request, form_url, {**buttons, **(extra_context or {})})

    @method_decorator(sensitive_variables("raw"))
    def save_model(self, request: HttpRequest, obj: ApiToken, form: ModelForm, change: bool) -> None:
        if change:
            super().save_model(request, obj, form, change)
            return
        created, raw = services.token_issue(user=obj.user, name=obj.name, actor=request.user, expires_at=obj.expires_at)
        obj.pk, obj.hint, obj.key_hash, obj.expires_at = created.pk, created.hint, created.key_hash, created.expires_at
        obj.created_at, obj.raw = created.created_at, raw

    def response_add(self, request: HttpRequest, obj: ApiToken, post_url_continue: str | None = None) -> HttpResponse:
        """The new token's panel, answered to the add form's POST itself.

        Not a redirect to a page that shows it: the token would have to wait for that page in the session,
        that is in the database, and stay there if the page were never fetched. Here it exists only in this
        answer, which no cache keeps.
        """
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": "New API token",
            "token": obj,
            "expires": expiry_in_words(obj.expires_at, now=timezone.now()),
        }
        response = TemplateResponse(request, "admin/workspaces/apitoken/issued.html", context)
        add_never_cache_headers(response)
        return response

    @admin.action(description="Revoke selected API tokens", permissions=["change"])
    def revoke_selected(self, request: HttpRequest, queryset: QuerySet[ApiToken]) -> HttpResponse | None:
        """Asks first (a revoked token stays revoked), then revokes, each token audited as the app's revoke is."""
        revoking = queryset.filter(revoked_at__isnull=True).select_related("user")
        if not revoking.exists():
            self.message_user(request, "Nothing to revoke: the selected tokens were revoked already.", messages.WARNING)
            return None
        if request.POST.get("post") != "yes":
            return self.revoke_confirmation(request, queryset, revoking)
        selected = queryset.count()
        revoked = services.tokens_revoke(tokens=queryset, actor=request.user)
        told = f"Revoked {tokens_in_words(revoked)}: {'it is' if revoked == 1 else 'they are'} refused from now on."
        if selected > revoked:
            told += f" {tokens_in_words(selected - revoked, noun='other')} had been revoked already."
        self.message_user(request, told, messages.SUCCESS)
        return None

    def revoke_confirmation(
        self, request: HttpRequest, selected: QuerySet[ApiToken], revoking: QuerySet[ApiToken]
    ) -> TemplateResponse:
        """The page that names the tokens about to be revoked and asks to go on."""
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": "Revoke API tokens?",
            "selected": selected,
            "revoking": revoking,
            "already": selected.count() - revoking.count(),
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/workspaces/apitoken/revoke_confirmation.html", context)


def tokens_in_words(count: int, *, noun: str = "API token") -> str:
    """“1 API token”, “3 API tokens”."""
    return f"{count} {noun}{'s' * (count != 1)}"


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
