"""Ids and text that may reach a store: UUID ids only, and strings PostgreSQL and FalkorDB can hold."""

from __future__ import annotations

import uuid


def parse_id(value: object) -> str | None:
    """The canonical form of a UUID id, or None for anything else (so it can never reach a query)."""
    if not isinstance(value, str) or len(value) > 64:
        return None
    try:
        return str(uuid.UUID(value))
    except ValueError:
        return None


def is_storable(text: str) -> bool:
    """False for strings the stores cannot hold: NUL characters, or lone surrogates (not UTF-8)."""
    if "\x00" in text:
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def storable(text: str) -> str:
    """The text with NUL removed and lone surrogates replaced, for recording what a model said."""
    return text.replace("\x00", "").encode("utf-8", "replace").decode("utf-8")
