"""`manage.py run` (what `make run` calls): stores, migrations, first user, demo, worker, web server.

This process holds the lease on the embedded stores (taken when settings were loaded) and
stops what it started on Ctrl-C or SIGTERM, or when its parent (`make`) dies. Its children
die with it, even on `kill -9`, so a crash leaves nothing that blocks the next start.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import json
import os
import secrets
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import IO, Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connections, transaction

from afterhack.demo import demo_load
from workspaces.services import graphs_reconcile

PR_SET_PDEATHSIG = 1


class StopRequested(Exception):
    """Ctrl-C, SIGTERM or SIGHUP arrived while starting up: stop at once, cleanly."""


def die_with_parent() -> None:
    """Asks Linux to send this process SIGTERM when its parent dies."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


class Command(BaseCommand):
    help = "Runs Afterhack: embedded stores, migrations, first user, demo workspace, Celery worker and web server."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
        parser.add_argument("--no-worker", action="store_true", help="don't start a Celery worker")

    def handle(self, *args: Any, **options: Any) -> None:
        started = time.monotonic()
        die_with_parent()
        self.children: list[tuple[str, subprocess.Popen[bytes], Path]] = []
        self.stopping = False
        self.supervising = False
        lock = self._single_launcher()
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(signum, self._on_signal)
        try:
            call_command("migrate", interactive=False, verbosity=0)
            graphs_reconcile()
            call_command("recover_corrections", verbosity=0)
            login = self._first_user()
            owner = get_user_model().objects.filter(is_superuser=True).order_by("pk").first()
            if owner is not None and demo_load(owner=owner) is not None:
                self.stdout.write("Loaded the demo workspace.")
            env = self._child_env()
            if not options["no_worker"]:
                self._spawn("worker", [sys.executable, "-m", "celery", "-A", "afterhack", "worker",
                                       "--loglevel=INFO", "--concurrency=2", "--without-gossip",
                                       "--without-mingle", "--without-heartbeat", "-B",
                                       "-s", str(self._logs() / "celerybeat-schedule")], env)  # fmt: skip
            port = options["port"]
            self._spawn("web", [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}",
                                "--noreload", "--insecure", "--skip-checks"], env)  # fmt: skip
            self._wait_healthy(port)
            self._announce(port, login, time.monotonic() - started)
            self._supervise()
        except Exception as error:
            # Interrupted mid-step (a migration, a query), the step itself may fail on its way
            # out with an error of its own; when a stop was asked for, that is the stop.
            if not isinstance(error, StopRequested) and not self.stopping:
                raise
            self.stdout.write("Stopped before it finished starting.")
        finally:
            # From here on a second signal only sets the flag: the clean-up must run to its end.
            self.supervising = True
            self._stop_children()
            with contextlib.suppress(Exception):
                connections.close_all()
            lock.close()
            self.stdout.write("Stopped. (The embedded databases stop as this process exits.)")

    # -- start-up ---------------------------------------------------------------

    def _single_launcher(self) -> IO[str]:
        path = settings.DATA_DIR / "run" / "launcher.lock"
        path.parent.mkdir(parents=True, exist_ok=True)
        # Held open (and locked) for as long as this launcher runs.
        lock = open(path, "a+")  # noqa: SIM115
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.seek(0)
            holder = lock.read().strip()
            raise CommandError(
                f"Afterhack is already running from this data dir ({settings.DATA_DIR}): {holder}"
            ) from None
        lock.seek(0)
        lock.truncate()
        lock.write(f"pid {os.getpid()}\n")
        lock.flush()
        return lock

    def _first_user(self) -> str:
        """Creates the first superuser if there is no user; returns how to log in."""
        users = get_user_model().objects
        with transaction.atomic():
            if users.exists():
                first = users.filter(is_superuser=True).order_by("pk").first()
                name = first.get_username() if first else "your user"
                return f"log in as {name} (its password was set, or printed, on the first start)"
            username = os.environ.get("DJANGO_SUPERUSER_USERNAME") or "admin"
            password = os.environ.get("DJANGO_SUPERUSER_PASSWORD") or ""
            generated = not password
            password = password or secrets.token_urlsafe(12)
            users.create_superuser(
                username=username, email=os.environ.get("DJANGO_SUPERUSER_EMAIL", ""), password=password
            )
        if generated:
            return f"log in as {username} with password {password}  (printed once: write it down)"
        return f"log in as {username} with the password in DJANGO_SUPERUSER_PASSWORD"

    def _logs(self) -> Path:
        path = settings.DATA_DIR / "logs"
        path.mkdir(parents=True, exist_ok=True)
        return path

    def _child_env(self) -> dict[str, str]:
        """The children use the stores this process leases rather than starting their own."""
        env = dict(os.environ)
        env.update(
            DATABASE_URL=settings.SERVICES.database_url,
            FALKORDB_URL=settings.SERVICES.falkordb_url,
            CELERY_BROKER_URL=settings.SERVICES.broker_url,
            AFTERHACK_DATA_DIR=str(settings.DATA_DIR),
            DJANGO_SETTINGS_MODULE="afterhack.settings",
            PYTHONUNBUFFERED="1",
        )
        return env

    def _spawn(self, name: str, command: list[str], env: dict[str, str]) -> None:
        log_path = self._logs() / f"{name}.log"
        with open(log_path, "ab") as log:
            child = subprocess.Popen(
                command, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                cwd=settings.BASE_DIR, preexec_fn=die_with_parent,
            )  # fmt: skip
        self.children.append((name, child, log_path))

    def _wait_healthy(self, port: int) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            self._check_children()
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as answer:
                    if json.load(answer).get("status") == "ok":
                        return
            except OSError:
                pass
            time.sleep(0.1)
        raise CommandError(f"The web server did not answer on port {port} within 60 s; see {self._logs() / 'web.log'}.")

    def _announce(self, port: int, login: str, seconds: float) -> None:
        self.stdout.write(
            "\n"
            f"  Afterhack is running at http://127.0.0.1:{port}/   (ready in {seconds:.1f} s)\n"
            f"  {login}\n"
            f"  Data and logs: {settings.DATA_DIR}\n"
            "  Press Ctrl-C to stop.\n"
        )
        self.stdout.flush()

    # -- running and stopping -------------------------------------------------------

    def _on_signal(self, signum: int, frame: Any) -> None:
        self.stopping = True
        # While starting up there is no loop to notice the flag: interrupt whatever runs.
        if not self.supervising:
            raise StopRequested

    def _check_children(self) -> None:
        for name, child, log_path in self.children:
            if child.poll() is not None and not self.stopping:
                tail = log_path.read_text(errors="replace")[-3000:]
                raise CommandError(f"The {name} process stopped (exit {child.returncode}). Its log ends:\n{tail}")

    def _supervise(self) -> None:
        self.supervising = True
        if self.stopping:
            return
        while not self.stopping:
            self._check_children()
            time.sleep(0.5)
        self.stdout.write("Stopping…")

    def _stop_children(self) -> None:
        for _, child, _ in self.children:
            if child.poll() is None:
                child.terminate()
        deadline = time.monotonic() + 15
        for _, child, _ in self.children:
            try:
                child.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
