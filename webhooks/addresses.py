"""Where a webhook may be sent: the rules a URL given by an admin must follow, checked again before each attempt.

An http(s) URL of at most 2,000 characters, well formed, with a host; never the app's own address; and, when
AFTERHACK_WEBHOOK_ALLOWED_HOSTS lists patterns, a host one of them allows. Private and loopback addresses are
allowed otherwise: the receivers of an internal tool are internal.

The app's own address is its port (PORT) on this machine, the host and port of its public URL, and the host and port
it was asked on, compared by address, not by spelling: an IP literal is read as the network stack reads it (`127.1`,
`2130706433`, `0x7f000001`, `0`, `[::ffff:127.0.0.1]` are loopback and "any" addresses), and a host name by what it
resolves to (`socket.getaddrinfo`, within RESOLVE_SECONDS; a name that does not resolve is no address of the app's).
This machine is any loopback or unspecified address, and what its host name resolves to. The allowed hosts' networks
(`10.0.0.0/24`) are matched against every address the host resolves to; their names (`hooks.example.com`,
`*.example.com`) against the host as written.

The sending looks each host up once a batch (`looked_up`) and connects to the address it checked (`pinned`), so a
name that resolves elsewhere since it was given is refused before anything is sent.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import SplitResult, urlsplit

from django.conf import settings

from afterhack.errors import UserError
from afterhack.text import MAX_URL_CHARS

DEFAULT_PORTS = {"http": 80, "https": 443}
# How long a host name's lookup may take before it counts as not found.
RESOLVE_SECONDS = 2.0
# What the network stack may read as an IPv4 address (decimal, octal or hex parts, 1 to 4 of them).
_NUMERIC = re.compile(r"[0-9a-fx.]+")
# The lookups of a request's check, each in a thread so that a slow resolver is given up on at RESOLVE_SECONDS.
_LOOKUPS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="webhook-lookup")

type Address = ipaddress.IPv4Address | ipaddress.IPv6Address


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
    parts = _split(url)
    if parts.scheme.lower() not in DEFAULT_PORTS:
        raise InvalidWebhookUrl(f"A webhook's URL must start with http:// or https:// (not “{url[:40]}”).")
    if "\\" in parts.netloc:
        raise InvalidWebhookUrl("A webhook's URL cannot hold a backslash before its path: browsers read it as a /.")
    host, port = _host_and_port(parts)
    if words := refusal(host, port, lookup=Lookup(), asked_on=asked_on):
        raise InvalidWebhookUrl(words)
    return url


def _split(url: str) -> SplitResult:
    try:
        return urlsplit(url)
    except ValueError:  # an unclosed `[` of an IPv6 address, say
        raise InvalidWebhookUrl(
            f"This URL is not well formed (“{url[:60]}”): write it as https://host/path, an IPv6 address in "
            "brackets: http://[::1]:8080/path."
        ) from None


def _host_and_port(parts: SplitResult) -> tuple[str, int]:
    try:
        port = parts.port
        hostname = parts.hostname
    except ValueError:
        raise InvalidWebhookUrl("The port in this URL is not a number from 1 to 65535.") from None
    host = (hostname or "").rstrip(".").lower()
    if not host:
        raise InvalidWebhookUrl("This URL names no host: write it as https://host/path.")
    return host, port or DEFAULT_PORTS.get(parts.scheme.lower(), 80)


def host_of(url: str) -> str:
    """The host of a URL (and its port when one is written), without the path, query or credentials: how the audit
    trail names an endpoint, since a path or query may hold a receiver's token. A URL too malformed to read gives
    what stands between `//` and the path, credentials left out."""
    try:
        parts = urlsplit(url)
        host, port = parts.hostname or "", parts.port
    except ValueError:
        return url.partition("//")[2].partition("/")[0].rpartition("@")[2][:100]
    return f"{host}:{port}" if port else host


def ip_literal(host: str) -> Address | None:
    """The address a host written as an IP literal names, as the network stack reads it (`127.1`, `0x7f000001`,
    `017700000001` and `0` too), an IPv4-mapped IPv6 address as its IPv4 one; None for a host name."""
    text = host.strip("[]")
    try:
        address: Address = ipaddress.ip_address(text)
    except ValueError:
        if not _NUMERIC.fullmatch(text):
            return None
        try:
            address = ipaddress.IPv4Address(socket.inet_aton(text))
        except OSError:
            return None
    return _plain(address)


def _plain(address: Address) -> Address:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _key(host: str) -> str:
    return host.strip("[]").rstrip(".").lower()


def _found(infos: Iterable[tuple[Any, ...]]) -> tuple[Address, ...]:
    seen: dict[Address, None] = {}
    for info in infos:
        seen[_plain(ipaddress.ip_address(str(info[4][0]).partition("%")[0]))] = None
    return tuple(seen)


def _resolve(host: str) -> tuple[Address, ...]:
    """The addresses a host name resolves to; none when it does not, or not within RESOLVE_SECONDS."""
    future = _LOOKUPS.submit(socket.getaddrinfo, host, None, type=socket.SOCK_STREAM)
    try:
        return _found(future.result(timeout=RESOLVE_SECONDS))
    except (OSError, TimeoutError, UnicodeError, ValueError):
        return ()


class Lookup:
    """Host names' addresses, each looked up once (for one check of a URL, or one batch of attempts)."""

    def __init__(self, found: Mapping[str, tuple[Address, ...]] | None = None) -> None:
        self._found = dict(found or {})
        self._own: dict[str, _Own] = {}

    def addresses(self, host: str) -> tuple[Address, ...]:
        if (literal := ip_literal(host)) is not None:
            return (literal,)
        name = _key(host)
        if name not in self._found:
            self._found[name] = _resolve(name)
        return self._found[name]

    def own(self, asked_on: str) -> _Own:
        if asked_on not in self._own:
            self._own[asked_on] = _Own(self, asked_on)
        return self._own[asked_on]


def own_hosts() -> set[str]:
    """The host names whose addresses are the app's own (or this machine's), besides the one it was asked on."""
    public = urlsplit(settings.AFTERHACK_PUBLIC_URL).hostname or ""
    return {name for name in (socket.gethostname(), "localhost", public) if name}


async def looked_up(hosts: Iterable[str]) -> Lookup:
    """A Lookup holding the addresses of these hosts and of the app's own, looked up together off the event loop
    (each within RESOLVE_SECONDS)."""
    loop = asyncio.get_running_loop()

    async def one(name: str) -> tuple[str, tuple[Address, ...]]:
        try:
            async with asyncio.timeout(RESOLVE_SECONDS):
                return name, _found(await loop.getaddrinfo(name, None, type=socket.SOCK_STREAM))
        except (OSError, TimeoutError, UnicodeError, ValueError):
            return name, ()

    names = {_key(host) for host in {*hosts, *own_hosts()} if ip_literal(host) is None}
    return Lookup(dict(await asyncio.gather(*(one(name) for name in names))))


class _Own:
    """The app's own addresses: (name, port) as written, (address, port) as resolved, and its ports on this
    machine (any loopback or unspecified address, or one its host name resolves to)."""

    def __init__(self, lookup: Lookup, asked_on: str) -> None:
        public = _split(settings.AFTERHACK_PUBLIC_URL)
        named = {("localhost", settings.PORT)}
        if public.hostname:
            named.add(_host_and_port(public))
        if asked_on and (asked := _split(f"{public.scheme or 'http'}://{asked_on}")).hostname:
            named.add(_host_and_port(asked))
        self.names = named
        self.machine = {*lookup.addresses(socket.gethostname()), *lookup.addresses("localhost")}
        self.pairs = {(address, port) for host, port in named for address in lookup.addresses(host)}
        self.ports = {settings.PORT, *(port for address, port in self.pairs if self.on_machine(address))}

    def on_machine(self, address: Address) -> bool:
        return address.is_loopback or address.is_unspecified or address in self.machine

    def holds(self, host: str, port: int, addresses: Iterable[Address]) -> str | None:
        """None when (host, port) is not the app's own; else the address of it that is ("": the name as written)."""
        if (_key(host), port) in self.names:
            return ""
        own = (a for a in addresses if (a, port) in self.pairs or (port in self.ports and self.on_machine(a)))
        return next((str(address) for address in own), None)


def refusal(host: str, port: int, *, lookup: Lookup, asked_on: str = "") -> str:
    """Why a webhook may not be sent to host:port, in words; "" when it may."""
    addresses = lookup.addresses(host)
    shown = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    if (own := lookup.own(asked_on).holds(host, port, addresses)) is not None:
        spelled = f" ({own})" if own and own != _key(host) else ""
        return f"{shown} is this app's own address{spelled}: a webhook is sent to another system."
    allowed = settings.AFTERHACK_WEBHOOK_ALLOWED_HOSTS
    if allowed and not _allowed(host, addresses, allowed):
        return (
            f"Webhooks may not be sent to {host} here: the hosts allowed are {', '.join(allowed)} "
            "(AFTERHACK_WEBHOOK_ALLOWED_HOSTS)."
        )
    return ""


def _allowed(host: str, addresses: tuple[Address, ...], patterns: Iterable[str]) -> bool:
    """Whether a pattern names the host (`hooks.example.com`; `*.example.com`: its subdomains), or the networks
    hold every address it resolves to (and it resolves)."""
    name, networks = _key(host), []
    for pattern in patterns:
        try:
            networks.append(ipaddress.ip_network(pattern, strict=False))
            continue
        except ValueError:
            pass
        if ip_literal(name) is None and (
            name == pattern or (pattern.startswith("*.") and name.endswith(pattern[1:]) and name != pattern[2:])
        ):
            return True
    return bool(addresses) and all(any(a in network for network in networks) for a in addresses)


def pinned(host: str, port: int, lookup: Lookup) -> Address:
    """The address an attempt to host:port connects to: one it resolves to, checked as a URL is when given (never
    the app's own, within the allowed hosts). Raises InvalidWebhookUrl saying why nothing is sent."""
    if words := refusal(host, port, lookup=lookup):
        raise InvalidWebhookUrl(words)
    addresses = lookup.addresses(host)
    if not addresses:
        raise InvalidWebhookUrl(f"Not sent: the address of {host} could not be found.")
    return addresses[0]
