"""A store that cannot answer is a 503 naming it, for pages as for the API; anything else a logged 500."""

from __future__ import annotations

import contextlib
import io
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.test import Client, override_settings
from django.urls import include, path

from config.wsgi import with_chunked_bodies
from tests.conftest import Trio, api_for, client_for
from tests.waiting import poll


def broken_view(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a bug nobody has found yet")


urlpatterns = [
    path("boom/", broken_view),
    path("api/v1/boom/", broken_view),
    path("", include("config.urls")),
]
handler500 = "afterhack.outages.server_error"


@pytest.mark.django_db
class GraphOutageTests:
    def test_a_page_names_falkordb_when_it_cannot_be_reached(self, trio: Trio, tmp_path: Path) -> None:
        browser = client_for(trio.reviewer)
        # A real browser gets the page Django answers; the test client would re-raise instead.
        browser.raise_request_exception = False
        with override_settings(FALKORDB_URL=f"unix://{tmp_path}/gone.sock"):
            response = browser.get(f"/w/{trio.workspace.id}/claims/", {"q": "launch"})
        assert response.status_code == 503
        assert response["Retry-After"] == "5" and response["Afterhack-Unavailable"] == "falkordb"
        page = response.content.decode()
        assert "FalkorDB (the graph database) is not answering" in page and "gone.sock" not in page

    def test_the_api_names_falkordb_when_it_cannot_be_reached(self, trio: Trio, tmp_path: Path) -> None:
        api = api_for(trio.reviewer)
        with override_settings(FALKORDB_URL=f"unix://{tmp_path}/gone.sock"):
            response = api.get(f"/workspaces/{trio.workspace.id}/claims?q=launch")
        assert response.status_code == 503
        body = response.json()
        assert body["error"] == "unavailable" and body["store"] == "falkordb"
        assert "FalkorDB" in body["detail"] and "sock" not in body["detail"]


@contextlib.contextmanager
def pool_exhausted() -> Iterator[None]:
    """Every pooled PostgreSQL connection of this process taken, and a short wait for one."""
    connection.close()
    pool = connection.pool  # type: ignore[attr-defined]  # the PostgreSQL backend's
    assert pool is not None, "the suite runs with the connection pool, as make run does"
    pool.open()
    taken = [pool.getconn() for _ in range(pool.max_size)]
    timeout, pool.timeout = pool.timeout, 0.2
    try:
        yield
    finally:
        pool.timeout = timeout
        for held in taken:
            pool.putconn(held)


@pytest.mark.django_db(transaction=True)
class PostgresOutageTests:
    def test_the_api_names_postgres_when_no_connection_can_be_had(self, trio: Trio) -> None:
        with pool_exhausted():
            response = Client().get(
                f"/api/v1/workspaces/{trio.workspace.id}/sources", headers={"Authorization": "Bearer x"}
            )
        assert response.status_code == 503
        body = response.json()
        assert body == body | {"error": "unavailable", "store": "postgres"}
        assert "PostgreSQL" in body["detail"] and "gave no connection in time" in body["detail"]

    def test_a_page_names_postgres_when_no_connection_can_be_had(self, trio: Trio) -> None:
        browser = client_for(trio.reviewer)
        browser.raise_request_exception = False
        with pool_exhausted():
            response = browser.get("/w/")
        assert response.status_code == 503
        assert response["Afterhack-Unavailable"] == "postgres"
        assert "PostgreSQL" in response.content.decode()

    def test_healthz_tells_a_full_pool_from_a_dead_server(self) -> None:
        with pool_exhausted():
            response = Client().get("/healthz")
        assert response.status_code == 503
        assert response.json() == {"status": "unavailable", "postgres": "busy", "falkordb": "ok"}


@pytest.mark.django_db
@pytest.mark.urls(__name__)
class UnexpectedErrorTests:
    def test_a_page_error_is_a_500_page_with_its_traceback_in_the_log(self, caplog: pytest.LogCaptureFixture) -> None:
        with caplog.at_level(logging.ERROR, logger="django.request"):
            response = Client(raise_request_exception=False).get("/boom/")
        assert response.status_code == 500
        assert "Something went wrong" in response.content.decode()
        logged = [r for r in caplog.records if r.name == "django.request" and r.exc_info]
        assert logged and logged[0].exc_info and "a bug nobody has found yet" in str(logged[0].exc_info[1])

    def test_an_api_error_is_a_500_in_the_error_format_with_its_traceback_in_the_log(
        self, caplog: pytest.LogCaptureFixture
    ) -> None:
        with caplog.at_level(logging.ERROR):
            response = Client(raise_request_exception=False).get("/api/v1/boom/")
        assert response.status_code == 500
        assert response.json()["error"] == "internal_error"
        assert any(r.exc_info and "a bug nobody has found yet" in str(r.exc_info[1]) for r in caplog.records)


class ChunkedBodyTests:
    def seen_by_django(self, environ: dict[str, Any]) -> dict[str, Any]:
        seen: dict[str, Any] = {}

        def app(env: dict[str, Any], start_response: Any) -> list[bytes]:
            seen.update(
                length=env.get("CONTENT_LENGTH"), body=env["wsgi.input"].read(int(env.get("CONTENT_LENGTH") or 0))
            )
            return []

        with_chunked_bodies(app, limit=10)(environ, lambda *a: None)
        return seen

    def test_it_gives_django_the_decoded_body_with_its_length(self) -> None:
        environ = {
            "HTTP_TRANSFER_ENCODING": "chunked",
            "wsgi.input": io.BytesIO(b'{"a": 1}'),
            "wsgi.input_terminated": True,
        }
        assert self.seen_by_django(environ) == {"length": "8", "body": b'{"a": 1}'}

    def test_it_reads_no_more_than_one_byte_past_the_limit(self) -> None:
        environ = {
            "HTTP_TRANSFER_ENCODING": "chunked",
            "wsgi.input": io.BytesIO(b"x" * 100),
            "wsgi.input_terminated": True,
        }
        assert self.seen_by_django(environ)["length"] == "11"

    def test_it_leaves_a_request_with_a_length_alone(self) -> None:
        environ = {"CONTENT_LENGTH": "3", "wsgi.input": io.BytesIO(b"abc"), "wsgi.input_terminated": True}
        assert self.seen_by_django(environ) == {"length": "3", "body": b"abc"}


def forget_broker_connections(app: Any) -> None:
    """Drops the Celery app's broker connections, so the next publish connects to the broker now configured."""
    app._pool = None
    app.amqp._producer_pool = None


@contextlib.contextmanager
def broker_unreachable(tmp_path: Path) -> Iterator[None]:
    """Celery publishes for real (not eagerly) to a broker that is not there: a socket nobody listens on."""
    from config.celery import app

    keys = ("task_always_eager", "broker_url", "broker_connection_timeout", "task_publish_retry_policy")
    saved = {key: app.conf[key] for key in keys}
    app.conf.update(
        task_always_eager=False,
        broker_url=f"redis+socket://{tmp_path}/no-broker.sock",
        broker_connection_timeout=0.5,
        task_publish_retry_policy={"max_retries": 1, "interval_start": 0, "interval_step": 0.1},
    )
    forget_broker_connections(app)
    try:
        yield
    finally:
        app.conf.update(saved)
        forget_broker_connections(app)


@pytest.mark.django_db(transaction=True)
class BrokerOutageTests:
    def test_asking_the_agent_names_the_task_queue_when_it_cannot_be_reached(self, trio: Trio, tmp_path: Path) -> None:
        with broker_unreachable(tmp_path):
            response = api_for(trio.reviewer).post(
                f"/workspaces/{trio.workspace.id}/ask", {"question": "When is the launch?"}
            )
        assert response.status_code == 503
        body = response.json()
        assert body == body | {"error": "unavailable", "store": "broker"}
        assert "task queue" in body["detail"]


@pytest.mark.django_db(transaction=True)
class PoolTests:
    def test_a_session_lock_left_behind_does_not_pass_to_the_next_request(self) -> None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid(), pg_advisory_lock(4242)")
            backend = cursor.fetchone()[0]
        # The request ends: its connection goes back to the pool (the lock deliberately not released).
        connection.close()
        pool = connection.pool  # type: ignore[attr-defined]  # the PostgreSQL backend's
        assert pool is not None

        def held() -> int:
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = %s AND objid = 4242",
                    [backend],
                )
                count = int(cursor.fetchone()[0])
            connection.close()
            return count

        # The pool resets a returned connection in a worker thread before handing it out again, so the lock
        # is gone a moment later; without the reset the idle connection would keep it for good.
        poll(lambda: held() == 0, seconds=10, every=0.02)
        assert held() == 0
