"""The inbox page, the email preference, and the Watch button's toggle."""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import parse_qsl, urlsplit
from uuid import UUID

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from afterhack.errors import UserError
from afterhack.htmx import HtmxRequest
from notifications.selectors import inbox as inbox_selectors
from notifications.selectors import watches as watch_selectors
from notifications.services import email as email_services
from notifications.services import notices as notice_services
from notifications.services import watches as watch_services
from notifications.statuses import EmailMode
from workspaces.access import get_membership

EMAIL_MODES = (
    (EmailMode.INSTANT, "Each at once", "an email for each notification, as it happens"),
    (EmailMode.DIGEST, "A daily digest", "one email a day listing what you have not read"),
    (EmailMode.OFF, "None", "no email: read them here"),
)


def _inbox_context(request: HtmxRequest, params: Mapping[str, str]) -> dict[str, object]:
    listing = inbox_selectors.inbox_listing(params, user=request.user, path=reverse("notifications:inbox"))
    return {
        "listing": listing, "unread": inbox_selectors.unread_count(user=request.user),
        "email_mode": inbox_selectors.email_mode(user=request.user), "email_modes": EMAIL_MODES,
    }  # fmt: skip


@require_GET
@login_required
def inbox(request: HtmxRequest) -> HttpResponse:
    """The person's notifications, newest first, paged; `?show=unread` for the unread ones only."""
    template = "notifications/inbox.html#inbox" if request.htmx else "notifications/inbox.html"
    return render(request, template, _inbox_context(request, request.GET))


@require_POST
@login_required
def mark_read(request: HtmxRequest) -> HttpResponse:
    """Marks one notification (`id`) or all of them (`all`) read; answers the list again (htmx) or goes back."""
    if request.POST.get("all"):
        notice_services.mark_all_read(user=request.user)
    else:
        try:
            notice_services.mark_read(user=request.user, ids=request.POST.getlist("id"))
        except UserError as error:
            messages.error(request, str(error))
    back = _back(request, default=reverse("notifications:inbox"))
    if request.htmx:
        params = dict(parse_qsl(urlsplit(back).query))
        return render(request, "notifications/inbox.html#inbox", _inbox_context(request, params))
    return HttpResponseRedirect(back)


@require_GET
@login_required
def open_notification(request: HtmxRequest, notification_id: int) -> HttpResponse:
    """Marks the notification read and goes to the page it names (only the person's own, of a workspace they are
    still a member of: 404 otherwise)."""
    notification = get_object_or_404(inbox_selectors.visible(user=request.user), pk=notification_id)
    notice_services.mark_read(user=request.user, ids=[notification.pk])
    path = notice_services.local_path(notification.url)
    return redirect(path if path != "/" else reverse("notifications:inbox"))


@require_http_methods(["GET", "POST"])
@login_required
def email_preference(request: HtmxRequest) -> HttpResponse:
    """How the person wants their notifications emailed: instant, a daily digest, or none."""
    status = 200
    if request.method == "POST":
        try:
            mode = email_services.set_email_mode(user=request.user, mode=request.POST.get("mode", ""))
        except UserError as error:
            messages.error(request, str(error))
            status = 422
        else:
            words = dict((m, label) for m, label, _ in EMAIL_MODES)[mode]
            messages.success(request, f"Email preference saved: {words.lower()}.")
            return redirect("notifications:email")
    context = {
        "email_mode": inbox_selectors.email_mode(user=request.user), "email_modes": EMAIL_MODES,
        "has_email": bool(request.user.email),  # type: ignore[union-attr]
    }  # fmt: skip
    return render(request, "notifications/email.html", context, status=status)


@require_POST
@login_required
def watch_toggle(request: HtmxRequest, ws_id: UUID) -> HttpResponse:
    """Watches (`watch=on`) or stops watching (`watch=off`) a claim, decision or action (`node_id`, `kind`) of a
    workspace the person belongs to (viewers too: it changes nothing in the workspace); answers the button (htmx)
    or goes back to the page."""
    membership = get_membership(request.user, ws_id)
    node_id, kind = request.POST.get("node_id", ""), request.POST.get("kind", "")
    status = 200
    try:
        if request.POST.get("watch") == "off":
            watch_services.unwatch(user=request.user, workspace=membership.workspace, node_id=node_id, kind=kind)
        else:
            watch_services.watch(user=request.user, workspace=membership.workspace, node_id=node_id, kind=kind)
    except UserError as error:
        messages.error(request, str(error))
        status = 422
    if not request.htmx:
        return redirect(_back(request, default=reverse("workspaces:dashboard", kwargs={"ws_id": ws_id})))
    watching = watch_selectors.is_watching(user=request.user, workspace=membership.workspace, node_id=node_id)
    context = {"workspace": membership.workspace, "node_id": node_id, "kind": kind, "watching": watching,
               "next": _back(request, default=""), "said": list(messages.get_messages(request))}  # fmt: skip
    return render(request, "notifications/partials/watch_button.html", context, status=status)


def _back(request: HtmxRequest, *, default: str) -> str:
    """The form's `next` path if it is a page of this site, else `default`."""
    back = request.POST.get("next", "")
    # Only a path on this site: an address elsewhere would make the form an open redirect.
    if back.startswith("/") and url_has_allowed_host_and_scheme(
        back, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return back
    return default
