"""The picker of the moment a page shows, and the banner while it shows the past (afterhack/as_of.py)."""

from __future__ import annotations

from typing import Any

from django import template

from afterhack.as_of import Moment, words

register = template.Library()


@register.inclusion_tag("partials/as_of.html", takes_context=True)
def as_of_bar(context: template.Context) -> dict[str, Any]:
    """The "As of (UTC)" picker (a plain GET form to the page itself) and, in the past, the banner saying so;
    the page's moment is its context's `as_of` (the present when it has none)."""
    moment = context.get("as_of")
    moment = moment if isinstance(moment, Moment) else Moment()
    since = words(moment.history_since) if moment.history_since else ""
    return {"as_of": moment, "path": context["request"].path, "history_since": since}
