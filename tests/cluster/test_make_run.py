"""`make run` (the launcher, `manage.py run`) on a FalkorDB cluster, an external PostgreSQL and a broker of its own,
used as a person would (issue #14: "works as it does embedded").

The launcher runs as a subprocess with FALKORDB_URL naming one node of the test cluster, DATABASE_URL a separate
password-protected PostgreSQL (tests/conftest.py's `external_database_url`) and CELERY_BROKER_URL a standalone
redis-server started here. It must come up (migrations, reconcile, the first admin, the demo, a worker and
gunicorn) with /healthz ok and /readyz naming every part; the admin logs in on the page; through the JSON API a
workspace is made, its graph is on its slot's primary, a source's extraction is run by the worker through that
broker, and a correction is previewed and applied. Everything it started is stopped at the end. About 22 s here,
plus about 2 s to start its PostgreSQL and broker (the cluster is the one tests/cluster share).

(Against a cluster without CELERY_BROKER_URL the launcher stops with one sentence: tests/afterhack/
test_startup_refusals.py, "run".)
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from afterhack import embedded
from afterhack.cluster import HOST, LocalCluster, free_ports
from afterhack.embedded import _redis_bin
from tests.afterhack.test_embedded import pids_whose_command, start_app, store_env
from tests.conftest import database_on, free_port

pytestmark = pytest.mark.cluster

ADMIN_PASSWORD = "an admin's password on many hosts"


@pytest.fixture(scope="module")
def broker() -> Iterator[str]:
    """A standalone redis-server (the bundled one, no FalkorDB), as a deployment's Celery broker; its URL."""
    port = free_ports(int(os.environ.get("AFTERHACK_TEST_BROKER_PORT", "17490")), count=1)[0]
    folder = Path(tempfile.mkdtemp(prefix="ah-broker-"))
    server = subprocess.Popen(
        [str(_redis_bin("redis-server")), "--port", str(port), "--bind", HOST, "--dir", str(folder), "--save", "",
         "--appendonly", "no", "--daemonize", "no"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        client = redis.Redis(host=HOST, port=port, socket_connect_timeout=1)
        deadline = time.monotonic() + 20
        while True:
            try:
                client.ping()
                break
            except redis.exceptions.ConnectionError:
                assert time.monotonic() < deadline, "the broker did not start"
                time.sleep(0.05)
        yield f"redis://{HOST}:{port}/0"
    finally:
        server.kill()
        server.wait(timeout=30)
        subprocess.run(["rm", "-rf", str(folder)], check=False)


class Http:
    """A person's browser and an API client in one: cookies kept, JSON in and out, a bearer token once given."""

    def __init__(self, port: int) -> None:
        self.base = f"http://127.0.0.1:{port}"
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))
        self.token = ""

    def call(self, method: str, path: str, body: Any = None, *, form: dict[str, str] | None = None) -> tuple[int, Any]:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        data = None
        if form is not None:
            data = urllib.parse.urlencode(form).encode()
            headers |= {"Content-Type": "application/x-www-form-urlencoded", "Referer": self.base + path}
        elif body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)  # noqa: S310 - http://127.0.0.1 only
        try:
            with self.opener.open(request, timeout=30) as answer:
                status, raw, kind = answer.status, answer.read(), answer.headers.get("Content-Type", "")
        except urllib.error.HTTPError as error:
            status, raw, kind = error.code, error.read(), error.headers.get("Content-Type", "")
        return status, json.loads(raw) if "json" in kind else raw.decode()

    def ok(self, method: str, path: str, body: Any = None, expected: int = 200) -> Any:
        status, answer = self.call(method, path, body)
        assert status == expected, (method, path, status, answer)
        return answer

    def cookie(self, name: str) -> str:
        return next(c.value for c in self.cookies if c.name == name and c.value is not None)


def test_make_run_on_a_cluster_an_external_postgres_and_a_broker_works_as_embedded(
    falkordb_cluster: LocalCluster, external_database_url: str, broker: str, tmp_path: Path
) -> None:
    cluster = falkordb_cluster
    data_dir = tmp_path / "host"
    env = store_env(data_dir) | {
        "FALKORDB_URL": cluster.url,
        "DATABASE_URL": database_on(external_database_url, "on_cluster"),
        "CELERY_BROKER_URL": broker,
        "DJANGO_SECRET_KEY": "k" * 50,
        "DJANGO_SUPERUSER_USERNAME": "admin",
        "DJANGO_SUPERUSER_PASSWORD": ADMIN_PASSWORD,
    }
    for name in ("FALKORDB_CLUSTER_NODES", "AFTERHACK_LLM_MODEL", "AFTERHACK_EMBEDDING_MODEL", "OPENAI_BASE_URL"):
        env.pop(name, None)  # offline: the extractor without a model
    broker_node = redis.Redis.from_url(broker)
    pushed_before = int(broker_node.info("commandstats").get("cmdstat_lpush", {}).get("calls", 0))
    port = free_port()
    app, printed = start_app(env, port)
    try:
        assert "Loaded the demo workspace." in printed, printed
        # Neither store was started here: only their URLs were followed.
        assert not (data_dir / "postgres").exists() and not (data_dir / "falkordb").exists(), printed
        web = Http(port)
        assert web.ok("GET", "/healthz") == {"status": "ok", "postgres": "ok", "falkordb": "ok"}
        ready = web.ok("GET", "/readyz")
        assert ready == {"ready": True, "postgres": "ok", "falkordb": "ok", "migrations": "applied", "static": "ok"}

        # The admin logs in on the page and sees the demo workspace.
        web.ok("GET", "/accounts/login/")
        status, page = web.call(
            "POST", "/accounts/login/",
            form={"username": "admin", "password": ADMIN_PASSWORD, "csrfmiddlewaretoken": web.cookie("csrftoken")},
        )  # fmt: skip
        assert status == 200 and "Demo: product launch" in page, (status, page[:2000])

        # The JSON API: a token, a workspace on the cluster (its graph on its slot's primary, and nowhere else).
        web.token = web.ok("POST", "/api/v1/auth/token", {"username": "admin", "password": ADMIN_PASSWORD})["token"]
        ws = web.ok("POST", "/api/v1/workspaces", {"name": "Launch on many hosts"}, expected=201)["id"]
        graph_name = "ws_" + ws.replace("-", "")
        holder = cluster.primary_of(graph_name)
        for node in cluster.primaries():
            assert (graph_name in cluster.node(node).execute_command("GRAPH.LIST")) == (node == holder)
        api = f"/api/v1/workspaces/{ws}"

        # A source, its extraction run by the worker (queued through the broker, not the cluster).
        text = "Launch plan: the launch is in June. The budget is 40k.\n"
        source = web.ok("POST", f"{api}/sources", {"title": "Launch plan", "text": text}, expected=201)["id"]
        assert web.ok("POST", f"{api}/sources/{source}/extract", expected=202)["status"] == "queued"
        deadline = time.monotonic() + 60
        while (extraction := web.ok("GET", f"{api}/sources/{source}")["extraction"])["status"] != "done":
            assert extraction["status"] in ("queued", "running"), extraction
            assert time.monotonic() < deadline, f"the worker did not run the extraction: {extraction}"
            time.sleep(0.25)
        assert int(broker_node.info("commandstats").get("cmdstat_lpush", {}).get("calls", 0)) > pushed_before
        for node in cluster.primaries():
            assert not cluster.node(node).keys("_kombu*"), "Celery's queues must not be on the cluster"

        # Claims, a decision on one, and its correction previewed then applied.
        june = web.ok("POST", f"{api}/claims", {"source_id": source, "statement": "The launch is in June.",
                                                 "evidence_quote": "the launch is in June"}, expected=201)["id"]  # fmt: skip
        launch = web.ok("POST", f"{api}/decisions", {"title": "Launch in June", "justifications": [[june]]},
                        expected=201)["id"]  # fmt: skip
        preview = web.ok("POST", f"{api}/claims/{june}/correction-preview", {"statement": "The launch is in July."})
        assert preview["affected"]["decisions_needing_review"] == [launch]
        applied = web.ok(
            "POST", f"{api}/claims/{june}/corrections",
            {"statement": preview["statement"], "reason": "The board moved it.", "revision": preview["revision"],
             "idempotency_key": "many-hosts-1"},
            expected=201,
        )  # fmt: skip
        assert applied["status"] == "applied"
        assert web.ok("GET", f"{api}/claims/{june}")["status"] == "superseded"
        assert web.ok("GET", f"{api}/decisions/{launch}")["status"] == "needs_review"
        assert [c["claim_id"] for c in web.ok("GET", f"{api}/corrections")["results"]] == [june]
    finally:
        app.send_signal(signal.SIGTERM)
        out, _ = app.communicate(timeout=90)
        embedded.wipe(data_dir)
    assert app.returncode == 0, out
    assert "Stopped." in out
    # The launcher's children (the worker, whose beat file is in the data dir) went with it.
    assert not pids_whose_command(lambda command: str(data_dir) in command)
