"""Notifications' parts of other apps' pages: the bell in the site header (`{% inbox_bell %}`) and the Watch button
of a claim, decision or action page (`{% watch_button workspace node_id "claim" %}`), which the pages of the apps
above include."""

from __future__ import annotations

from typing import Any

from django import template

from notifications.selectors import inbox as inbox_selectors
from notifications.selectors import watches as watch_selectors

register = template.Library()


@register.inclusion_tag("notifications/partials/bell.html", takes_context=True)
def inbox_bell(context: template.Context) -> dict[str, Any]:
    """The link to the inbox with the person's unread count (one indexed count; none shown for 0, "99+" beyond)."""
    user = context.get("user")
    count = inbox_selectors.unread_count(user=user) if user is not None and user.is_authenticated else 0
    return {"count": count, "words": inbox_selectors.bell_words(count)}


@register.inclusion_tag("notifications/partials/watch_button.html", takes_context=True)
def watch_button(context: template.Context, workspace: Any, node_id: str, kind: str) -> dict[str, Any]:
    """The Watch / Unwatch button of one claim, decision or action, for the person reading the page."""
    user = context.get("user")
    watching = (
        user is not None
        and user.is_authenticated
        and watch_selectors.is_watching(user=user, workspace=workspace, node_id=node_id)
    )
    request = context.get("request")
    return {
        "workspace": workspace, "node_id": node_id, "kind": kind, "watching": watching,
        "next": request.get_full_path() if request is not None else "", "csrf_token": context.get("csrf_token"),
    }  # fmt: skip
