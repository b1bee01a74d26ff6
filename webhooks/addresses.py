"""Where a webhook may be sent: the rules a URL given by an admin must follow, checked without any store.

An http(s) URL of at most 2,000 characters, with a host; never the app's own address (its port on a loopback
address, the host and port of its public URL, or the host it was asked on); and, when
AFTERHACK_WEBHOOK_ALLOWED_HOSTS lists host patterns, a host one of them matches. Private and loopback addresses are
allowed otherwise: the receivers of an internal tool are internal.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from fnmatch import fnmatchcase
from urllib.parse import SplitResult, urlsplit

from django.conf import settings

from afterhack.errors import UserError
from afterhack.text import MAX_URL_CHARS

DEFAULT_PORTS = {"http": 80, "https": 443}


class InvalidWebhookUrl(UserError):
    """A webhook URL that cannot be used, said in words (422 `invalid_input`)."""


def clean_url(value: object, *, asked_on: str = "") -> str:
    """The URL, stripped, if a webhook may be sent there; `asked_on` is the host (and port) the request that gives
    it was made to, also the app's own. Raises InvalidWebhookUrl saying why not."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidWebhookUrl("Give the webhook's URL: the http:// or https:// address of the receiver.")
    url = value.strip()
    if len(url) > MAX_URL_CHARS:
        raise InvalidWebhookUrl(f"This URL is {len(url):,} characters long; a webhook's URL has at most 2,000.")
    if any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in url):
        raise InvalidWebhookUrl("A webhook's URL cannot hold spaces or control characters.")
    parts = urlsplit(url)
    if parts.scheme.lower() not in DEFAULT_PORTS:
        raise InvalidWebhookUrl(f"A webhook's URL must start with http:// or https:// (not “{url[:40]}”).")
    host, port = _host_and_port(parts)
    if refuses_own(host, port, asked_on):
        raise InvalidWebhookUrl(f"{host}:{port} is this app's own address: a webhook is sent to another system.")
    allowed = settings.AFTERHACK_WEBHOOK_ALLOWED_HOSTS
    if allowed and not any(fnmatchcase(host, pattern) for pattern in allowed):
        raise InvalidWebhookUrl(
            f"Webhooks may not be sent to {host} here: the hosts allowed are {', '.join(allowed)} "
            "(AFTERHACK_WEBHOOK_ALLOWED_HOSTS)."
        )
    return url


def _host_and_port(parts: SplitResult) -> tuple[str, int]:
    try:
        port = parts.port
    except ValueError:
        raise InvalidWebhookUrl("The port in this URL is not a number from 1 to 65535.") from None
    host = (parts.hostname or "").rstrip(".").lower()
    if not host:
        raise InvalidWebhookUrl("This URL names no host: write it as https://host/path.")
    return host, port or DEFAULT_PORTS[parts.scheme.lower()]


def host_of(url: str) -> str:
    """The host of a URL (and its port when one is written), without the path, query or credentials: how the audit
    trail names an endpoint, since a path or query may hold a receiver's token."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    return f"{host}:{parts.port}" if parts.port else host


def is_loopback(host: str) -> bool:
    """Whether the host is this machine: localhost, or a loopback or unspecified address."""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


def own_addresses(asked_on: str = "") -> set[tuple[str, int]]:
    """The app's own (host, port) pairs: its public URL's, the one it was asked on, and its port on loopback."""
    public = urlsplit(settings.AFTERHACK_PUBLIC_URL)
    own = {_host_and_port(public)} if public.hostname else set()
    if asked_on:
        asked = urlsplit(f"{public.scheme or 'http'}://{asked_on}")
        if asked.hostname:
            own.add(_host_and_port(asked))
    ports = {settings.PORT, *(port for host, port in own if is_loopback(host))}
    return own | set(_loopback_pairs(ports))


def _loopback_pairs(ports: Iterable[int]) -> Iterable[tuple[str, int]]:
    for port in ports:
        for host in ("localhost", "127.0.0.1", "::1", "0.0.0.0", "::"):  # noqa: S104 - names addresses, binds none
            yield host, port


def refuses_own(host: str, port: int, asked_on: str = "") -> bool:
    """Whether (host, port) is the app itself, a loopback alias of it included."""
    own = own_addresses(asked_on)
    return (host, port) in own or (is_loopback(host) and any(p == port and is_loopback(h) for h, p in own))
