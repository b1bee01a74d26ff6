"""`manage.py run` (what `make run` calls): stores, migrations, first user, demo, worker, web server.

This process holds the lease on the embedded stores (taken when settings were loaded) and
stops what it started on Ctrl-C or SIGTERM, or when its parent (`make`) dies. Its children
die with it, even on `kill -9`, so a crash leaves nothing that blocks the next start.

While it runs it supervises: an embedded store whose server dies is started again on the same
data, a child that dies is started again, and the children's output goes to rotating log files.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import hashlib
import json
import logging
import logging.handlers
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import psycopg
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.staticfiles.finders import get_finders
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connection, connections, transaction

from afterhack import embedded
from afterhack.errors import UserError
from afterhack.serving import Sizing, gunicorn_command
from config.demo import demo_load
from workspaces.services.workspaces import graphs_reconcile

PR_SET_PDEATHSIG = 1
# A log file is rotated at this size; the last LOG_BACKUPS rotated files are kept.
LOG_MAX_BYTES = int(settings.LOG_MAX_MB * 1024 * 1024)
LOG_BACKUPS = 5
# A child that dies more often than this within RESTART_WINDOW seconds is not started again.
MAX_RESTARTS = 5
RESTART_WINDOW = 60.0
STORE_NAMES = {"postgres": "PostgreSQL", "falkordb": "FalkorDB"}
# The advisory lock launchers on several hosts take around migrations and the first user ("AHSTART").
START_UP_LOCK = int.from_bytes(b"AHSTART", "big")


class StopRequested(BaseException):
    """Ctrl-C, SIGTERM or SIGHUP arrived while starting up: stop at once, cleanly.

    A BaseException, as KeyboardInterrupt is: raised from the signal handler into whatever runs, it must not be
    taken for that code's own failure by an `except Exception` that retries or carries on (a start-up then went on
    to the end, "Afterhack is running", before it stopped)."""


def die_with_parent() -> None:
    """Asks Linux to send this process SIGTERM when its parent dies."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def rotating_log(path: Path) -> logging.Logger:
    """A logger that writes lines as they come to `path`, rotated at LOG_MAX_BYTES."""
    logger = logging.getLogger(f"afterhack.childlog.{path.name}")
    logger.propagate = False
    logger.setLevel(logging.INFO)
    if not logger.handlers:
        handler = logging.handlers.RotatingFileHandler(path, maxBytes=LOG_MAX_BYTES, backupCount=LOG_BACKUPS)
        handler.setFormatter(logging.Formatter("%(message)s"))
        logger.addHandler(handler)
    return logger


def copy_lines(pipe: IO[bytes], log: logging.Logger) -> None:
    """Copies a child's output into its log until the child closes it."""
    with pipe:
        for line in iter(pipe.readline, b""):
            log.info(line.decode("utf-8", "replace").rstrip("\n"))


@dataclass
class Child:
    """A process the launcher started, how to start it again, and when it was restarted."""

    name: str
    command: list[str]
    env: dict[str, str]
    process: subprocess.Popen[bytes]
    log_path: Path
    restarts: list[float] = field(default_factory=list)


class Command(BaseCommand):
    help = "Runs Afterhack: embedded stores, migrations, first user, demo workspace, Celery worker and web server."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--port", type=int, default=settings.PORT, help="default: PORT, else 8000")
        parser.add_argument("--no-worker", action="store_true", help="don't start a Celery worker")

    def handle(self, *args: Any, **options: Any) -> None:
        started = time.monotonic()
        die_with_parent()
        self.children: list[Child] = []
        self.stopping = False
        self.supervising = False
        # The handlers come before the lock file: whoever waits for that file to appear (a
        # script, the tests) may stop this launcher from then on and get a clean stop.
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(signum, self._on_signal)
        try:
            lock = self._single_launcher()
        except StopRequested:
            self.stdout.write("Stopped before it finished starting.")
            return
        try:
            self._database_answers()
            # Several hosts may start at once on one PostgreSQL: the steps that change shared state run
            # on one of them at a time (each finds the work done by the one before).
            with self._one_host_at_a_time():
                call_command("migrate", interactive=False, verbosity=0)
                graphs_reconcile()
                call_command("recover_corrections", verbosity=0)
                login = self._first_user()
                owner = get_user_model().objects.filter(is_superuser=True).order_by("pk").first()
                if owner is not None and demo_load(owner=owner) is not None:
                    self.stdout.write("Loaded the demo workspace.")
            self._go_on()
            sizing = self._sizing()
            self._collect_static()
            # The launcher's own connections are not needed while it supervises.
            connections.close_all()
            connection.close_pool()  # type: ignore[attr-defined]  # PostgreSQL backends have it
            if not options["no_worker"]:
                self._spawn("worker", [sys.executable, "-m", "celery", "-A", "config", "worker",
                                       "--loglevel=INFO", f"--concurrency={sizing.worker_concurrency}",
                                       "--without-gossip", "--without-mingle", "--without-heartbeat", "-B",
                                       "-s", str(self._logs() / "celerybeat-schedule")],
                            self._child_env(pool=sizing.worker_pool))  # fmt: skip
                self._spawn("teller", [sys.executable, "-m", "celery", "-A", "config", "worker", "--loglevel=INFO",
                                       "-Q", settings.AFTERHACK_TELL_QUEUE, "--pool=threads", f"--concurrency={sizing.tell_threads}",
                                       "-n", "teller@%h", "--without-gossip", "--without-mingle",
                                       "--without-heartbeat"],
                            self._child_env(pool=sizing.tell_threads + 1))  # fmt: skip
            port = options["port"]
            self._go_on()
            self._spawn("web", gunicorn_command(port=port, sizing=sizing), self._child_env(pool=sizing.web_pool))
            self._wait_healthy(port)
            self._go_on()
            self._announce(port, login, time.monotonic() - started, sizing)
            self._supervise()
        except (Exception, StopRequested) as error:
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

    @contextlib.contextmanager
    def _one_host_at_a_time(self) -> Iterator[None]:
        """A PostgreSQL advisory lock held, on a connection of its own, while the block runs."""
        params = {**connection.get_connection_params(), "connect_timeout": 5}
        params.pop("cursor_factory", None)
        with psycopg.connect(**params, autocommit=True) as holder:
            holder.execute("SELECT pg_advisory_lock(%s)", [START_UP_LOCK])
            yield
            # Closing the connection frees the lock too; said aloud for the reader.
            holder.execute("SELECT pg_advisory_unlock(%s)", [START_UP_LOCK])

    def _database_answers(self) -> None:
        """PostgreSQL answers, or start-up stops with its own words (the pool would only say it timed out)."""
        params = {**connection.get_connection_params(), "connect_timeout": 5}
        params.pop("cursor_factory", None)
        try:
            with psycopg.connect(**params) as probe:
                probe.execute("SELECT 1")
        except psycopg.Error as error:
            words = " ".join(str(error).split())
            raise CommandError(
                f"PostgreSQL did not answer: {words}. Check DATABASE_URL, that the server runs and accepts "
                "this user, and that the database exists (a company's database is created by its administrator: "
                "CREATE DATABASE ... OWNER ...)."
            ) from None

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

    def _sizing(self) -> Sizing:
        """The web server's size for this machine, refused in words if PostgreSQL could not serve it."""
        try:
            sizing = Sizing.from_env()
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT current_setting('max_connections')::int, current_setting('superuser_reserved_connections')::int"
                )
                self.max_connections, reserved = cursor.fetchone()
            sizing.check_fits(self.max_connections, reserved)
        except UserError as error:
            raise CommandError(str(error)) from None
        return sizing

    def _collect_static(self) -> None:
        """collectstatic (hashing and compressing every file takes seconds), skipped when no static file changed."""
        stamp = Path(settings.STATIC_ROOT) / ".collected"
        fingerprint = hashlib.sha256()
        for finder in get_finders():
            for name, storage in finder.list([]):
                info = os.stat(storage.path(name))
                fingerprint.update(f"{name}\0{info.st_size}\0{info.st_mtime_ns}\n".encode())
        if stamp.exists() and stamp.read_text() == fingerprint.hexdigest():
            return
        call_command("collectstatic", interactive=False, verbosity=0)
        stamp.write_text(fingerprint.hexdigest())

    def _child_env(self, *, pool: int) -> dict[str, str]:
        """The children use the stores this process leases rather than starting their own."""
        env = dict(os.environ)
        env.update(
            DATABASE_URL=settings.SERVICES.database_url,
            FALKORDB_URL=settings.SERVICES.falkordb_url,
            CELERY_BROKER_URL=settings.SERVICES.broker_url,
            AFTERHACK_DATA_DIR=str(settings.DATA_DIR),
            # The key this launcher uses (DJANGO_SECRET_KEY, or the data dir's on one host): the children
            # are handed the store URLs, and must not be taken for hosts of their own without a key.
            DJANGO_SECRET_KEY=settings.SECRET_KEY,
            AFTERHACK_DB_POOL_SIZE=str(pool),
            DJANGO_SETTINGS_MODULE="config.settings",
            PYTHONUNBUFFERED="1",
        )
        return env

    def _spawn(self, name: str, command: list[str], env: dict[str, str]) -> None:
        log_path = self._logs() / f"{name}.log"
        self.children.append(Child(name, command, env, self._start(name, command, env), log_path))

    def _start(self, name: str, command: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
        """Starts a child in a session of its own (a Ctrl-C reaches it only through this launcher)."""
        process = subprocess.Popen(
            command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
            cwd=settings.BASE_DIR, preexec_fn=die_with_parent, start_new_session=True,
        )  # fmt: skip
        # The web server's stdout is its access log; everything else goes to <name>.log.
        out_log = rotating_log(self._logs() / ("access.log" if name == "web" else f"{name}.log"))
        err_log = rotating_log(self._logs() / f"{name}.log")
        for pipe, log in ((process.stdout, out_log), (process.stderr, err_log)):
            assert pipe is not None
            threading.Thread(target=copy_lines, args=(pipe, log), daemon=True, name=f"log-{name}").start()
        return process

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

    def _announce(self, port: int, login: str, seconds: float, sizing: Sizing) -> None:
        self.stdout.write(
            "\n"
            f"  Afterhack is running at http://127.0.0.1:{port}/   (ready in {seconds:.1f} s)\n"
            f"  {login}\n"
            f"  Serving with gunicorn: {sizing.describe(self.max_connections)}\n"
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

    def _go_on(self) -> None:
        """Between start-up steps: a stop asked for during one that the step's own code took in is honoured now."""
        if self.stopping:
            raise StopRequested

    def _check_children(self) -> None:
        """During start-up a child that dies is fatal: it will not do better the second time."""
        for child in self.children:
            if child.process.poll() is not None and not self.stopping:
                raise CommandError(
                    f"The {child.name} process stopped (exit {child.process.returncode}). {self._tail(child)}"
                )

    def _tail(self, child: Child) -> str:
        time.sleep(0.2)  # the log threads may still be copying its last words
        return f"Its log ({child.log_path}) ends:\n{child.log_path.read_text(errors='replace')[-3000:]}"

    def _supervise(self) -> None:
        self.supervising = True
        if self.stopping:
            return
        stores = embedded.EmbeddedServices.shared()
        while not self.stopping:
            self._heal_stores(stores)
            self._heal_children()
            time.sleep(0.5)
        self.stdout.write("Stopping…")

    def _say(self, words: str) -> None:
        self.stdout.write(f"[{time.strftime('%H:%M:%S')}] {words}")
        self.stdout.flush()

    def _heal_stores(self, stores: embedded.EmbeddedServices) -> None:
        """Starts an embedded server that died again, on the same data; the app reconnects by itself."""
        for store in stores.stopped():
            if self.stopping:
                return
            self._say(f"The embedded {STORE_NAMES[store]} server stopped unexpectedly; starting it again.")
            began = time.monotonic()
            try:
                stores.restart(store)
            except Exception as error:  # noqa: BLE001 - any failure: say it, try again on the next round
                self._say(f"{STORE_NAMES[store]} did not start yet ({error}); trying again.")
                time.sleep(1)
                continue
            self._say(f"{STORE_NAMES[store]} is back on the same data ({time.monotonic() - began:.1f} s).")

    def _heal_children(self) -> None:
        """Starts a child that died again, unless it keeps dying; then everything stops, with its log."""
        for child in self.children:
            if child.process.poll() is None or self.stopping:
                continue
            now = time.monotonic()
            child.restarts = [t for t in child.restarts if now - t < RESTART_WINDOW] + [now]
            if len(child.restarts) > MAX_RESTARTS:
                raise CommandError(
                    f"The {child.name} process stopped {MAX_RESTARTS} times within a minute; giving up. {self._tail(child)}"
                )
            self._say(f"The {child.name} process stopped (exit {child.process.returncode}); starting it again.")
            # Its own children (gunicorn's workers, Celery's pool) would keep the port and the
            # queue for a while: they are in its process group, ended with it before the new start.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.process.pid, signal.SIGKILL)
            child.process = self._start(child.name, child.command, child.env)

    def _stop_children(self) -> None:
        # SIGTERM: gunicorn lets requests in flight finish, Celery finishes its tasks (a warm shutdown).
        for child in self.children:
            if child.process.poll() is None:
                child.process.terminate()
        deadline = time.monotonic() + 25
        for child in self.children:
            try:
                child.process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.process.kill()
                child.process.wait()
