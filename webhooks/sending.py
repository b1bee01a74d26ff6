"""One attempt of each message, sent as Standard Webhooks says: a POST of the message's body with the headers
`webhook-id` (the message's, the same on every attempt), `webhook-timestamp` and `webhook-signature`, signed by the
`standardwebhooks` library with the endpoint's secret. No store is touched here.

An attempt is bounded: it has AFTERHACK_WEBHOOK_TIMEOUT seconds in all (connecting, sending, the answer's headers and
body: a receiver trickling bytes is cut off at the deadline, not at each read's); a redirect is not followed (an
address the admin did not give is never sent to); at most MAX_ANSWER_BYTES of the answer are read, then dropped. Any
2xx is a success. The attempts of one batch go out together, so a slow receiver holds no other one.

Before each attempt its host is checked again as when the URL was given (webhooks.addresses: never the app's own
address, within the allowed hosts), by the addresses it resolves to now, looked up once a batch; the attempt connects
to the address checked (the Host header and TLS name still the host's), so a name that resolves elsewhere since is
not sent to: the attempt fails, saying why, and is retried.
"""

from __future__ import annotations

import asyncio
import functools
import ssl
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from math import floor

import httpx
from standardwebhooks import Webhook

from webhooks import addresses

# How much of an answer is read (the rest is dropped with the connection), and how much of it an error quotes.
MAX_ANSWER_BYTES = 64 * 1024
QUOTED_CHARS = 200
# Attempts of one batch in flight at once.
CONCURRENCY = 32
USER_AGENT = "Afterhack-Webhooks/1"


@functools.cache
def _tls() -> ssl.SSLContext:
    """The certificates an https receiver is checked against, loaded once per process (loading them is most of a
    small batch's time)."""
    return ssl.create_default_context()


@dataclass(frozen=True)
class Outgoing:
    """What one attempt sends: the message's id and body, where, signed with which secret."""

    message_id: str
    url: str
    secret: str
    body: str


@dataclass(frozen=True)
class Outcome:
    """What came of an attempt: the status answered (None: no answer), the error in words, how long it took."""

    status_code: int | None
    error: str
    duration_ms: int

    @property
    def succeeded(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


def signed_headers(outgoing: Outgoing, *, at: datetime) -> dict[str, str]:
    """The Standard Webhooks headers of an attempt made at `at` (UTC), with the JSON content type."""
    return {
        "content-type": "application/json",
        "user-agent": USER_AGENT,
        "webhook-id": outgoing.message_id,
        "webhook-timestamp": str(floor(at.timestamp())),
        "webhook-signature": Webhook(outgoing.secret).sign(outgoing.message_id, at, outgoing.body),
    }


def send_all(outgoing: list[Outgoing], *, deadline: float) -> list[Outcome]:
    """Sends one attempt of each, together, each within `deadline` seconds; the outcomes in the same order."""
    if not outgoing:
        return []
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_send_all(outgoing, deadline=deadline))
    # Called where an event loop runs already (an async caller, a browser test's driver): in a thread of its own.
    with ThreadPoolExecutor(max_workers=1) as thread:
        return thread.submit(asyncio.run, _send_all(outgoing, deadline=deadline)).result()


async def _send_all(outgoing: list[Outgoing], *, deadline: float) -> list[Outcome]:
    room = asyncio.Semaphore(CONCURRENCY)
    limits = httpx.Limits(max_connections=CONCURRENCY, max_keepalive_connections=0)
    # Not through a proxy of the environment: the URL the admin gave is the one sent to.
    async with httpx.AsyncClient(
        follow_redirects=False, timeout=httpx.Timeout(deadline), limits=limits, trust_env=False, verify=_tls()
    ) as client:
        lookup = await addresses.looked_up(_host(item.url) for item in outgoing)

        async def one(item: Outgoing) -> Outcome:
            async with room:
                return await _post(client, item, deadline=deadline, lookup=lookup)

        return list(await asyncio.gather(*(one(item) for item in outgoing)))


def _host(url: str) -> str:
    try:
        return httpx.URL(url).host
    except httpx.InvalidURL:
        return ""


def _pinned(url: str, lookup: addresses.Lookup) -> tuple[httpx.URL, dict[str, str], dict[str, str]]:
    """The URL to connect to (its host the address checked), the Host header and the TLS name; raises
    InvalidWebhookUrl when the host may not be sent to now."""
    try:
        target = httpx.URL(url)
    except httpx.InvalidURL:
        raise addresses.InvalidWebhookUrl("Not sent: this URL is not well formed; give the receiver's again.") from None
    host = target.host.rstrip(".")
    port = target.port or addresses.DEFAULT_PORTS.get(target.scheme, 80)
    address = addresses.pinned(host, port, lookup)
    tls = {"sni_hostname": host} if target.scheme == "https" else {}
    return target.copy_with(host=str(address)), {"host": target.netloc.decode("ascii")}, tls


async def _post(client: httpx.AsyncClient, outgoing: Outgoing, *, deadline: float, lookup: addresses.Lookup) -> Outcome:
    started = time.monotonic()
    status: int | None = None
    answer = b""
    error = location = ""
    try:
        target, host, tls = _pinned(outgoing.url, lookup)
    except addresses.InvalidWebhookUrl as refused:
        return Outcome(None, str(refused), 0)
    try:
        async with asyncio.timeout(deadline):
            headers = signed_headers(outgoing, at=datetime.now(UTC)) | host
            body = outgoing.body.encode()
            async with client.stream("POST", target, content=body, headers=headers, extensions=tls) as response:
                status = response.status_code
                location = response.headers.get("location", "")
                answer = await _start_of(response)
    except TimeoutError:
        error = _late(status, deadline)
    except httpx.TimeoutException:
        error = _late(status, deadline)
    except httpx.ConnectError as exc:
        error = f"Could not connect to the receiver: {_quoted(str(exc)) or 'the connection was refused'}."
    except (httpx.HTTPError, httpx.InvalidURL, OSError) as exc:
        error = f"The attempt failed: {_quoted(str(exc)) or type(exc).__name__}."
    duration_ms = round((time.monotonic() - started) * 1000)
    if status is not None and not error:
        error = _answer_error(status, location, answer)
    return Outcome(status, error, duration_ms)


async def _start_of(response: httpx.Response) -> bytes:
    """At most MAX_ANSWER_BYTES of the answer's body; the rest is never read."""
    kept = bytearray()
    async for chunk in response.aiter_raw():
        kept += chunk[: MAX_ANSWER_BYTES - len(kept)]
        if len(kept) >= MAX_ANSWER_BYTES:
            break
    return bytes(kept)


def _late(status: int | None, deadline: float) -> str:
    seconds = f"{deadline:g} second{'s' * (deadline != 1)}"
    if status is None:
        return f"No answer within {seconds}."
    if 200 <= status < 300:
        return ""
    return f"The receiver answered {status}, and its answer was still arriving after {seconds}."


def _answer_error(status: int, location: str, answer: bytes) -> str:
    if 200 <= status < 300:
        return ""
    if 300 <= status < 400:
        where = f" to {_quoted(location)}" if location else ""
        return f"The receiver answered {status}, a redirect{where}: redirects are not followed; give the final address."
    said = _quoted(answer.decode("utf-8", errors="replace"))
    return f"The receiver answered {status}." + (f" It said: “{said}”" if said else "")


def _quoted(text: str) -> str:
    """A short, single-line excerpt of what a receiver or the network said."""
    flat = " ".join(text.split())
    return flat if len(flat) <= QUOTED_CHARS else flat[: QUOTED_CHARS - 1] + "…"
