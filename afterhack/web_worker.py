"""gunicorn's threaded worker, handed only whole requests: no client holds a server thread by sending slowly.

gunicorn 27's `gthread` worker gives each new connection to a thread at once. The thread waits up to 5 s for a
first byte (`DEFAULT_WORKER_DATA_TIMEOUT`, not a setting), then reads the head and the body with blocking reads
that have no timeout, and there is no gunicorn setting for one. A client that sends part of its headers, or of its
body, and stops holds that thread for as long as it stays connected: as many such clients as the server has
threads stop the app (issue #23).

`WholeRequestWorker` reads every request, head and body, in the worker's event loop, and gives it to a thread only
once it is whole. A slow client costs a socket and its bytes, never a thread:

- a request that is not whole `CLIENT_TIMEOUT` seconds after its first byte is answered 408 and closed; a new
  connection that sends nothing for gunicorn's `--keep-alive` seconds is closed, like an idle kept-alive one;
- a body larger than the app accepts is answered 413 unread (and, with `Expect: 100-continue`, unsent);
- the bytes of requests still arriving are capped per process (`held_at_most`): past it, 503 with `Retry-After`;
- a thread never waits for a byte: it reads only what the loop received (a request the loop cannot frame is
  handed over as it is, and gunicorn refuses it in words);
- a thread writes with the same timeout, so a client that stops reading its answer frees it too;
- a connection closed after its answer is drained in the loop, not in the loop's own thread for up to 2 s
  (gunicorn's graceful close blocks there).

Answers of its own are JSON in the API's error shape for `/api/…` and `/mcp`, words otherwise. It serves plain
HTTP/1.1 only (TLS ends at the proxy); gunicorn's TLS, HTTP/2, PROXY protocol and uwsgi are refused at start.
"""

from __future__ import annotations

import enum
import errno
import json
import re
import selectors
import socket
import time
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from gunicorn.http.unreader import SocketUnreader
from gunicorn.workers.gthread import STOP_KEEPALIVE_LINGER, TConn, ThreadWorker

# Room around the largest body the app reads (DATA_UPLOAD_MAX_MEMORY_SIZE) for a form's framing and fields: a
# body this much larger is one the app would refuse anyway.
FORM_ROOM = 1024 * 1024
# Bytes of requests still arriving that one process holds at most, in bodies of the largest size.
HELD_BODIES = 8
RECV_BYTES = 64 * 1024
# A chunk-size line longer than this is not one (gunicorn's parser refuses it).
MAX_CHUNK_LINE = 1024
# gunicorn's longest request line.
MAX_REQUEST_LINE = 8192
CHUNK_SIZE = re.compile(rb"[0-9A-Fa-f]{1,16}")
CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"
# How long a connection closed after its answer is drained before it is closed (gunicorn's close_graceful).
LINGER_SECONDS = 2.0
LINGER_BYTES = 64 * 1024
RETRY_AFTER = 5
# Deadlines are checked this often (the loop wakes at least once a second).
SWEEP_SECONDS = 0.1


class Framing(enum.Enum):
    """How far the bytes received so far hold a request."""

    INCOMPLETE = "incomplete"
    WHOLE = "whole"
    TOO_LARGE = "too large"
    # Not a request the loop can frame (conflicting lengths, an unknown coding, no colon in a header line…):
    # gunicorn's parser reads it from what arrived and refuses it in words.
    UNFRAMED = "unframed"


@dataclass
class Arrival:
    """One request arriving on a connection: its bytes so far, and how far they are framed."""

    opened_at: float
    max_head: int
    max_body: int
    data: bytearray = field(default_factory=bytearray)
    first_byte_at: float | None = None
    expects_continue: bool = False
    continued: bool = False
    _searched: int = 0
    _body_at: int | None = None
    _length: int | None = None
    _chunk_at: int | None = None
    _chunked: int = 0

    def feed(self, data: bytes, now: float) -> Framing:
        if self.first_byte_at is None:
            self.first_byte_at = now
        self.data += data
        return self.framing()

    def framing(self) -> Framing:
        if self._body_at is None:
            # Searched from where the last search stopped: a head sent a byte at a time is scanned once.
            end = self.data.find(b"\r\n\r\n", max(self._searched - 3, 0))
            self._searched = len(self.data)
            if end < 0:
                return Framing.UNFRAMED if len(self.data) > self.max_head else Framing.INCOMPLETE
            self._body_at = end + 4
            framed = self._read_head(bytes(self.data[:end]).decode("latin-1"))
            if framed is not Framing.INCOMPLETE:
                return framed
        if self._length is not None:
            return Framing.WHOLE if len(self.data) - self._body_at >= self._length else Framing.INCOMPLETE
        return self._chunks()

    def _read_head(self, head: str) -> Framing:
        """The framing of the body the head announces (INCOMPLETE: a body follows)."""
        lines = head.split("\r\n")
        if lines[0] == "" and len(lines) > 1:
            lines = lines[1:]  # RFC 9112 §2.2: one empty line may come before the request line.
        version = lines[0].rpartition(" ")[2]
        fields: dict[str, list[str]] = {}
        for line in lines[1:]:
            name, colon, value = line.partition(":")
            if not colon:
                return Framing.UNFRAMED
            fields.setdefault(name.strip().lower(), []).append(value.strip(" \t"))
        self.expects_continue = version == "HTTP/1.1" and "100-continue" in map(str.lower, fields.get("expect", []))
        codings = [c.strip(" \t").lower() for value in fields.get("transfer-encoding", []) for c in value.split(",")]
        lengths = set(fields.get("content-length", []))
        if codings:
            if lengths or codings[-1] != "chunked":
                return Framing.UNFRAMED
            self._chunk_at = self._body_at
            return Framing.INCOMPLETE
        if not lengths:
            return Framing.WHOLE
        length = lengths.pop()
        if lengths or not length.isascii() or not length.isdigit():
            return Framing.UNFRAMED
        if int(length) > self.max_body:
            return Framing.TOO_LARGE
        self._length = int(length)
        return Framing.INCOMPLETE

    def _chunks(self) -> Framing:
        """Walks the chunks received since the last walk (RFC 9112 §7.1)."""
        assert self._chunk_at is not None
        while True:
            line_end = self.data.find(b"\r\n", self._chunk_at)
            if line_end < 0:
                return Framing.UNFRAMED if len(self.data) - self._chunk_at > MAX_CHUNK_LINE else Framing.INCOMPLETE
            size = bytes(self.data[self._chunk_at : line_end]).split(b";", 1)[0].strip(b" \t")
            if not CHUNK_SIZE.fullmatch(size):
                return Framing.UNFRAMED
            length = int(size, 16)
            if length == 0:
                # The last chunk, then trailer fields, if any, and an empty line.
                return Framing.WHOLE if self.data.find(b"\r\n\r\n", line_end) >= 0 else Framing.INCOMPLETE
            if self._chunked + length > self.max_body:
                return Framing.TOO_LARGE
            end = line_end + 2 + length + 2
            if len(self.data) < end:
                return Framing.INCOMPLETE
            if self.data[end - 2 : end] != b"\r\n":
                return Framing.UNFRAMED
            self._chunked += length
            self._chunk_at = end

    def deadline(self, *, idle: float, whole: float) -> float:
        """When this request must have arrived: `whole` seconds after its first byte, or `idle` seconds after the
        connection began waiting for it when no byte came."""
        return self.opened_at + idle if self.first_byte_at is None else self.first_byte_at + whole

    @property
    def head_arrived(self) -> bool:
        return self._body_at is not None

    @property
    def target(self) -> str:
        """The request line's target once that line has arrived (the head may not have), else ""."""
        start = 2 if self.data.startswith(b"\r\n") else 0  # RFC 9112 §2.2: an empty line may come first.
        end = self.data.find(b"\r\n", start, start + MAX_REQUEST_LINE)
        parts = bytes(self.data[start:end]).decode("latin-1").split(" ") if end >= 0 else []
        return parts[1] if len(parts) == 3 else ""

    @property
    def speaks_json(self) -> bool:
        path = self.target.split("?", 1)[0]
        return path.startswith("/api/") or path.rstrip("/") == "/mcp"


def refusal(arrival: Arrival, status: str, code: str, detail: str, *extra: tuple[str, str]) -> bytes:
    """An answer of the worker's own, closing the connection: JSON in the API's error shape, or words."""
    if arrival.speaks_json:
        body, kind = json.dumps({"error": code, "detail": detail}).encode(), "application/json"
    else:
        body, kind = (detail + "\n").encode(), "text/plain; charset=utf-8"
    headers = [("Content-Type", kind), ("Content-Length", str(len(body))), ("Connection", "close"), *extra]
    head = f"HTTP/1.1 {status}\r\n" + "".join(f"{name}: {value}\r\n" for name, value in headers) + "\r\n"
    return head.encode("latin-1") + body


def received(sock: socket.socket) -> bytes | None:
    """What a readable socket holds: its bytes, b"" when the client went away, None when nothing came after all."""
    try:
        return sock.recv(RECV_BYTES)
    except (BlockingIOError, InterruptedError):
        return None
    except OSError:
        return b""


class ArrivedOnly(SocketUnreader):
    """gunicorn's reader of a connection, reading only what the event loop received: a thread never waits for a
    client. Asked for more (a request gunicorn frames otherwise than the loop did), it answers that the client
    went away."""

    def chunk(self, size_hint: int | None = None) -> bytes:
        raise ConnectionResetError(errno.ECONNRESET, "The request ended before what it announced arrived.")


class ArrivingConn(TConn):
    """A connection whose requests the event loop reads; a thread gets each one whole in `arrived`."""

    def __init__(self, *args: Any, linger: Any) -> None:
        super().__init__(*args)
        self.arrived = b""
        self._linger = linger

    def init(self) -> None:
        fresh = self.parser is None
        super().init()
        if fresh:
            self.parser.unreader = ArrivedOnly(self.sock)

    def close(self, graceful: bool = False) -> None:
        # gunicorn closes gracefully in its loop's thread, draining the client for up to 2 s: drained in the loop.
        if graceful:
            self._linger(self.sock)
        else:
            super().close()


class WholeRequestWorker(ThreadWorker):
    """gunicorn's gthread worker whose event loop reads each request whole before a thread serves it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.arriving: dict[ArrivingConn, Arrival] = {}
        self.lingering: dict[socket.socket, tuple[float, int]] = {}
        self.held = 0
        cfg = self.cfg
        # gunicorn refuses a head longer than its request line and header fields allow: a head this long is
        # handed to it whole, to be refused in its words.
        self.max_head = (cfg.limit_request_line or 8190) + (cfg.limit_request_fields or 100) * (
            (cfg.limit_request_field_size or 8190) + 2
        )
        # Set from the app's settings once it is loaded (load_wsgi).
        self.client_timeout = 30.0
        self.max_body = self.held_at_most = 0
        self.next_sweep = 0.0

    @classmethod
    def check_config(cls, cfg: Any, log: Any) -> None:
        super().check_config(cfg, log)
        if cfg.is_ssl or "h2" in cfg.http_protocols or cfg.proxy_protocol != "off" or cfg.protocol != "http":
            raise RuntimeError(
                "afterhack.web_worker serves plain HTTP/1.1 only: end TLS and HTTP/2 at the proxy, and turn off "
                "gunicorn's --certfile, --http-protocols h2, --proxy-protocol and --protocol uwsgi."
            )

    def load_wsgi(self) -> None:
        super().load_wsgi()
        # The app is loaded, and with it the settings (an invalid value was refused in words on the way).
        from django.conf import settings

        self.client_timeout = float(settings.CLIENT_TIMEOUT)
        self.max_body = settings.DATA_UPLOAD_MAX_MEMORY_SIZE + FORM_ROOM
        self.held_at_most = HELD_BODIES * self.max_body

    # The event loop's side (gunicorn's main thread).

    def accept(self, listener: socket.socket) -> None:
        try:
            client, address = listener.accept()
        except OSError as error:
            if error.errno not in (errno.EAGAIN, errno.ECONNABORTED, errno.EWOULDBLOCK):
                raise
            return
        self.nr_conns += 1
        self.enqueue_req(ArrivingConn(self.cfg, client, address, listener.getsockname(), linger=self.linger))

    def enqueue_req(self, conn: ArrivingConn) -> None:
        """Where gunicorn gives a connection to a thread (new, readable after keep-alive, or holding the start of
        its next request): its next request is read here first."""
        arrival = Arrival(opened_at=time.monotonic(), max_head=self.max_head, max_body=self.max_body)
        ahead = conn.parser.unreader.take_buffered() if conn.parser is not None else b""
        if ahead:
            framing = arrival.feed(ahead, time.monotonic())
            if framing is not Framing.INCOMPLETE:
                self.settle(conn, arrival, framing)
                return
        try:
            conn.sock.setblocking(False)
            self.poller.register(conn.sock, selectors.EVENT_READ, partial(self.on_arriving, conn))
        except (OSError, ValueError):  # closed meanwhile
            self.nr_conns -= 1
            conn.close()
            return
        self.arriving[conn] = arrival
        self.held += len(arrival.data)

    def on_arriving(self, conn: ArrivingConn, sock: socket.socket) -> None:
        data = received(sock)
        arrival = self.arriving.get(conn)
        if data is None or arrival is None:
            return
        if not data:  # the client went away
            self.stop_waiting(conn)
            self.nr_conns -= 1
            conn.close()
            return
        if self.held + len(data) > self.held_at_most:
            self.stop_waiting(conn)
            detail = "The server is receiving more large requests than it holds at once; send it again shortly."
            retry = ("Retry-After", str(RETRY_AFTER))
            self.answer(conn, refusal(arrival, "503 Service Unavailable", "unavailable", detail, retry))
            return
        framing = arrival.feed(data, time.monotonic())
        self.held += len(data)
        if framing is Framing.INCOMPLETE:
            if arrival.expects_continue and arrival.head_arrived and not arrival.continued:
                arrival.continued = True
                self.send_now(sock, CONTINUE)
            return
        self.stop_waiting(conn)
        self.settle(conn, arrival, framing)

    def stop_waiting(self, conn: ArrivingConn) -> Arrival:
        arrival = self.arriving.pop(conn)
        self.held -= len(arrival.data)
        self.poller.unregister(conn.sock)
        return arrival

    def settle(self, conn: ArrivingConn, arrival: Arrival, framing: Framing) -> None:
        if framing is Framing.TOO_LARGE:
            megabytes = self.max_body // (1024 * 1024)
            detail = f"The request body is larger than this server accepts ({megabytes} MB at most)."
            self.answer(conn, refusal(arrival, "413 Content Too Large", "too_large", detail))
            return
        conn.arrived = bytes(arrival.data)
        super().enqueue_req(conn)

    def answer(self, conn: ArrivingConn, answer: bytes) -> None:
        """Answers from the loop, without a thread, and closes the connection."""
        self.log.info("%s answered by the worker: %s", conn.client, answer.split(b"\r\n", 1)[0].decode())
        self.nr_conns -= 1
        self.send_now(conn.sock, answer)
        self.linger(conn.sock)

    @staticmethod
    def send_now(sock: socket.socket, data: bytes) -> None:
        # A few hundred bytes into an empty send buffer; a client that cannot take them gets less, not a wait.
        try:
            sock.setblocking(False)
            sock.send(data)
        except OSError:
            pass

    def linger(self, sock: socket.socket) -> None:
        """Closes after the answer without cutting it off (RFC 9112 §9.6): the write side first, then what the
        client still sends is read and dropped until it closes too, or for LINGER_SECONDS."""
        try:
            sock.setblocking(False)
            sock.shutdown(socket.SHUT_WR)
            self.poller.register(sock, selectors.EVENT_READ, self.on_lingering)
        except (OSError, ValueError, KeyError):
            sock.close()
            return
        self.lingering[sock] = (time.monotonic() + LINGER_SECONDS, 0)

    def on_lingering(self, sock: socket.socket) -> None:
        data = received(sock)
        if data is None or sock not in self.lingering:
            return
        until, drained = self.lingering[sock]
        if data and drained + len(data) < LINGER_BYTES:
            self.lingering[sock] = (until, drained + len(data))
            return
        self.stop_lingering(sock)

    def stop_lingering(self, sock: socket.socket) -> None:
        del self.lingering[sock]
        self.poller.unregister(sock)
        sock.close()

    def murder_pending(self) -> None:
        """gunicorn's sweep of connections waiting for bytes, run by its loop about once a second and while it
        stops: requests past their deadline are answered 408, idle connections and drained ones closed."""
        super().murder_pending()
        now = time.monotonic()
        if now < self.next_sweep:
            return
        self.next_sweep = now + SWEEP_SECONDS
        idle = self.cfg.keepalive or self.client_timeout
        for conn, arrival in list(self.arriving.items()):
            late = now >= arrival.deadline(idle=idle, whole=self.client_timeout)
            # A stopping worker gives a connection that sent nothing 2 s at most, as gunicorn does kept-alive ones.
            stopping_idle = not self.alive and not arrival.data and now - arrival.opened_at >= STOP_KEEPALIVE_LINGER
            if not (late or stopping_idle):
                continue
            self.stop_waiting(conn)
            if not arrival.data:
                self.nr_conns -= 1
                conn.close()
                continue
            seconds = f"{self.client_timeout:g}"
            detail = (
                f"The request did not arrive in time: its headers and body must arrive within {seconds} seconds "
                "of its first byte. Send it again."
            )
            self.answer(conn, refusal(arrival, "408 Request Timeout", "request_timeout", detail))
        for sock, (until, _) in list(self.lingering.items()):
            if now >= until:
                self.stop_lingering(sock)

    # A thread's side.

    def handle(self, conn: ArrivingConn) -> Any:
        # The request is here whole: no waiting for a first byte (gunicorn's 5 s in the thread).
        conn.data_ready = True
        conn.init()
        conn.parser.unreader.unread(conn.arrived)
        conn.arrived = b""
        return super().handle(conn)

    def handle_request(self, req: Any, conn: ArrivingConn) -> Any:
        # Its body has arrived: gunicorn's "100 Continue" would now only come before the answer.
        req._expected_100_continue = False
        # Each write of the answer must be taken within the timeout: a client that stops reading frees the thread.
        conn.sock.settimeout(self.client_timeout)
        try:
            return super().handle_request(req, conn)
        except TimeoutError as late:
            # Dropped like a client that went away (gunicorn would log a socket error with its traceback).
            self.log.info("%s did not take its answer to %s %s in time: dropped", conn.client, req.method, req.path)
            raise ConnectionResetError(errno.ECONNRESET, "The client did not take its answer in time.") from late
