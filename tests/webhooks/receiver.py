"""A real webhook receiver for the tests: a local threading HTTP server that answers each request as scripted (ok,
fail, slow, redirect loop, a 10 MB answer) and keeps what it received."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

HUGE = 10 * 1024 * 1024


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


class Receiver:
    """Answers requests in the order scripted (then `then`, "ok" by default)."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        self.script: list[str] = []
        self.then = "ok"
        self.closing = threading.Event()
        self.huge_sent = 0
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                receiver.received.append(Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                behaviour = receiver.script.pop(0) if receiver.script else receiver.then
                getattr(receiver, f"_{behaviour}")(self)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hooks"

    def close(self) -> None:
        self.closing.set()
        self.server.shutdown()
        self.server.server_close()

    @staticmethod
    def _answer(handler: BaseHTTPRequestHandler, status: int, body: bytes = b"", **headers: str) -> None:
        handler.send_response(status)
        for name, value in {"content-length": str(len(body)), **headers}.items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(body)

    def _ok(self, handler: BaseHTTPRequestHandler) -> None:
        self._answer(handler, 200, b"thanks")

    def _fail(self, handler: BaseHTTPRequestHandler) -> None:
        self._answer(handler, 500, b"receiver is down")

    def _redirect(self, handler: BaseHTTPRequestHandler) -> None:
        # A loop: back to itself, which would redirect again.
        self._answer(handler, 302, location=self.url)

    def _slow(self, handler: BaseHTTPRequestHandler) -> None:
        """Trickles its status line a byte at a time, for as long as the test lasts."""
        for byte in b"HTTP/1.1 200 OK\r\n" * 1000:
            if self.closing.wait(0.2):
                return
            try:
                handler.wfile.write(bytes([byte]))
                handler.wfile.flush()
            except OSError:
                return

    def _huge(self, handler: BaseHTTPRequestHandler, status: int = 500) -> None:
        """A 10 MB answer, written until the client stops reading."""
        handler.send_response(status)
        handler.send_header("content-length", str(HUGE))
        handler.end_headers()
        chunk = b"x" * 65536
        try:
            for _ in range(HUGE // len(chunk)):
                handler.wfile.write(chunk)
                self.huge_sent += len(chunk)
        except OSError:
            return

    def _huge_ok(self, handler: BaseHTTPRequestHandler) -> None:
        self._huge(handler, status=200)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver()
    yield server
    server.close()


def closed_port_url() -> str:
    """A loopback URL nothing listens on."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/hooks"
