"""A WSGI app for gunicorn's worker alone (test_slow_clients.py, UnreadAnswerTests): it imports nothing of the project
or of the tests, so gunicorn loads it without Django being set up."""

from __future__ import annotations

from collections.abc import Callable, Iterator


def endless_answer(environ: dict[str, object], start_response: Callable[..., object]) -> Iterator[bytes]:
    """/endless answers a megabyte after another, without end; any other path "ok"."""
    if environ["PATH_INFO"] == "/endless":
        start_response("200 OK", [("Content-Length", str(1 << 40))])
        return iter(lambda: b"x" * (1 << 20), b"")
    start_response("200 OK", [("Content-Length", "2")])
    return iter([b"ok"])
