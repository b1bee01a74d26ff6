"""The admin's login, throttled like every other password login, and who is being throttled."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse

from afterhack.admin import CheckedModelAdmin
from workspaces.auth import ThrottledLoginForm, answered_throttled
from workspaces.models import LoginFailures


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
