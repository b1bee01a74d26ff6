"""JSON API: a workspace's webhooks (its admins only: 403 for its other members, reading too; 404 for outsiders),
their delivery attempts and redelivery."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from django.http import HttpRequest
from ninja import Field, Query, Router, Schema
from ninja.responses import Status
from pydantic import StrictBool, StrictStr, WithJsonSchema

from afterhack.lists.cursors import Page, PageIn
from afterhack.schemas import Input, PathId, Refuse, errors
from webhooks import selectors
from webhooks.models import Attempt, Endpoint
from webhooks.services import deliveries, endpoints
from webhooks.statuses import EventKind, MessageState
from workspaces.access import get_admin_workspace_for_user

router = Router(tags=["webhooks"])

# A webhook's or a delivery's id in a path: a whole number, and anything else is simply not found (404).
PathNumber = Annotated[str, WithJsonSchema({"type": "integer", "minimum": 1})]

MANAGE_WEBHOOKS = "manage its webhooks"
URL_WORDS = "Give the webhook's URL as text: the http:// or https:// address of the receiver."
EVENTS_WORDS = f"Give the events as a list of kinds, among: {endpoints.KINDS_IN_WORDS}."


class EndpointIn(Input):
    url: Annotated[StrictStr, Refuse(words=URL_WORDS, missing=URL_WORDS)]
    events: Annotated[list[StrictStr], Refuse(words=EVENTS_WORDS, missing=EVENTS_WORDS)]


class EndpointChangeIn(Input):
    url: Annotated[StrictStr | None, Refuse(words=URL_WORDS)] = None
    events: Annotated[list[StrictStr] | None, Refuse(words=EVENTS_WORDS)] = None
    enabled: Annotated[StrictBool | None, Refuse(words="“enabled” must be true or false.")] = None


class EndpointOut(Schema):
    id: int
    url: str
    events: list[EventKind]
    enabled: bool
    disabled_reason: str = Field(description="Why it is disabled, in words ('' when enabled).")
    created_at: datetime


class EndpointWithSecretOut(EndpointOut):
    secret: str = Field(
        description="The signing secret (`whsec_<base64>`): answered only here, at creation and on rotation."
    )


class DeliveryOut(Schema):
    id: int = Field(description="The attempt's id (redeliver with it).")
    message_id: str = Field(description="The `webhook-id` sent, the same on every attempt of the message.")
    event_id: int = Field(description="The audit event told.")
    event: EventKind
    attempt: int = Field(description="Which attempt of the message this was, from 1.")
    status_code: int | None = Field(description="What the receiver answered; null: no answer.")
    error: str = Field(description="What went wrong, in words ('' for a success).")
    at: datetime
    duration_ms: int


class RedeliveryOut(Schema):
    message_id: str
    event_id: int
    event: EventKind
    state: MessageState


def endpoint_out(endpoint: Endpoint) -> dict[str, Any]:
    return {
        "id": endpoint.pk, "url": endpoint.url, "events": endpoint.events, "enabled": endpoint.enabled,
        "disabled_reason": endpoint.disabled_reason, "created_at": endpoint.created_at,
    }  # fmt: skip


def delivery_out(attempt: Attempt) -> dict[str, Any]:
    return {
        "id": attempt.pk, "message_id": attempt.message_id, "event_id": attempt.message.event_id,
        "event": attempt.message.kind, "attempt": attempt.number, "status_code": attempt.status_code,
        "error": attempt.error, "at": attempt.at, "duration_ms": attempt.duration_ms,
    }  # fmt: skip


def _endpoint(request: HttpRequest, ws_id: str, webhook_id: PathNumber) -> Endpoint:
    workspace = get_admin_workspace_for_user(request.user, ws_id, to=MANAGE_WEBHOOKS)
    return endpoints.endpoint_get(workspace=workspace, endpoint_id=webhook_id)


@router.post("/{ws_id}/webhooks", response={201: EndpointWithSecretOut, **errors(401, 403, 404, 422, 503)})
def webhook_create(request: HttpRequest, ws_id: PathId, payload: EndpointIn) -> Any:
    """Adds a webhook: the receiver's URL and the event kinds it is sent. Answers its signing secret, once. A URL
    that is not http(s), is over 2,000 characters, is this app's own address or (with
    AFTERHACK_WEBHOOK_ALLOWED_HOSTS) names a host not allowed, or an unknown event kind: 422 `invalid_input`, in
    words."""
    workspace = get_admin_workspace_for_user(request.user, ws_id, to=MANAGE_WEBHOOKS)
    endpoint = endpoints.endpoint_create(
        workspace=workspace, url=payload.url, events=payload.events, actor=request.user, asked_on=request.get_host()
    )
    return Status(201, {**endpoint_out(endpoint), "secret": endpoint.secret})


@router.get("/{ws_id}/webhooks", response={200: Page[EndpointOut], **errors(401, 403, 404, 422, 503)})
def webhook_list(request: HttpRequest, ws_id: PathId, page: Query[PageIn]) -> Any:
    """The workspace's webhooks, oldest first (never their secrets)."""
    workspace = get_admin_workspace_for_user(request.user, ws_id, to=MANAGE_WEBHOOKS)
    return selectors.endpoints_page(workspace=workspace, limit=page.limit, cursor=page.cursor).answer(endpoint_out)


@router.get("/{ws_id}/webhooks/{webhook_id}", response={200: EndpointOut, **errors(401, 403, 404, 503)})
def webhook_get(request: HttpRequest, ws_id: PathId, webhook_id: PathNumber) -> Any:
    """One webhook (never its secret)."""
    return endpoint_out(_endpoint(request, ws_id, webhook_id))


@router.patch("/{ws_id}/webhooks/{webhook_id}", response={200: EndpointOut, **errors(401, 403, 404, 422, 503)})
def webhook_change(request: HttpRequest, ws_id: PathId, webhook_id: PathNumber, payload: EndpointChangeIn) -> Any:
    """Changes its URL, events or whether it is enabled (what is left out stays); enabling it clears why it was
    disabled, and its pending deliveries go out again."""
    endpoint = endpoints.endpoint_change(
        endpoint=_endpoint(request, ws_id, webhook_id), actor=request.user, url=payload.url, events=payload.events,
        enabled=payload.enabled, asked_on=request.get_host(),
    )  # fmt: skip
    return endpoint_out(endpoint)


@router.delete("/{ws_id}/webhooks/{webhook_id}", response={204: None, **errors(401, 403, 404, 503)})
def webhook_delete(request: HttpRequest, ws_id: PathId, webhook_id: PathNumber) -> Any:
    """Deletes the webhook with its deliveries' log: nothing more is sent to it."""
    endpoints.endpoint_delete(endpoint=_endpoint(request, ws_id, webhook_id), actor=request.user)
    return Status(204, None)


@router.post(
    "/{ws_id}/webhooks/{webhook_id}/rotate-secret", response={200: EndpointWithSecretOut, **errors(401, 403, 404, 503)}
)
def webhook_rotate_secret(request: HttpRequest, ws_id: PathId, webhook_id: PathNumber) -> Any:
    """Gives the webhook a new signing secret, answered once; every delivery from now on is signed with it."""
    endpoint = endpoints.endpoint_rotate_secret(endpoint=_endpoint(request, ws_id, webhook_id), actor=request.user)
    return {**endpoint_out(endpoint), "secret": endpoint.secret}


@router.get(
    "/{ws_id}/webhooks/{webhook_id}/deliveries", response={200: Page[DeliveryOut], **errors(401, 403, 404, 422, 503)}
)
def webhook_deliveries(request: HttpRequest, ws_id: PathId, webhook_id: PathNumber, page: Query[PageIn]) -> Any:
    """Every attempt to deliver to the webhook, newest first: its status code, time, error and duration."""
    endpoint = _endpoint(request, ws_id, webhook_id)
    return selectors.attempts_page(endpoint=endpoint, limit=page.limit, cursor=page.cursor).answer(delivery_out)


@router.post(
    "/{ws_id}/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver",
    response={202: RedeliveryOut, **errors(401, 403, 404, 409, 503)},
)
def webhook_redeliver(request: HttpRequest, ws_id: PathId, webhook_id: PathNumber, delivery_id: PathNumber) -> Any:
    """Sends the message of this attempt again, now, as a new attempt with the same `webhook-id` (its retries start
    again if it fails); 409 when the webhook is disabled."""
    endpoint = _endpoint(request, ws_id, webhook_id)
    message = deliveries.redeliver(endpoint=endpoint, attempt_id=delivery_id, actor=request.user)
    return Status(
        202, {"message_id": message.id, "event_id": message.event_id, "event": message.kind, "state": message.state}
    )
