"""The admin's API tokens: issued, listed by state, revoked; their moments in words."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.forms import ModelForm
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils import dateformat, timezone
from django.utils.cache import add_never_cache_headers
from django.utils.decorators import method_decorator
from django.utils.html import format_html
from django.views.decorators.debug import sensitive_variables

from workspaces.admin.own_filters import OwnFiltersOnly
from workspaces.models import ApiToken, token_expiry
from workspaces.services import tokens as token_services


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
        created, raw = token_services.token_issue(
            user=obj.user, name=obj.name, actor=request.user, expires_at=obj.expires_at
        )
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
        revoked = token_services.tokens_revoke(tokens=queryset, actor=request.user)
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
