"""The app on a PostgreSQL it did not start: a separate server (the bundled initdb/pg_ctl), reached over
TCP with a password, as a company's database would be.

A bounded set of the suite runs against it in a child pytest (migrations, a login, a correction from
end to end, the audit trail, /readyz, recovery from several processes), and `manage.py run` with
DATABASE_URL set is checked to start no PostgreSQL of its own. About a minute and a half in all.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import psycopg
import pytest

from afterhack import embedded
from tests.afterhack.test_embedded import start_app, store_env
from tests.conftest import database_on, free_port

pytestmark = pytest.mark.subprocess

ROOT = Path(__file__).resolve().parents[2]

# One test of each kind the brief names, run whole against the external server.
BOUNDED_SET = [
    "tests/afterhack/test_health.py",
    "tests/workspaces/test_login_throttle.py::PageLoginThrottleTests::test_a_good_login_on_the_page_clears_the_failures_and_logs_in",
    "tests/corrections/test_apply.py::JuneToJulyTests::test_the_story_end_to_end",
    "tests/corrections/test_audit.py::AuditKindsTests",
    "tests/corrections/test_recover_many_workers.py",
]


def launcher(env: dict[str, str], port: int) -> subprocess.Popen[str]:
    """`manage.py run` without a worker, its output on a pipe."""
    return subprocess.Popen(
        [sys.executable, "manage.py", "run", "--no-worker", "--port", str(port)],
        env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip


def test_the_bounded_set_passes_on_an_external_postgres(external_database_url: str) -> None:
    env = {k: v for k, v in os.environ.items() if k not in {"FALKORDB_URL", "CELERY_BROKER_URL", "AFTERHACK_DATA_DIR"}}
    env |= {"DATABASE_URL": external_database_url, "DJANGO_SETTINGS_MODULE": "tests.settings"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", *BOUNDED_SET],
        env=env, cwd=ROOT, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout


def test_make_run_on_a_database_that_does_not_exist_says_so(external_database_url: str, tmp_path: Path) -> None:
    env = store_env(tmp_path / "app") | {
        "DATABASE_URL": external_database_url.replace("/afterhack", "/nobody_made_this"),
        "DJANGO_SECRET_KEY": "s" * 50,
    }
    done = subprocess.run(
        [sys.executable, "manage.py", "run", "--no-worker", "--port", str(free_port())],
        env=env, cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode != 0
    assert 'database "nobody_made_this" does not exist' in done.stderr, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert not (tmp_path / "app" / "postgres").exists()
    embedded.wipe(tmp_path / "app")


def test_make_run_with_database_url_starts_no_postgres(external_database_url: str, tmp_path: Path) -> None:
    # The company's administrator creates the database; the app migrates it.
    database_on(external_database_url, "afterhack")
    data_dir = tmp_path / "app"
    env = store_env(data_dir) | {"DATABASE_URL": external_database_url, "DJANGO_SECRET_KEY": "s" * 50}
    port = free_port()
    app, printed = start_app(env, port)
    try:
        # The external database was migrated and answers; no embedded PostgreSQL was made or started.
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=10) as answer:
            assert answer.status == 200
        assert not (data_dir / "postgres").exists(), printed
        assert (data_dir / "falkordb").exists()  # FalkorDB, not named, is still the embedded one
    finally:
        app.send_signal(signal.SIGTERM)
        app.communicate(timeout=90)
        embedded.wipe(data_dir)


def test_two_hosts_starting_at_once_on_a_fresh_database_both_come_up(
    external_database_url: str, tmp_path: Path
) -> None:
    """Migrations, the first user and the demo run on one launcher at a time (an advisory lock)."""
    from django.conf import settings

    url = external_database_url.replace("/afterhack", "/two_hosts")
    with psycopg.connect(external_database_url.replace("/afterhack", "/postgres"), autocommit=True) as admin:
        admin.execute("CREATE DATABASE two_hosts")
    apps: list[subprocess.Popen[str]] = []
    ports: list[int] = []
    try:
        for name in ("host-a", "host-b"):
            env = store_env(tmp_path / name) | {
                "DATABASE_URL": url, "FALKORDB_URL": settings.FALKORDB_URL, "DJANGO_SECRET_KEY": "s" * 50,
                "DJANGO_SUPERUSER_PASSWORD": "the first admin's password",
            }  # fmt: skip
            ports.append(free_port(taken=ports))
            apps.append(launcher(env, ports[-1]))
        for app in apps:
            assert app.stdout is not None
            printed = []
            for line in app.stdout:
                printed.append(line)
                if "Press Ctrl-C to stop" in line or "Error" in line:
                    break
            assert "Press Ctrl-C to stop" in "".join(printed), "".join(printed)
        with psycopg.connect(url) as check:
            assert check.execute("SELECT count(*) FROM auth_user WHERE is_superuser").fetchone() == (1,)
    finally:
        for app in apps:
            app.send_signal(signal.SIGTERM)
            app.communicate(timeout=90)
        for name in ("host-a", "host-b"):
            embedded.wipe(tmp_path / name)
