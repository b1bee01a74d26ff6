"""Small template helpers shared by the pages."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django import template

register = template.Library()


@register.filter
def dictget(mapping: Any, key: Any) -> Any:
    """mapping[key], or "" when it is missing."""
    try:
        return mapping.get(key, "")
    except AttributeError:
        return ""


def _utc(value: Any, clock: str) -> str:
    """An ISO 8601 timestamp as 'YYYY-MM-DD <clock> UTC' (the year padded to four digits); '—' for none, and text
    that is not a timestamp as it is."""
    if not value:
        return "—"
    try:
        moment = datetime.fromisoformat(str(value))
    except ValueError:
        return str(value)
    return f"{moment.year:04d}" + moment.strftime("-%m-%d " + clock + " UTC")


@register.filter
def when(value: Any) -> str:
    """An ISO 8601 timestamp as 'YYYY-MM-DD HH:MM UTC'."""
    return _utc(value, "%H:%M")


@register.filter
def when_exact(value: Any) -> str:
    """An ISO 8601 timestamp to the second, 'YYYY-MM-DD HH:MM:SS UTC': where changes are told apart by the moment
    (the timeline, the diff, a page's changes of its status, beside an as-of moment given to the second)."""
    return _utc(value, "%H:%M:%S")


# Every status, kind and event value a page shows, in the words a person reads; a value missing here (a new enum
# member) falls back to its name with spaces, and tests/afterhack/test_words.py fails until it has its words.
IN_WORDS = {
    # claims
    "current": "current",
    "superseded": "superseded",
    "retracted": "retracted",
    "unsupported": "unsupported",
    "proposed": "proposed (awaiting approval)",
    "replacement": "the replacement (once applied)",
    "rejected": "rejected",
    "active": "active",
    "queued": "queued",
    "running": "running",
    "done": "done",
    "failed": "failed",
    "rule_match": "rule-based",
    "model": "model",
    "manual": "by a reviewer",
    "derived": "derived",
    "human_correction": "human correction",
    "document": "document",
    # decisions and actions
    "supported": "supported",
    "needs_review": "needs review",
    "agent": "by the agent",
    "unanswered": "unanswered question",
    "pending": "pending",
    "held": "held",
    "cancelled": "cancelled",
    # a done action's follow-up (agents' FollowUp; "done" is the action status's word)
    "needed": "follow-up needed",
    "planned": "follow-up planned",
    "not_needed": "no follow-up needed",
    # a picture's done action that a correction marks as needing a follow-up (corrections/selectors/pictures.py)
    "follow_up_needed": "done, needs a follow-up",
    "reviewer": "by a reviewer",
    "offline": "offline agent",
    "mcp": "outside agent (MCP)",
    # a run's steps
    "search": "search",
    "retrieve": "retrieve",
    "retrieve_refused": "retrieval refused",
    "tool_error": "tool error",
    "model_call": "model call",
    "handoff": "handoff",
    "verdict": "verdict",
    "dropped": "dropped",
    "actions_withheld": "actions withheld",
    "source_added": "source added",
    "proposal": "proposal",
    "decision": "decision",
    "contradiction_flagged": "contradiction flagged",
    # suggestions: their statuses, kinds and who found them
    "open": "open",
    "accepted": "accepted",
    "obsolete": "obsolete",
    "contradiction": "contradiction",
    "agent_claim": "agent's claim",
    "rule": "the contradiction rule",
    "person": "a person",
}


@register.filter
def in_words(value: Any) -> str:
    """A status, kind or event value as words (`needs_review` → "needs review"); CSS keeps the raw value."""
    text = str(value or "")
    return IN_WORDS.get(text, text.replace("_", " "))


@register.filter
def pickable(picker: Any, item: Any) -> bool:
    """Whether the picker lets a person pick this item (afterhack.picker.Picker.pickable)."""
    return bool(picker.pickable(item))


# Who made something, when it was not a person: an extraction records its extractor's name as the author
# ("rule_based", or "model:<the model's name>").
MACHINE_AUTHORS = {"rule_based": "the rule-based extractor"}
MODEL_AUTHOR = "model:"


@register.filter
def who(name: Any) -> str:
    """The author of a claim or source in words: a username as it is, an extractor by what it is; "—" for none."""
    text = str(name or "")
    if text.startswith(MODEL_AUTHOR) and len(text) > len(MODEL_AUTHOR):
        return f"the model {text.removeprefix(MODEL_AUTHOR)}"
    return MACHINE_AUTHORS.get(text, text) or "—"
