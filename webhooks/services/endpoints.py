"""A workspace's webhook endpoints, as its admins manage them (the caller checked they are): add one (its secret is
answered once), change its URL, events or whether it is enabled, rotate its secret (answered once), delete it. Each
change is audited, naming the endpoint by its host (a URL's path or query may hold the receiver's own token)."""

from __future__ import annotations

import base64
import secrets
from typing import Any

from django.db import transaction
from django.utils import timezone

from afterhack.errors import NotFound, UserError
from webhooks.addresses import clean_url, host_of
from webhooks.models import Endpoint
from webhooks.services import deliveries
from webhooks.statuses import EventKind
from workspaces.models import Workspace
from workspaces.services.audit import record_event

SECRET_BYTES = 32
KINDS_IN_WORDS = ", ".join(kind.value for kind in EventKind)


class EndpointNotFound(NotFound):
    thing = "webhook"


class InvalidEvents(UserError):
    """Event kinds that cannot be used, said in words (422 `invalid_input`)."""


def new_secret() -> str:
    """A signing secret as Standard Webhooks writes it: `whsec_` and 32 random bytes in base64."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def clean_events(value: object) -> list[str]:
    """The event kinds chosen, each once, in the order of EventKind; at least one."""
    if not isinstance(value, list | tuple) or not value:
        raise InvalidEvents(f"Choose the events to send, at least one of: {KINDS_IN_WORDS}.")
    known = {kind.value for kind in EventKind}
    unknown = [str(v)[:40] for v in value if not isinstance(v, str) or v not in known]
    if unknown:
        raise InvalidEvents(f"Unknown event kind “{unknown[0]}”: choose among {KINDS_IN_WORDS}.")
    return [kind.value for kind in EventKind if kind.value in value]


def endpoint_create(*, workspace: Workspace, url: object, events: object, actor: Any, asked_on: str = "") -> Endpoint:
    """Adds an endpoint, enabled, with a new secret (answered now, and never again but on rotation)."""
    url, kinds = clean_url(url, asked_on=asked_on), clean_events(events)
    with transaction.atomic():
        endpoint = Endpoint.objects.create(
            workspace=workspace, url=url, events=kinds, secret=new_secret(),
            created_by=actor if getattr(actor, "is_authenticated", False) else None,
        )  # fmt: skip
        record_event(
            actor=actor, workspace=workspace, verb="webhook.created", target=host_of(url),
            payload={"endpoint_id": endpoint.pk, "events": kinds},
        )  # fmt: skip
    return endpoint


def endpoint_get(*, workspace: Workspace, endpoint_id: object) -> Endpoint:
    """The workspace's endpoint with this id; 404 naming it otherwise."""
    endpoint = (
        Endpoint.objects.filter(workspace=workspace, pk=int(str(endpoint_id))).first() if _an_id(endpoint_id) else None
    )
    if endpoint is None:
        raise EndpointNotFound()
    return endpoint


def _an_id(value: object) -> bool:
    return isinstance(value, int) or (
        isinstance(value, str) and value.isascii() and value.isdecimal() and len(value) < 12
    )


def endpoint_change(
    *, endpoint: Endpoint, actor: Any, url: object = None, events: object = None, enabled: object = None,
    asked_on: str = "",
) -> Endpoint:  # fmt: skip
    """Changes what is given (None: left as it is); enabling it again clears why it was disabled."""
    changes: dict[str, Any] = {}
    if url is not None and (cleaned := clean_url(url, asked_on=asked_on)) != endpoint.url:
        changes["url"] = cleaned
    if events is not None and (kinds := clean_events(events)) != endpoint.events:
        changes["events"] = kinds
    if enabled is not None:
        if not isinstance(enabled, bool):
            raise UserError("“enabled” must be true or false.")
        if enabled != endpoint.enabled:
            changes["enabled"] = enabled
            changes["disabled_reason"] = "" if enabled else "Disabled by an admin."
    if not changes:
        return endpoint
    audited = ", ".join(f for f in changes if f != "disabled_reason")
    if changes.get("enabled") or "url" in changes:
        # Enabled again, or sent elsewhere: what is queued is tried now, not after the old receiver's pause.
        changes["failures_in_a_row"], changes["paused_until"] = 0, None
    with transaction.atomic():
        for field, value in changes.items():
            setattr(endpoint, field, value)
        endpoint.save(update_fields=list(changes))
        if "paused_until" in changes:
            deliveries.release([endpoint.pk], timezone.now())
        record_event(
            actor=actor, workspace=endpoint.workspace, verb="webhook.changed", target=host_of(endpoint.url),
            payload={"endpoint_id": endpoint.pk, "changed": audited},
        )  # fmt: skip
    return endpoint


def endpoint_rotate_secret(*, endpoint: Endpoint, actor: Any) -> Endpoint:
    """Gives the endpoint a new secret (answered now, once); deliveries are signed with it from now on, retries too."""
    with transaction.atomic():
        endpoint.secret = new_secret()
        endpoint.save(update_fields=["secret"])
        record_event(
            actor=actor, workspace=endpoint.workspace, verb="webhook.secret_rotated", target=host_of(endpoint.url),
            payload={"endpoint_id": endpoint.pk},
        )  # fmt: skip
    return endpoint


def endpoint_delete(*, endpoint: Endpoint, actor: Any) -> None:
    """Deletes the endpoint with its messages and their attempts: nothing more is sent to it."""
    with transaction.atomic():
        record_event(
            actor=actor, workspace=endpoint.workspace, verb="webhook.deleted", target=host_of(endpoint.url),
            payload={"endpoint_id": endpoint.pk},
        )  # fmt: skip
        endpoint.delete()
