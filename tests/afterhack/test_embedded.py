"""The embedded stores and `manage.py run` come back after a clean stop and after kill -9, data intact."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from benchmarks.loadtest import free_port
from tests.waiting import poll, wait_until

ROOT = Path(__file__).resolve().parents[2]

WRITE = """
import sys
from afterhack import embedded
import psycopg
from falkordb import FalkorDB
urls = embedded.service_urls()
with psycopg.connect(urls.database_url, autocommit=True) as pg:
    pg.execute("CREATE TABLE IF NOT EXISTS notes (body text)")
    pg.execute("INSERT INTO notes VALUES (%s)", [sys.argv[1]])
FalkorDB.from_url(urls.falkordb_url).select_graph("ws_crash").query("CREATE (:Note {body: $b})", {"b": sys.argv[1]})
print("written", flush=True)
if len(sys.argv) > 2:
    import time
    time.sleep(600)  # holds its lease on the servers until the test kills it: the behaviour under test
"""

READ = """
from afterhack import embedded
import psycopg
from falkordb import FalkorDB
urls = embedded.service_urls()
with psycopg.connect(urls.database_url) as pg:
    print(sorted(r[0] for r in pg.execute("SELECT body FROM notes")))
rows = FalkorDB.from_url(urls.falkordb_url).select_graph("ws_crash").ro_query("MATCH (n:Note) RETURN n.body").result_set
print(sorted(r[0] for r in rows))
"""


def store_env(data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "FALKORDB_URL", "CELERY_BROKER_URL"}}
    env.update(AFTERHACK_DATA_DIR=str(data_dir), DJANGO_SETTINGS_MODULE="config.settings", PYTHONPATH=str(ROOT))
    return env


def python(code: str, *args: str, env: dict[str, str]) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code, *args], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def pids_whose_command(matches: Callable[[str], bool]) -> list[int]:
    """Pids of the live processes whose command line `matches`."""
    pids = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if matches(cmdline):
                pids.append(int(proc.name))
    return pids


def server_pids(data_dir: Path) -> list[int]:
    """Pids of the postgres and redis-server processes serving `data_dir`."""
    return pids_whose_command(
        lambda cmdline: str(data_dir) in cmdline and ("postgres" in cmdline or "redis-server" in cmdline)
    )


@pytest.fixture
def data_dir(tmp_path: Path) -> Iterator[Path]:
    from afterhack import embedded

    root = tmp_path / "data"
    yield root
    embedded.wipe(root)


@pytest.mark.subprocess
class EmbeddedStoreTests:
    def test_it_stops_the_servers_when_the_last_user_leaves(self, data_dir: Path) -> None:
        env = store_env(data_dir)
        assert "written" in python(WRITE, "first", env=env)
        assert server_pids(data_dir) == []
        assert python(READ, env=env).split("\n")[:2] == ["['first']", "['first']"]

    def test_it_comes_back_after_its_user_is_killed(self, data_dir: Path) -> None:
        env = store_env(data_dir)
        holder = subprocess.Popen(
            [sys.executable, "-c", WRITE, "before-kill", "hold"], env=env, cwd=ROOT, stdout=subprocess.PIPE, text=True
        )
        assert holder.stdout is not None and holder.stdout.readline().strip() == "written"
        holder.send_signal(signal.SIGKILL)
        holder.wait()
        # The servers outlive the killed process; the next one attaches to them.
        assert server_pids(data_dir) != []
        assert python(READ, env=env).split("\n")[:2] == ["['before-kill']", "['before-kill']"]
        assert server_pids(data_dir) == []

    def test_it_loses_no_acknowledged_write_when_the_servers_are_killed(self, data_dir: Path) -> None:
        env = store_env(data_dir)
        holder = subprocess.Popen(
            [sys.executable, "-c", WRITE, "acknowledged", "hold"], env=env, cwd=ROOT, stdout=subprocess.PIPE, text=True
        )
        assert holder.stdout is not None and holder.stdout.readline().strip() == "written"
        for pid in server_pids(data_dir):
            os.kill(pid, signal.SIGKILL)
        holder.send_signal(signal.SIGKILL)
        holder.wait()
        wait_until(lambda: server_pids(data_dir) == [], seconds=30, what="the killed servers to be gone")
        assert python(READ, env=env).split("\n")[:2] == ["['acknowledged']", "['acknowledged']"]


def start_app(env: dict[str, str], port: int) -> tuple[subprocess.Popen[str], str]:
    """`manage.py run` until it says it is running; returns the process and what it printed."""
    app = subprocess.Popen(
        [sys.executable, "manage.py", "run", "--port", str(port)],
        env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    printed = []
    assert app.stdout is not None
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        line = app.stdout.readline()
        if not line:
            break
        printed.append(line)
        if "Press Ctrl-C to stop" in line:
            return app, "".join(printed)
    app.kill()
    raise AssertionError("manage.py run did not start:\n" + "".join(printed))


def health(port: int) -> int:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as answer:
        return int(answer.status)


@pytest.mark.subprocess
class LauncherTests:
    @pytest.mark.parametrize("delay", [0.0, 0.4, 1.0, 2.0])
    def test_it_stops_promptly_when_told_to_while_still_starting(self, data_dir: Path, delay: float) -> None:
        env = store_env(data_dir)
        app = subprocess.Popen(
            [sys.executable, "manage.py", "run", "--port", str(free_port())],
            env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        # Settings load starts the stores; stop it before it has finished migrating. Before the
        # lock file exists a SIGTERM meets no handler and kills the launcher outright (-15, no
        # output): on a loaded machine that start takes minutes, so wait for it, however long.
        lock = data_dir / "run" / "launcher.lock"
        poll(lambda: lock.exists() or app.poll() is not None, seconds=600)
        assert lock.exists(), f"manage.py run did not reach its launcher (exit {app.poll()})"
        # At different moments: migrating, creating the user, loading the demo, starting children. This sleep is
        # the behaviour under test: the stop comes that long after the launcher took its lock.
        time.sleep(delay)
        app.send_signal(signal.SIGTERM)
        output, _ = app.communicate(timeout=300)
        assert app.returncode == 0, output
        if delay == 0.0:
            assert "Afterhack is running" not in output
        assert "Stopped" in output
        assert server_pids(data_dir) == []

    def test_it_starts_stops_and_survives_kill_9_with_data_intact(self, data_dir: Path) -> None:
        env = store_env(data_dir) | {"DJANGO_SUPERUSER_USERNAME": "", "DJANGO_SUPERUSER_PASSWORD": ""}
        port = free_port()

        app, printed = start_app(env, port)
        password = re.search(r"log in as admin with password (\S+)", printed)
        assert password is not None, printed
        assert "Loaded the demo workspace" in printed
        assert health(port) == 200
        app.send_signal(signal.SIGTERM)
        assert app.wait(timeout=60) == 0
        assert server_pids(data_dir) == []

        app, printed = start_app(env, port)
        assert "with password" not in printed and "Loaded the demo workspace" not in printed
        app.send_signal(signal.SIGKILL)
        app.wait()

        app, printed = start_app(env, port)
        try:
            assert health(port) == 200
            check = python(
                "import django; django.setup()\n"
                "from django.contrib.auth import authenticate\n"
                "from workspaces.models import Workspace\n"
                "print(Workspace.objects.filter(name__startswith='Demo').count())\n"
                f"print(authenticate(username='admin', password={password.group(1)!r}) is not None)\n",
                env=env,
            )
            assert check.split("\n")[:2] == ["1", "True"]
        finally:
            app.send_signal(signal.SIGINT)
            assert app.wait(timeout=60) == 0
        assert server_pids(data_dir) == []


def launcher_module() -> Any:
    """`manage.py run`'s module, imported when a test runs: gunicorn loads tests/afterhack/test_slow_clients.py
    (which imports this module) as a WSGI app before Django is set up, and the launcher's module imports models."""
    from config.management.commands import run

    return run


class LauncherStopTests:
    """A stop asked for while starting up is a stop, whatever the step running at that moment does with errors."""

    def launcher(self) -> Any:
        command = launcher_module().Command()
        command.stopping, command.supervising = False, False
        return command

    def test_a_step_that_carries_on_after_any_error_does_not_take_in_the_stop(self) -> None:
        launcher = self.launcher()
        # A step's own retry or clean-up, as libraries write them, suppresses any Exception.
        with pytest.raises(launcher_module().StopRequested), contextlib.suppress(Exception):
            launcher._on_signal(signal.SIGTERM, None)

    def test_a_stop_taken_in_anyway_is_honoured_between_steps(self) -> None:
        launcher = self.launcher()
        launcher._go_on()  # nothing asked: it goes on
        launcher.stopping = True
        with pytest.raises(launcher_module().StopRequested):
            launcher._go_on()
