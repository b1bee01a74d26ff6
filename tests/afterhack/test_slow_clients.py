"""No client holds a server thread for long (issue #23).

`manage.py run` as a team meets it (gunicorn, 2 web workers of 2 threads, fresh embedded stores) beside more slow and
streaming clients than it has threads: held `GET /mcp` with a valid token, bodies (plain, chunked, to the API and
to /mcp) sent partly and stalled with a valid token, headers trickled a byte at a time, connections that send
nothing, answers never let go of. `/healthz` and an authenticated API call still answer within a second, and each
slow client gets its answer: 405 for the event stream, 408 for what did not arrive in time.

And the worker's framing of what arrived (`afterhack.web_worker.Arrival`), on bytes alone.
"""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from afterhack.serving import Sizing, gunicorn_command
from afterhack.web_worker import Arrival, Framing
from benchmarks.loadtest import wait_healthy
from tests.afterhack.test_embedded import ROOT, free_port
from tests.afterhack.test_serving import Served, serving

TIMEOUT = 4  # AFTERHACK_CLIENT_TIMEOUT of the server under test
TRICKLE = 0.5  # seconds between two bytes of a trickled head


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    sizing = {"AFTERHACK_WEB_WORKERS": "2", "AFTERHACK_WEB_THREADS": "2"}
    with serving(tmp_path_factory.mktemp("slow") / "data", AFTERHACK_CLIENT_TIMEOUT=str(TIMEOUT), **sizing) as served:
        yield served


@dataclass
class Answer:
    """An HTTP answer as read from a socket: b"" when the server closed the connection without one."""

    raw: bytes

    @property
    def status(self) -> int | None:
        return int(self.raw.split(b" ", 2)[1]) if self.raw else None

    @property
    def headers(self) -> dict[str, str]:
        lines = self.raw.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")[1:]
        return {name.strip().lower(): value.strip() for name, value in (line.split(":", 1) for line in lines)}

    @property
    def body(self) -> bytes:
        return self.raw.split(b"\r\n\r\n", 1)[1]


def first_answer(sock: socket.socket) -> Answer:
    """The first answer on the connection, whole (its Content-Length), or what came before the server closed it."""
    raw = b""
    while not whole(raw):
        try:
            data = sock.recv(65536)
        except OSError:
            break
        if not data:
            break
        raw += data
    return Answer(raw)


def whole(answer: bytes) -> bool:
    head, blank, body = answer.partition(b"\r\n\r\n")
    if not blank:
        return False
    lengths = [line.split(b":", 1)[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")]
    return bool(lengths) and len(body) >= int(lengths[0])


@dataclass
class SlowClient:
    """A connection that sends `sent` at once, then `trickled` a byte every TRICKLE seconds, and reads one answer."""

    kind: str
    sent: bytes
    trickled: bytes = b""
    sock: socket.socket = field(init=False)
    opened: float = 0.0
    answer: Answer = field(default_factory=lambda: Answer(b""))
    answered_after: float = 0.0

    def open(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT + 10)
        self.opened = time.monotonic()
        self.sock.sendall(self.sent)

    def trickle(self) -> None:
        for byte in self.trickled:
            time.sleep(TRICKLE)  # the behaviour under test: a client that sends a byte at a time, slowly
            try:
                self.sock.sendall(bytes([byte]))
            except OSError:  # answered and closed: it stops
                return

    def read_answer(self) -> None:
        self.answer = first_answer(self.sock)
        self.answered_after = time.monotonic() - self.opened


def crowd(token: str, *, each: int) -> list[SlowClient]:
    """`each` slow clients of every kind."""
    auth = f"Host: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n".encode()
    json_post = b"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
    kinds: dict[str, Callable[[], SlowClient]] = {
        # The event stream the SDK held open for handshake-protocol clients, pinged every 15 s.
        "held GET /mcp": lambda: SlowClient(
            "held GET /mcp",
            b"GET /mcp HTTP/1.1\r\n" + auth + b"Accept: text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\n\r\n",
        ),
        "stalled API body": lambda: SlowClient(
            "stalled API body",
            b"POST /api/v1/workspaces HTTP/1.1\r\n" + auth + json_post + b'Content-Length: 200\r\n\r\n{"name": "Sl',
        ),
        "stalled MCP body": lambda: SlowClient(
            "stalled MCP body", b"POST /mcp HTTP/1.1\r\n" + auth + json_post + b'Content-Length: 200\r\n\r\n{"jsonr'
        ),
        "stalled chunked body": lambda: SlowClient(
            "stalled chunked body",
            b"POST /api/v1/workspaces HTTP/1.1\r\n"
            + auth
            + json_post
            + b'Transfer-Encoding: chunked\r\n\r\n4\r\n{"na\r\n',
        ),
        "stalled head": lambda: SlowClient("stalled head", b"GET /api/v1/workspaces HTTP/1.1\r\n" + auth + b"X-Ha"),
        # A byte every half second, until past the deadline.
        "trickled head": lambda: SlowClient(
            "trickled head", b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n", trickled=b"X-Trickled: aaaa"
        ),
        "silent": lambda: SlowClient("silent", b""),
        # Takes its answer and never closes its end: gunicorn's own close waited for it, 2 s in the worker's loop.
        "answer never let go": lambda: SlowClient(
            "answer never let go", b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        ),
    }
    return [make() for make in kinds.values() for _ in range(each)]


def timed(url: str, token: str = "") -> tuple[float, int | str]:
    """How long the request took, and its status (or why it failed), given a second at most."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    started = time.monotonic()
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=1) as answer:  # noqa: S310
            answer.read()
            status: int | str = answer.status
    except (urllib.error.URLError, OSError) as error:
        status = repr(error)
    return time.monotonic() - started, status


@pytest.mark.subprocess
@pytest.mark.load
class SlowClientTests:
    def test_more_slow_clients_than_threads_leave_health_and_the_api_answering_within_a_second(
        self, served: Served
    ) -> None:
        # 2 workers of 2 threads: 4 threads, 8 kinds of slow client, 3 of each.
        clients = crowd(served.target.token, each=3)
        for client in clients:
            client.open(served.port)
        trickling = [threading.Thread(target=c.trickle, daemon=True) for c in clients if c.trickled]
        for thread in trickling:
            thread.start()
        # The scenario, not a wait for something: the probes below come while the slow clients are half-way through
        # sending (a trickled byte every TRICKLE seconds), spread over a second.
        time.sleep(0.5)
        checks = []
        for _ in range(5):
            checks.append(("/healthz", *timed(f"{served.base_url}/healthz")))
            checks.append(("/api/v1/workspaces", *timed(f"{served.base_url}/api/v1/workspaces", served.target.token)))
            time.sleep(0.2)
        # While every slow client still waits for its answer (none is due before TIMEOUT seconds):
        assert {status for _, _, status in checks} == {200}, checks
        assert max(seconds for _, seconds, _ in checks) < 1.0, checks

        readers = [threading.Thread(target=c.read_answer) for c in clients]
        for thread in readers:
            thread.start()
        for thread in readers:
            thread.join(timeout=TIMEOUT + 15)
        answers = {(c.kind, c.answer.status) for c in clients}
        assert answers == {
            ("held GET /mcp", 405),
            ("stalled API body", 408),
            ("stalled MCP body", 408),
            ("stalled chunked body", 408),
            ("stalled head", 408),
            ("trickled head", 408),
            ("silent", None),  # closed without a word: it asked nothing
            ("answer never let go", 200),
        }, [(c.kind, c.answer.raw[:80]) for c in clients]
        for client in clients:
            client.sock.close()
            answer = client.answer
            if answer.status == 405:
                assert answer.headers["allow"] == "POST" and json.loads(answer.body)["error"] == "method_not_allowed"
            if answer.status == 408:
                # Not before its time, and within a second or so of it.
                assert TIMEOUT - 0.1 <= client.answered_after <= TIMEOUT + 2, (client.kind, client.answered_after)
                assert answer.headers["connection"] == "close"
        timed_out = [c for c in clients if c.answer.status == 408]
        # JSON in the API's error shape for the API and /mcp; words for a page.
        api = {
            c.kind: json.loads(c.answer.body)
            for c in timed_out
            if c.answer.headers["content-type"] == "application/json"
        }
        assert set(api) == {"stalled API body", "stalled MCP body", "stalled chunked body", "stalled head"}
        assert all(
            body["error"] == "request_timeout" and f"{TIMEOUT} seconds" in body["detail"] for body in api.values()
        )
        words = [c.answer.body.decode() for c in timed_out if c.kind == "trickled head"]
        assert words and all(w.startswith("The request did not arrive in time") for w in words)
        assert timed(f"{served.base_url}/healthz")[1] == 200
        # Nothing of it is an error of the server's.
        log = (served.data_dir / "logs" / "web.log").read_text()
        assert "Traceback" not in log and "Socket error" not in log, log[-3000:]

    def test_a_body_larger_than_the_app_accepts_is_refused_unsent(self, served: Served) -> None:
        with socket.create_connection(("127.0.0.1", served.port), timeout=10) as raw:
            raw.sendall(
                b"POST /api/v1/workspaces HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b"Expect: 100-continue\r\nContent-Length: 999999999\r\n\r\n"
            )
            answer = first_answer(raw)
        assert answer.status == 413, answer.raw
        assert json.loads(answer.body)["error"] == "too_large"

    def test_a_body_announced_with_expect_continue_is_asked_for_then_served(self, served: Served) -> None:
        body = json.dumps({"username": "lead", "password": "a wrong one"}).encode()
        with socket.create_connection(("127.0.0.1", served.port), timeout=30) as raw:
            raw.sendall(
                b"POST /api/v1/auth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b"Expect: 100-continue\r\nContent-Length: %d\r\n\r\n" % len(body)
            )
            assert raw.recv(100) == b"HTTP/1.1 100 Continue\r\n\r\n"
            raw.sendall(body)
            answer = first_answer(raw)
        assert answer.status == 401 and b"100 Continue" not in answer.raw


@pytest.mark.subprocess
class UnreadAnswerTests:
    def test_a_client_that_stops_reading_its_answer_frees_the_thread(self, tmp_path: Path) -> None:
        port = free_port()
        env = os.environ | {
            "AFTERHACK_STORES": "none",
            "AFTERHACK_DATA_DIR": str(tmp_path),
            "AFTERHACK_CLIENT_TIMEOUT": "2",
        }
        command = gunicorn_command(
            port=port, sizing=Sizing(web_workers=1, web_threads=1, worker_concurrency=1, worker_pool=1)
        )
        command[command.index("config.wsgi:application")] = "tests.afterhack.endless_app:endless_answer"
        server = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        try:
            assert wait_healthy(f"http://127.0.0.1:{port}", seconds=30)
            with socket.create_connection(("127.0.0.1", port)) as reader:
                reader.sendall(b"GET /endless HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")  # and never reads
                # Its answer has begun (seen without taking it): the one thread is now busy writing to the reader.
                assert select.select([reader], [], [], 30)[0], "the endless answer never began"
                # The one thread writes to the reader that takes nothing, until the timeout frees it.
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/ok", timeout=10) as answer:
                    assert answer.read() == b"ok"
        finally:
            server.terminate()
            output, _ = server.communicate(timeout=30)
        assert "did not take its answer to GET /endless in time: dropped" in output, output
        assert "Traceback" not in output, output


def arrival(*parts: bytes, max_body: int = 1000) -> tuple[Arrival, list[Framing]]:
    received = Arrival(opened_at=0.0, max_head=8192, max_body=max_body)
    return received, [received.feed(part, 1.0) for part in parts]


class FramingTests:
    def test_a_head_is_whole_at_its_blank_line_even_sent_a_byte_at_a_time(self) -> None:
        head = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
        _, framings = arrival(*(bytes([b]) for b in head))
        assert framings == [Framing.INCOMPLETE] * (len(head) - 1) + [Framing.WHOLE]

    def test_a_body_is_whole_at_its_content_length(self) -> None:
        received, framings = arrival(b"POST /api/v1/x HTTP/1.1\r\nContent-Length: 5\r\n\r\nab", b"cd", b"e")
        assert framings == [Framing.INCOMPLETE, Framing.INCOMPLETE, Framing.WHOLE]
        assert received.speaks_json and not received.expects_continue

    def test_it_knows_the_target_as_soon_as_the_request_line_arrived(self) -> None:
        received, framings = arrival(b"\r\nGET /api/v1/workspaces?limit=2 HTTP/1.1\r\nAuthoriz")
        assert framings == [Framing.INCOMPLETE] and received.target == "/api/v1/workspaces?limit=2"
        assert received.speaks_json and not arrival(b"GET /api/v1/works")[0].speaks_json
        assert (
            not arrival(b"GET /w/ HTTP/1.1\r\n")[0].speaks_json and arrival(b"POST /mcp/ HTTP/1.1\r\n")[0].speaks_json
        )

    def test_a_chunked_body_is_whole_after_its_last_chunk_and_trailers(self) -> None:
        head = b"POST /mcp HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"
        parts = (head + b"3\r\nab", b"c\r\n2;ext=1\r\nde\r\n0\r\n", b"X-Trailer: 1\r\n", b"\r\n")
        received, framings = arrival(*parts)
        assert framings == [Framing.INCOMPLETE] * 3 + [Framing.WHOLE] and received.speaks_json
        assert arrival(head + b"0\r\n\r\n")[1] == [Framing.WHOLE]

    def test_a_body_over_the_limit_is_too_large_before_it_is_sent(self) -> None:
        received, framings = arrival(b"POST / HTTP/1.1\r\nExpect: 100-Continue\r\nContent-Length: 1001\r\n\r\n")
        assert framings == [Framing.TOO_LARGE] and received.expects_continue and not received.speaks_json
        chunks = b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n" + b"200\r\n" + b"a" * 512 + b"\r\n"
        assert arrival(chunks + b"200\r\n")[1] == [Framing.TOO_LARGE]
        assert arrival(chunks + b"1e8\r\n")[1] == [Framing.INCOMPLETE]  # 488 more: 1000 in all

    @pytest.mark.parametrize(
        "request_bytes",
        [
            b"POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
            b"POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
            b"POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n",
            b"POST / HTTP/1.1\r\nContent-Length: -5\r\n\r\n",
            b"GET / HTTP/1.1\r\nNo colon here\r\n\r\n",
            b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0x5\r\nabcde\r\n",
            b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcde\r\n",
            b"GET / HTTP/1.1\r\nX-Long: " + b"a" * 9000,
        ],
    )
    def test_what_it_cannot_frame_goes_to_gunicorn_to_be_refused_in_words(self, request_bytes: bytes) -> None:
        assert arrival(request_bytes)[1] == [Framing.UNFRAMED]
