"""The picker of the moment a page shows, and the banner while it shows the past (afterhack/as_of.py)."""

from __future__ import annotations

from typing import Any

from django import template
from django.urls import NoReverseMatch, reverse
from django.utils.html import conditional_escape, format_html

from afterhack.as_of import Moment, words
from afterhack.history_graph import Change, ChangeCause

register = template.Library()


@register.inclusion_tag("partials/as_of.html", takes_context=True)
def as_of_bar(context: template.Context) -> dict[str, Any]:
    """The "As of (UTC)" picker (a plain GET form to the page itself) and, in the past, the banner saying so;
    the page's moment is its context's `as_of` (the present when it has none)."""
    moment = context.get("as_of")
    moment = moment if isinstance(moment, Moment) else Moment()
    since = words(moment.history_since) if moment.history_since else ""
    return {"as_of": moment, "path": context["request"].path, "history_since": since}


# What caused a change, in words, and the page of that cause (URL name, its id's keyword), where there is one.
CAUSES: dict[str, tuple[str, str, str]] = {
    ChangeCause.CORRECTION: ("a correction", "corrections:detail", "correction_id"),
    ChangeCause.RETRACTION: ("the retraction of its source", "claims:source", "source_id"),
    ChangeCause.NEW_VERSION: ("a new version of its source", "", ""),
    ChangeCause.REJUSTIFICATION: ("a re-justification", "agents:decision", "decision_id"),
    ChangeCause.REVISION: ("a revision", "agents:decision", "decision_id"),
    ChangeCause.DISMISSAL: ("a dismissal", "agents:decision", "decision_id"),
    ChangeCause.CLAIM_REVIEW: ("a reviewer's answer to an agent's claim", "", ""),
    ChangeCause.AGENT_RUN: ("an agent run", "agents:run", "run_id"),
    ChangeCause.PERSON: ("a person", "", ""),
    ChangeCause.MIGRATION: ("the state found when the history began", "", ""),
}


@register.simple_tag(takes_context=True)
def change_cause(context: template.Context, change: Change) -> str:
    """What caused a recorded change, in words, linked to its page where it has one (a decision's link keeps the
    page's moment, like every link of a page in the past)."""
    kind, cause_id = change.cause.get("kind") or "", change.cause.get("id") or ""
    words_, name, keyword = CAUSES.get(kind, (kind.replace("_", " "), "", ""))
    if not (name and cause_id):
        return conditional_escape(words_)
    try:
        url = reverse(name, kwargs={"ws_id": context["workspace"].id, keyword: cause_id})
    except NoReverseMatch:
        return conditional_escape(words_)
    moment = context.get("as_of")
    if name == "agents:decision" and isinstance(moment, Moment) and moment.at and change.at <= moment.at:
        # A revision after the moment names a decision that did not exist then: that link opens the present.
        url += moment.query
    return format_html('<a href="{}">{}</a>', url, words_)
