"""Reading settings from the environment: flags and numbers, a bad value named in words (no Django here)."""

from __future__ import annotations

import os


def env_flag(name: str, default: bool = False) -> bool:
    """True for 1/true/yes/on, False for 0/false/no/off, else the default."""
    value = os.environ.get(name, "").strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    return default


def env_number[N: (int, float)](name: str, default: N, *, minimum: N | None = None) -> tuple[N, str]:
    """The number in environment variable `name` (of `default`'s type), else the default; and, when the variable
    holds something that is not such a number or is below `minimum`, the sentence that says so ("" otherwise; the
    default is returned in its place)."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default, ""
    kind = type(default)
    try:
        value: N | None = kind(raw)
    except ValueError:
        value = None
    if value is None or value != value or (minimum is not None and value < minimum):
        what = "a whole number" if kind is int else "a number"
        floor = f" of at least {minimum}" if minimum is not None else ""
        return default, f"{name} must be {what}{floor}, not {raw!r}."
    return value, ""
