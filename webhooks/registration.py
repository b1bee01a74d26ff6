"""The webhooks app's parts of the registry (workspaces/registry.py): its audit verbs. Each names an endpoint by its
host only, never workspace content, so it reads whole to every reader; its page is the webhooks page (admins)."""

from __future__ import annotations

from workspaces.registry import AuditVerb, EventPage, register

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


def register_parts() -> None:
    """Registers the webhooks app's verbs."""
    register(*VERBS)
