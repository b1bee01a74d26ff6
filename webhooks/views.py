"""Pages of a workspace's admins: its webhooks (list and add, the new secret shown once), one webhook (change its
URL, events or whether it is enabled; rotate its secret, shown once; delete it) with its deliveries' log and
Redeliver. Other members get 403, outsiders 404."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect

from afterhack import confirm
from afterhack.errors import UserError
from afterhack.htmx import HtmxRequest
from webhooks import selectors
from webhooks.models import Endpoint
from webhooks.services import deliveries, endpoints
from webhooks.statuses import EventKind
from workspaces.access import get_admin_workspace_for_user, get_membership
from workspaces.models import Workspace

MANAGE_WEBHOOKS = "manage its webhooks"
KINDS = [kind.value for kind in EventKind]
DELIVERIES_SHOWN = 50


def _workspace(request: HtmxRequest, ws_id: UUID) -> Workspace:
    return get_admin_workspace_for_user(request.user, ws_id, to=MANAGE_WEBHOOKS)


def _list_context(request: HtmxRequest, workspace: Workspace, **extra: Any) -> dict[str, Any]:
    return {
        "workspace": workspace, "membership": get_membership(request.user, workspace.id), "kinds": KINDS,
        "endpoints": list(selectors.endpoints_of(workspace=workspace)), "chosen": [], "url": "", **extra,
    }  # fmt: skip


@require_GET
@login_required
def webhook_list(request: HtmxRequest, ws_id: UUID) -> HttpResponse:
    """The workspace's webhooks and the form to add one."""
    workspace = _workspace(request, ws_id)
    return render(request, "webhooks/webhook_list.html", _list_context(request, workspace))


@require_POST
@login_required
def webhook_create(request: HtmxRequest, ws_id: UUID) -> HttpResponse:
    """Adds a webhook and shows its secret, this once (the answer is the page, never a redirect carrying it)."""
    workspace = _workspace(request, ws_id)
    url, chosen = request.POST.get("url", ""), request.POST.getlist("events")
    try:
        endpoint = endpoints.endpoint_create(
            workspace=workspace, url=url, events=chosen, actor=request.user, asked_on=request.get_host()
        )
    except UserError as error:
        context = _list_context(request, workspace, error=str(error), url=url, chosen=chosen)
        template = "webhooks/webhook_list.html#webhook-section" if request.htmx else "webhooks/webhook_list.html"
        return render(request, template, context, status=422)
    context = _list_context(request, workspace, created=endpoint)
    template = "webhooks/webhook_list.html#webhook-section" if request.htmx else "webhooks/webhook_list.html"
    return render(request, template, context)


def _detail_context(request: HtmxRequest, endpoint: Endpoint, **extra: Any) -> dict[str, Any]:
    cursor = request.GET.get("cursor") or None
    try:
        page = selectors.attempts_page(endpoint=endpoint, limit=DELIVERIES_SHOWN, cursor=cursor)
    except UserError as error:
        page, extra["cursor_error"] = (
            selectors.attempts_page(endpoint=endpoint, limit=DELIVERIES_SHOWN, cursor=None),
            str(error),
        )
    return {
        "workspace": endpoint.workspace, "membership": get_membership(request.user, endpoint.workspace_id),
        "endpoint": endpoint, "kinds": KINDS, "attempts": page.items, "next_cursor": page.next, "count": page.count,
        "url": endpoint.url, "chosen": endpoint.events, **extra,
    }  # fmt: skip


def _endpoint(request: HtmxRequest, ws_id: UUID, webhook_id: int) -> Endpoint:
    return endpoints.endpoint_get(workspace=_workspace(request, ws_id), endpoint_id=webhook_id)


@require_GET
@login_required
def webhook_detail(request: HtmxRequest, ws_id: UUID, webhook_id: int) -> HttpResponse:
    """One webhook: its settings, and every delivery attempt (newest first, paged) with Redeliver."""
    endpoint = _endpoint(request, ws_id, webhook_id)
    context = _detail_context(request, endpoint)
    template = "webhooks/webhook.html#deliveries" if request.htmx else "webhooks/webhook.html"
    return render(request, template, context)


@require_POST
@login_required
def webhook_change(request: HtmxRequest, ws_id: UUID, webhook_id: int) -> HttpResponse:
    """Saves its URL, events and whether it is enabled (the form sends all three)."""
    endpoint = _endpoint(request, ws_id, webhook_id)
    url, chosen = request.POST.get("url", ""), request.POST.getlist("events")
    try:
        endpoints.endpoint_change(
            endpoint=endpoint, actor=request.user, url=url, events=chosen,
            enabled=request.POST.get("enabled") == "on", asked_on=request.get_host(),
        )  # fmt: skip
    except UserError as error:
        endpoint.refresh_from_db()
        context = _detail_context(request, endpoint, error=str(error), url=url, chosen=chosen)
        template = "webhooks/webhook.html#webhook-settings" if request.htmx else "webhooks/webhook.html"
        return render(request, template, context, status=422)
    messages.success(request, "Webhook saved.")
    return _back_to(request, endpoint)


def _back_to(request: HtmxRequest, endpoint: Endpoint) -> HttpResponse:
    target = reverse("webhooks:detail", kwargs={"ws_id": endpoint.workspace_id, "webhook_id": endpoint.pk})
    return HttpResponseClientRedirect(target) if request.htmx else redirect(target)


@require_POST
@login_required
def webhook_rotate(request: HtmxRequest, ws_id: UUID, webhook_id: int) -> HttpResponse:
    """Asks first (confirm.ask); then gives it a new secret and shows it, this once."""
    endpoint = _endpoint(request, ws_id, webhook_id)
    back = reverse("webhooks:detail", kwargs={"ws_id": ws_id, "webhook_id": endpoint.pk})
    if not confirm.is_confirmed(request):
        return confirm.ask(
            request, question="Rotate this webhook's secret?",
            consequence="Deliveries are signed with the new secret from now on, retries too: the receiver must "
            "verify with the new one. The old secret stops working at once.",
            yes="Rotate the secret", action=request.path, fields={}, back=back, target="#webhook-secret",
        )  # fmt: skip
    endpoint = endpoints.endpoint_rotate_secret(endpoint=endpoint, actor=request.user)
    context = _detail_context(request, endpoint, secret=endpoint.secret)
    template = "webhooks/webhook.html#webhook-secret" if request.htmx else "webhooks/webhook.html"
    return render(request, template, context)


@require_POST
@login_required
def webhook_delete(request: HtmxRequest, ws_id: UUID, webhook_id: int) -> HttpResponse:
    """Asks first (confirm.ask); then deletes the webhook and its deliveries' log."""
    endpoint = _endpoint(request, ws_id, webhook_id)
    back = reverse("webhooks:detail", kwargs={"ws_id": ws_id, "webhook_id": endpoint.pk})
    if not confirm.is_confirmed(request):
        return confirm.ask(
            request, question=f"Delete the webhook to {endpoint.url}?",
            consequence="Nothing more is sent to it, and its deliveries' log is deleted with it.",
            yes="Delete the webhook", action=request.path, fields={}, back=back, target="#webhook-delete",
        )  # fmt: skip
    endpoints.endpoint_delete(endpoint=endpoint, actor=request.user)
    messages.success(request, f"The webhook to {endpoint.url} was deleted.")
    target = reverse("webhooks:list", kwargs={"ws_id": ws_id})
    return HttpResponseClientRedirect(target) if request.htmx else redirect(target)


@require_POST
@login_required
def webhook_redeliver(request: HtmxRequest, ws_id: UUID, webhook_id: int, attempt_id: int) -> HttpResponse:
    """Sends the message of this attempt again now; the log shows the new attempt when it is made."""
    endpoint = _endpoint(request, ws_id, webhook_id)
    try:
        message = deliveries.redeliver(endpoint=endpoint, attempt_id=attempt_id, actor=request.user)
    except UserError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, f"Event {message.event_id} ({message.kind}) is being delivered again.")
    return _back_to(request, endpoint)
