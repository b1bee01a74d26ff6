"""Reading settings from the environment: flags, numbers and host patterns, a bad value named in words (no Django
here)."""

from __future__ import annotations

import ipaddress
import os
import re


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


# A host name as a pattern may give it: letters, digits and hyphens between dots.
_NAME = re.compile(r"(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*")
# The older wildcard form of an IPv4 network: leading octets, then `*` for each of the rest (`10.0.0.*`, `10.*.*.*`).
_OCTETS_THEN_STARS = re.compile(r"((?:\d{1,3}\.){1,3})\*(?:\.\*){0,2}")


def host_pattern(raw: str) -> str | None:
    """One allowed-hosts pattern as the app reads it, or None when it is none of: a network (`10.0.0.0/24`, an
    address alone), a host name (`hooks.example.com`), its subdomains (`*.example.com`), or the older IPv4 form
    (`10.0.0.*`, read as `10.0.0.0/24`)."""
    text = raw.strip().lower().rstrip(".")
    try:
        return str(ipaddress.ip_network(text.strip("[]"), strict=False))
    except ValueError:
        pass
    if old := _OCTETS_THEN_STARS.fullmatch(text):
        octets = old.group(1).rstrip(".").split(".")
        stars = text.count("*")
        if len(octets) + stars == 4 and all(int(octet) <= 255 for octet in octets):
            return f"{'.'.join(octets + ['0'] * stars)}/{8 * len(octets)}"
        return None
    name = text.removeprefix("*.")
    if _NAME.fullmatch(name) and not name.replace(".", "").isdecimal():
        return text
    return None


def env_host_patterns(name: str) -> tuple[list[str], str]:
    """The comma-separated host patterns in environment variable `name`, each as `host_pattern` reads it; and the
    sentence refusing the first one it cannot read ("" when all read; those that read are returned)."""
    patterns, refusal = [], ""
    for raw in os.environ.get(name, "").split(","):
        if not raw.strip():
            continue
        pattern = host_pattern(raw)
        if pattern is None:
            refusal = refusal or (
                f"{name} holds {raw.strip()!r}, not a pattern it reads: give a network as 10.0.0.0/24 (or one "
                "address), a host name as hooks.example.com, or all its subdomains as *.example.com."
            )
            continue
        patterns.append(pattern)
    return patterns, refusal
