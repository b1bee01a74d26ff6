"""`manage.py run` as a team meets it: gunicorn under 32 concurrent clients, stores killed under load, chunked bodies.

One app is started for the module (fresh embedded stores in a temp data dir) and driven over
real HTTP. Assertions are on errors and lost writes, never on timings.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest

from afterhack import embedded
from afterhack.serving import Sizing
from benchmarks.loadtest import LoadReport, Target, run_load, unreadable, wait_healthy
from tests.afterhack.test_embedded import ROOT, free_port, pids_whose_command, server_pids, start_app, store_env
from tests.waiting import poll, wait_until

# Each test serves through `manage.py run` (gunicorn), some under 32 concurrent clients.
pytestmark = [pytest.mark.subprocess, pytest.mark.load]

PASSWORD = "a team can lean on it"


@dataclass
class Served:
    app: subprocess.Popen[str]
    port: int
    data_dir: Path
    target: Target

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def api_json(url: str, *, token: str = "", body: dict[str, str] | None = None) -> dict:
    headers = {"Content-Type": "application/json"} | ({"Authorization": f"Bearer {token}"} if token else {})
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, headers=headers)  # noqa: S310 - loopback URLs of the test
    with urllib.request.urlopen(request, timeout=30) as answer:  # noqa: S310
        return json.load(answer)


@contextmanager
def serving(data_dir: Path, **env: str) -> Iterator[Served]:
    """`manage.py run` on fresh embedded stores in `data_dir`, with `env` besides, and the first user's API token;
    stopped gracefully and wiped after."""
    env = store_env(data_dir) | {"DJANGO_SUPERUSER_USERNAME": "lead", "DJANGO_SUPERUSER_PASSWORD": PASSWORD} | env
    port = free_port()
    app, _ = start_app(env, port)
    try:
        base = f"http://127.0.0.1:{port}"
        token = api_json(f"{base}/api/v1/auth/token", body={"username": "lead", "password": PASSWORD})["token"]
        listing = api_json(f"{base}/api/v1/workspaces", token=token)
        workspaces = listing["results"] if isinstance(listing, dict) else listing
        yield Served(app, port, data_dir, Target(base, token, workspaces[0]["id"]))
    finally:
        app.send_signal(signal.SIGTERM)
        output, _ = app.communicate(timeout=90)
        assert app.returncode == 0, output
        assert server_pids(data_dir) == [], output
        embedded.wipe(data_dir)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    # Small log files, so that the load makes them rotate.
    logs = {"AFTERHACK_LOG_MAX_MB": "0.05", "AFTERHACK_LOG_LEVEL": "WARNING"}
    with serving(tmp_path_factory.mktemp("served") / "data", **logs) as served:
        yield served


def store_pid(data_dir: Path, store: str) -> int:
    pidfile = data_dir / "postgres" / "postmaster.pid" if store == "postgres" else data_dir / "falkordb" / "redis.pid"
    return int(pidfile.read_text().split("\n", 1)[0])


def wait_restarted(data_dir: Path, store: str, killed: int, *, seconds: float) -> bool:
    """Whether a server other than the killed one is running on the store's data within `seconds`."""

    def restarted() -> bool:
        try:
            pid = store_pid(data_dir, store)
        except (OSError, ValueError):
            return False
        if pid == killed:
            return False
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        return True

    return poll(restarted, seconds=seconds, every=0.2) is not None


class ServingTests:
    def test_it_serves_through_gunicorn(self, served: Served) -> None:
        with urllib.request.urlopen(f"http://127.0.0.1:{served.port}/healthz", timeout=10) as answer:
            assert answer.status == 200
            assert answer.headers["Server"].startswith("gunicorn")

    def test_an_mcp_session_holds_across_gunicorns_workers(self, served: Served) -> None:
        from tests.mcp_server.conftest import http_agent

        # Each call is a new connection, so the calls of the one session land on whichever worker accepts it.
        agent = http_agent(f"{served.base_url}/mcp", served.target.token)
        ws = served.target.workspace_id
        found = agent.call("search_claims", workspace_id=ws, query="When is the product launch?")["results"]
        claim_id = found[0]["claim_id"]
        assert agent.call("get_fragment", workspace_id=ws, claim_id=claim_id)["claim_id"] == claim_id
        decided = agent.call("record_decision", workspace_id=ws, title="Launch date", justifications=[[claim_id]])
        assert (decided["status"], decided["kept"], decided["dropped"]) == ("supported", [[claim_id]], [])
        assert len({answer["session"] for answer in agent.seen}) == 1

    def test_it_serves_32_clients_with_no_error_and_no_lost_write(self, served: Served) -> None:
        report = run_load(served.target, clients=32, seconds=20)
        assert report.requests > 32, report.summary()
        assert report.server_errors == 0, (report.summary(), report.unavailable_bodies[:3])
        assert report.connection_errors == 0, report.summary()
        assert report.created, "no source was created under load"
        assert unreadable(served.target, report.created) == []
        # Connections went back to the pools: PostgreSQL holds no more than make run's budget.
        assert 0 < postgres_backends(served.data_dir) <= Sizing.from_env().connections

    @pytest.mark.parametrize("store", ["falkordb", "postgres"])
    def test_a_store_killed_under_load_comes_back_by_itself(self, served: Served, store: str) -> None:
        reports: list[LoadReport] = []
        load = threading.Thread(target=lambda: reports.append(run_load(served.target, clients=32, seconds=20)))
        load.start()
        # The scenario, not a wait for something: the store dies 6 s into the 20 s of load, with requests in flight.
        time.sleep(6)
        killed = store_pid(served.data_dir, store)
        os.kill(killed, signal.SIGKILL)
        # Back without anyone restarting `make run`: the launcher starts the server on the same data.
        # (Health alone could still answer from before: pooled connections outlive a killed postmaster
        # for a moment, so wait for the new server first.)
        assert wait_restarted(served.data_dir, store, killed, seconds=60)
        assert wait_healthy(served.base_url, seconds=60)
        load.join(timeout=240)
        report = reports[0]
        assert report.connection_errors == 0, report.summary()
        # While the store was down, requests that needed it were answered 503 naming it; nothing else failed.
        assert report.server_errors == report.outcomes["503"], report.summary()
        assert all(b == b | {"error": "unavailable", "store": store} for b in report.unavailable_bodies)
        assert report.created, "no source was created under load"
        assert unreadable(served.target, report.created) == []

    def test_a_web_server_that_dies_is_started_again(self, served: Served) -> None:
        masters = [pid for pid in gunicorn_pids(served.port) if parent_of(pid) == served.app.pid]
        assert len(masters) == 1
        os.kill(masters[0], signal.SIGKILL)
        # Health alone could still answer from the dead master's workers for a moment: wait for the new master first.
        wait_until(
            lambda: [pid for pid in gunicorn_pids(served.port) if parent_of(pid) == served.app.pid and pid not in masters],
            seconds=60, what="the launcher to start a new gunicorn master",
        )  # fmt: skip
        assert wait_healthy(served.base_url, seconds=60)
        new_masters = [pid for pid in gunicorn_pids(served.port) if parent_of(pid) == served.app.pid]
        assert len(new_masters) == 1 and new_masters != masters
        # The dead master's workers went with it: every gunicorn process left belongs to the new one.
        assert all(pid in new_masters or parent_of(pid) in new_masters for pid in gunicorn_pids(served.port))

    def test_a_chunked_body_is_read_and_the_connection_stays_usable(self, served: Served) -> None:
        body = json.dumps({"username": "lead", "password": PASSWORD}).encode()
        chunks = b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in (body[:10], body[10:])) + b"0\r\n\r\n"
        with socket.create_connection(("127.0.0.1", served.port), timeout=30) as raw:
            raw.sendall(
                b"POST /api/v1/auth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b"Transfer-Encoding: chunked\r\n\r\n" + chunks
            )
            raw.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            answers = read_responses(raw, 2)
        assert answers[0][0] == 200 and "token" in json.loads(answers[0][1])
        assert answers[1][0] == 200 and json.loads(answers[1][1])["status"] == "ok"

    def test_its_logs_rotate(self, served: Served) -> None:
        logs = served.data_dir / "logs"
        # Enough requests to fill the 50 KB access log at least once, whatever ran before.
        with socket.create_connection(("127.0.0.1", served.port), timeout=30) as raw:
            for _ in range(200):
                if (logs / "access.log.1").exists():
                    break
                raw.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" * 10)
                read_responses(raw, 10)
        assert (logs / "access.log.1").exists()
        assert (logs / "access.log").stat().st_size <= 0.05 * 1024 * 1024 + 4096


def postgres_backends(data_dir: Path) -> int:
    """Client connections the served data dir's PostgreSQL holds now."""
    socket_dir = (data_dir / "postgres" / "postmaster.pid").read_text().split("\n")[4]
    with psycopg.connect(host=socket_dir, dbname="afterhack", user="postgres") as probe:
        row = probe.execute("SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'").fetchone()
    assert row is not None
    return int(row[0]) - 1  # not counting this probe


def gunicorn_pids(port: int) -> list[int]:
    return pids_whose_command(lambda cmdline: "gunicorn" in cmdline and f"127.0.0.1:{port}" in cmdline)


def parent_of(pid: int) -> int:
    try:
        return int((Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return -1


def read_responses(raw: socket.socket, count: int) -> list[tuple[int, bytes]]:
    """`count` HTTP/1.1 responses with Content-Length bodies, read from one connection."""
    buffer, answers = b"", list[tuple[int, bytes]]()
    while len(answers) < count:
        while b"\r\n\r\n" not in buffer:
            data = raw.recv(65536)
            if not data:
                raise AssertionError(f"the connection closed after {len(answers)} answers")
            buffer += data
        head, buffer = buffer.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:])}
        length = int(headers.get("content-length", "0"))
        while len(buffer) < length:
            buffer += raw.recv(65536)
        answers.append((int(lines[0].split()[1]), buffer[:length]))
        buffer = buffer[length:]
    return answers


HOLD_STORES = """
import json, time
from afterhack import embedded
urls = embedded.service_urls()
print(json.dumps({"database_url": urls.database_url, "falkordb_url": urls.falkordb_url}), flush=True)
time.sleep(600)  # holds the stores, as a company's servers would, until the test ends it
"""


def health_of(port: int) -> dict[str, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as answer:
            return dict(json.load(answer))
    except urllib.error.HTTPError as error:
        return dict(json.load(error))


class ExternalStoreTests:
    def test_it_reconnects_to_external_stores_that_come_back(self, tmp_path: Path) -> None:
        """Stores named by DATABASE_URL / FALKORDB_URL are not the launcher's to restart; once back, they are used again."""
        stores_dir, app_dir = tmp_path / "stores", tmp_path / "app"
        holder = subprocess.Popen(
            [sys.executable, "-c", HOLD_STORES], env=store_env(stores_dir), cwd=ROOT, stdout=subprocess.PIPE, text=True
        )
        app = None
        try:
            assert holder.stdout is not None
            urls = json.loads(holder.stdout.readline())
            env = store_env(app_dir) | {"DATABASE_URL": urls["database_url"], "FALKORDB_URL": urls["falkordb_url"]}
            port = free_port()
            app, _ = start_app(env, port)
            stores = embedded.EmbeddedServices(stores_dir)
            for store in ("falkordb", "postgres"):
                os.kill(store_pid(stores_dir, store), signal.SIGKILL)
                # The behaviour under test: 3 s is longer than the launcher takes to restart a store of its own
                # (about a second), so a store it wrongly restarted would be back by now.
                time.sleep(3)
                # Nobody restarts it: the app says so, truthfully, and keeps running.
                report = health_of(port)
                assert report == report | {"status": "unavailable", store: "down"}
                assert app.poll() is None
                stores.restart(store)
                assert wait_healthy(f"http://127.0.0.1:{port}", seconds=60)
        finally:
            if app is not None:
                app.send_signal(signal.SIGTERM)
                app.communicate(timeout=90)
            holder.kill()
            holder.wait()
            embedded.wipe(stores_dir)
            embedded.wipe(app_dir)
