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


@register.filter
def when(value: Any) -> str:
    """An ISO 8601 timestamp as 'YYYY-MM-DD HH:MM UTC'."""
    if not value:
        return "—"
    try:
        moment = datetime.fromisoformat(str(value))
    except ValueError:
        return str(value)
    return moment.strftime("%Y-%m-%d %H:%M UTC")


@register.filter
def pickable(picker: Any, item: Any) -> bool:
    """Whether the picker lets a person pick this item (afterhack.picker.Picker.pickable)."""
    return bool(picker.pickable(item))
