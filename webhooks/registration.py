"""The webhooks app's parts of the registry (workspaces/registry.py): its audit verbs. Each names an endpoint by its
host only, never workspace content, so it reads whole to every reader; its page is the webhooks page (admins)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.urls import reverse

from workspaces.registry import AuditVerb, EventPage, Teller, Telling, register

if TYPE_CHECKING:
    from workspaces.models import AuditEvent

WEBHOOKS = EventPage("webhooks:list", admins=True)

# verb: (words, kind)
WEBHOOK_VERBS = {
    "webhook.created": ("added a webhook to {target}", "Webhook added"),
    "webhook.changed": ("changed the webhook to {target} ({changed})", "Webhook changed"),
    "webhook.secret_rotated": ("rotated the secret of the webhook to {target}", "Webhook secret rotated"),
    "webhook.deleted": ("deleted the webhook to {target}", "Webhook deleted"),
    "webhook.disabled": (
        "disabled the webhook to {target}: its receiver failed {attempts} attempts of one delivery",
        "Webhook disabled",
    ),
    "webhook.redelivered": ("redelivered event {event_id} to the webhook to {target}", "Webhook redelivered"),
}

VERBS = [AuditVerb(verb, words, kind, page=WEBHOOKS, whole=True) for verb, (words, kind) in WEBHOOK_VERBS.items()]


def tell_disabled(event: AuditEvent) -> Telling:
    """A webhook whose receiver stayed down was disabled: the workspace's admins are told (no webhook event: the
    receivers are what failed)."""
    url = reverse("webhooks:detail", kwargs={"ws_id": event.workspace_id, "webhook_id": event.payload["endpoint_id"]})
    text = (
        f"The webhook to {event.target} was disabled: its receiver failed {event.payload.get('attempts')} attempts "
        "of one delivery over a day. Enable it again once the receiver answers: what was queued for it then goes out; "
        "events while it is disabled are not sent (its log keeps the failed delivery, to redeliver)."
    )
    return Telling(text=text, url=url, admins="you administer this workspace")


def register_parts() -> None:
    """Registers the webhooks app's verbs, and what a disabled webhook tells."""
    register(*VERBS, Teller("webhook.disabled", tell_disabled))
