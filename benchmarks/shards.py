"""Beyond one machine: 1 shard against 3 (issue #14; `make bench BENCH_ARGS="--only shards"`).

- Spread: graph names made as the app makes them (from a workspace's server-generated UUID) and where their slots
  put them on a 3-primary cluster, beside the spread expected of that many random keys.
- Throughput: corrections/s (preview + apply through corrections.services, its PostgreSQL intent and audit
  included) and lexical searches/s (claims.selectors.search.claim_search_page) from 1, 4, 8 client PROCESSES (one Python
  process is bound by its GIL: processes let the store, not the client, be the limit) over many workspaces grown
  with the benchmark's stories, on the standalone FalkorDB server and on a local 3-primary cluster; the CPU seconds
  each FalkorDB node, the clients and the rest of the machine used during each run.
- Failover: kill -9 the primary of a workspace being written to; seconds until a write is answered again.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import statistics
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connections
from django.test import override_settings
from redis.crc import key_slot

from afterhack import graph
from afterhack.cluster import LocalCluster, free_ports
from benchmarks import corrections as corrections_bench
from benchmarks import corrections_graph as bench_graph
from benchmarks.claims import Figure
from claims.selectors import search as search_selectors
from claims.statuses import SearchMode
from corrections.services import apply as apply_services
from corrections.services import preview as preview_services
from workspaces.models import Workspace
from workspaces.services import workspaces as workspace_services

SLOTS = 16384
KINDS = ("corrections", "searches")
SEARCHES = ["Ana owns", "launch June", "launches in June", "Ana"]
STATEMENT = "The launch is in July."


def _say(text: str) -> None:
    print(f"  [shards] {text}", flush=True)


# -- spread ---------------------------------------------------------------------------------------------------


def spread(cluster: LocalCluster, count: int) -> dict[int, int]:
    """How many of `count` new workspaces' graphs land on each primary (port → graphs): names as the app makes them
    (Workspace.graph_name, from the UUID the server gives a workspace), slots as the cluster computes them."""
    owners = cluster.primaries()
    landed = dict.fromkeys(sorted(owners), 0)
    for _ in range(count):
        slot = key_slot(Workspace().graph_name.encode())
        port = next(p for p, ranges in owners.items() if any(first <= slot <= last for first, last in ranges))
        landed[port] += 1
    return landed


def spread_figures(cluster: LocalCluster, counts: list[int]) -> list[Figure]:
    owners = cluster.primaries()
    figures = []
    for count in counts:
        landed = spread(cluster, count)
        for port, graphs in landed.items():
            share = sum(last - first + 1 for first, last in owners[port]) / SLOTS
            expected, deviation = count * share, (count * share * (1 - share)) ** 0.5
            figures.append(Figure(
                f"{count} workspaces: graphs on the primary on port {port}", graphs, "graphs",
                f"expected {expected:.1f} ± {deviation:.1f} (one standard deviation of a multinomial; "
                f"{share:.1%} of the slots)",
            ))  # fmt: skip
    return figures


# -- throughput -----------------------------------------------------------------------------------------------


@dataclass
class Run:
    """One timed run: operations done by all clients, errors, and CPU seconds by where they were spent."""

    store: str
    kind: str
    clients: int
    seconds: float
    operations: int
    errors: int
    client_cpu: float
    node_cpu: dict[str, float] = field(default_factory=dict)  # "primary 17300" / "replica 17303" / "server" → s
    machine_busy: float = 0.0  # every process's CPU seconds (from /proc/stat), others' suites included
    postgres_cpu: float | None = None  # the local PostgreSQL's CPU seconds (None: an external one)
    placement: str = ""  # the workspaces on each primary
    exhausted: int = 0  # clients that ran out of claims to correct before the time was up (the rate is then low)

    @property
    def rate(self) -> float:
        return self.operations / self.seconds


def _machine_busy() -> float:
    """CPU seconds the whole machine has spent busy since boot (/proc/stat: all but idle and iowait)."""
    with open("/proc/stat") as stat:
        fields = [int(n) for n in stat.readline().split()[1:]]
    return (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def _process_times(pid: int) -> tuple[float, float]:
    """A process's own CPU seconds and those of its children it has reaped (/proc/PID/stat)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / tick, (int(fields[13]) + int(fields[14])) / tick


def postgres_cpu() -> float | None:
    """CPU seconds the local PostgreSQL has used: its postmaster, the backends it has reaped and those alive now;
    None when the database is not a local server whose postmaster.pid is readable (an external one)."""
    try:
        folder = Path(str(connections["default"].settings_dict["HOST"]))
        postmaster = int((folder / "postmaster.pid").read_text().split()[0])
        own, reaped = _process_times(postmaster)
    except (OSError, ValueError, IndexError):
        return None
    total = own + reaped
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                with open(entry / "stat") as stat:
                    parent = int(stat.read().rsplit(")", 1)[1].split()[1])
                if parent == postmaster:
                    total += _process_times(int(entry.name))[0]
            except (OSError, ValueError, IndexError):
                continue  # gone meanwhile
    return total


def _cpu(client: Any) -> float:
    info = client.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def node_cpu(cluster: LocalCluster | None) -> dict[str, float]:
    """CPU seconds each FalkorDB node has used (INFO cpu), named by its role."""
    if cluster is None:
        return {"server": _cpu(graph.client().connection)}
    answer = {}
    for port in cluster.running_ports():
        node = cluster.node(port)
        role = "primary" if node.info("replication")["role"] == "master" else "replica"
        answer[f"{role} {port}"] = _cpu(node)
    return answer


def _close_database() -> None:
    """Closes this process's database connections and its pool's (a pool's sockets must not cross a fork)."""
    for connection in connections.all():
        connection.close()
        if hasattr(connection, "close_pool"):
            connection.close_pool()


def _client(
    kind: str, jobs: list[tuple[str, list[str]]], user_id: int, seconds: float, go: Any, answers: Any
) -> None:  # pragma: no cover - runs in a forked process (its result is checked through the queue)
    """One client process: corrections (preview + apply) or searches, round-robin over its workspaces, for `seconds`
    from `go`; puts (operations, errors, its own CPU seconds, 1 if it ran out of claims) on `answers`."""
    try:
        answers.put(_client_work(kind, jobs, user_id, seconds, go))
    except BaseException as error:
        answers.put((0, 1, 0.0, 0))
        raise RuntimeError(f"A benchmark client failed: {error!r}") from error
    finally:
        _close_database()


def _client_work(
    kind: str, jobs: list[tuple[str, list[str]]], user_id: int, seconds: float, go: Any
) -> tuple[int, int, float, int]:  # pragma: no cover - runs in a forked process
    graph._clients.clear()  # this process's own connections (the parent's are not shared across a fork)
    actor = get_user_model().objects.get(pk=user_id)
    workspaces = [(Workspace.objects.get(pk=pk), list(claims)) for pk, claims in jobs]
    rng = random.Random(os.getpid())
    done = errors = exhausted = 0
    go.wait()
    cpu_before = time.process_time()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        workspace, claims = workspaces[done % len(workspaces)]
        try:
            if kind == "corrections":
                if not claims:
                    exhausted = 1
                    break
                claim_id = claims.pop()
                plan = preview_services.preview(workspace=workspace, claim_id=claim_id, statement=STATEMENT)
                apply_services.apply(
                    workspace=workspace, claim_id=claim_id, statement=STATEMENT, reason="bench shards",
                    revision=plan.fingerprint, idempotency_key=f"shards-{os.getpid()}-{done}", actor=actor,
                )  # fmt: skip
            else:
                search_selectors.claim_search_page(
                    workspace=workspace, query=rng.choice(SEARCHES), limit=50, cursor=None, mode=SearchMode.LEXICAL
                )
            done += 1
        except Exception as error:  # noqa: BLE001 - counted and reported: a benchmark row with errors says so
            errors += 1
            if errors == 1:
                print(f"  [shards] a {kind} client's first error: {error!r}"[:300], flush=True)
            done += 1
    return done - errors, errors, time.process_time() - cpu_before, exhausted


def timed_run(
    store: str, cluster: LocalCluster | None, kind: str, clients: int, seconds: float,
    workspaces: list[tuple[Workspace, list[str]]], user_id: int,
) -> Run:  # fmt: skip
    """`clients` processes doing `kind` for `seconds` over the workspaces (each client its own share of the claims
    to correct); the CPU each node, the clients and the machine used meanwhile."""
    context = multiprocessing.get_context("fork")
    go, answers = context.Event(), context.Queue()
    jobs = [[(str(w.id), claims[i::clients]) for w, claims in workspaces] for i in range(clients)]
    _close_database()  # no database connection (nor pool) shared across the fork
    processes = [
        context.Process(target=_client, args=(kind, jobs[i], user_id, seconds, go, answers), daemon=True)
        for i in range(clients)
    ]
    for process in processes:
        process.start()
    time.sleep(0.5)  # the clients have loaded their workspaces
    nodes_before, busy_before, postgres_before = node_cpu(cluster), _machine_busy(), postgres_cpu()
    started = time.monotonic()
    go.set()
    results = [answers.get(timeout=seconds + 120) for _ in processes]
    elapsed = time.monotonic() - started
    nodes_after, busy_after, postgres_after = node_cpu(cluster), _machine_busy(), postgres_cpu()
    for process in processes:
        process.join(timeout=30)
    return Run(
        store, kind, clients, elapsed, sum(r[0] for r in results), sum(r[1] for r in results),
        sum(r[2] for r in results), {name: nodes_after.get(name, 0.0) - used for name, used in nodes_before.items()},
        busy_after - busy_before,
        None if postgres_before is None or postgres_after is None else postgres_after - postgres_before,
        "", sum(r[3] for r in results),
    )  # fmt: skip


def grow_workspaces(user: Any, count: int, nodes: int, rng: random.Random) -> list[tuple[Workspace, list[str]]]:
    """`count` workspaces of about `nodes` nodes each (the corrections benchmark's stories); each with the ids of
    every story's first claim, to correct."""
    grown = []
    for n in range(count):
        workspace = workspace_services.workspace_create(name=f"Bench shards {n}", creator=user)
        grown.append((workspace, corrections_bench.grow(workspace, nodes, rng, keep=nodes)))
    return grown


def throughput(
    store: str, cluster: LocalCluster | None, user: Any, *, workspaces: int, nodes: int, levels: list[int],
    seconds: float, runs: int, rng: random.Random,
) -> list[Run]:  # fmt: skip
    """Every (kind, clients) `runs` times, on the configured store; the workspaces are deleted at the end."""
    started = time.monotonic()
    grown = grow_workspaces(user, workspaces, nodes, rng)
    placement = ""
    if cluster is not None:
        owners = [cluster.primary_of(w.graph_name) for w, _ in grown]
        placement = "/".join(str(owners.count(port)) for port in sorted(cluster.primaries()))
    _say(
        f"{store}: {workspaces} workspaces of ~{nodes:,} nodes grown in {time.monotonic() - started:.0f} s"
        + (f"; on the primaries: {placement}" if placement else "")
    )
    measured = []
    slices = runs * len(levels)  # each timed run of corrections corrects claims no other run touched
    try:
        for run in range(runs):
            for kind in KINDS:
                for level, clients in enumerate(levels):
                    part = run * len(levels) + level
                    share = [(w, claims[part::slices]) for w, claims in grown]
                    result = timed_run(store, cluster, kind, clients, seconds, share, user.pk)
                    result.placement = placement
                    measured.append(result)
                    _say(
                        f"{store} run {run + 1}/{runs}: {kind}, {clients} clients: {result.rate:,.1f}/s "
                        f"({result.errors} errors{', ran out of claims' if result.exhausted else ''})"
                    )
    finally:
        for workspace, _ in grown:
            graph.graph_delete(workspace)
    return measured


def _cores(runs: list[Run], part: Callable[[Run], float]) -> float:
    """The median over runs of a part's CPU seconds per second of the run: the cores it kept busy."""
    return statistics.median(part(run) / run.seconds for run in runs)


def throughput_figures(measured: list[Run]) -> list[Figure]:
    figures = []
    keys = list(dict.fromkeys((run.store, run.kind, run.clients) for run in measured))
    for store, kind, clients in keys:
        runs = [run for run in measured if (run.store, run.kind, run.clients) == (store, kind, clients)]
        rates = [run.rate for run in runs]
        names = sorted(runs[0].node_cpu, key=lambda name: (name.split()[0] != "primary", name))
        nodes = ", ".join(
            f"{name} {statistics.median(r.node_cpu.get(name, 0.0) / r.seconds for r in runs):.2f}" for name in names
        )
        clients_cores = _cores(runs, lambda r: r.client_cpu)
        postgres = _cores(runs, lambda r: r.postgres_cpu or 0.0) if runs[0].postgres_cpu is not None else None
        rest = _cores(runs, lambda r: r.machine_busy - r.client_cpu - sum(r.node_cpu.values()) - (r.postgres_cpu or 0))
        errors = sum(run.errors for run in runs)
        exhausted = sum(run.exhausted for run in runs)
        figures.append(Figure(
            f"{store}: {kind}, {clients} client process{'es' if clients > 1 else ''}", statistics.median(rates), "/s",
            f"median of {len(runs)} runs, {min(rates):,.1f}–{max(rates):,.1f}; cores busy: {nodes}; clients "
            f"{clients_cores:.2f}; "
            + (f"PostgreSQL {postgres:.2f}; " if postgres is not None else "")
            + f"the rest (the bench itself, other users) {rest:.2f}"
            + (f"; workspaces per primary {runs[0].placement}" if runs[0].placement else "")
            + (f"; {errors} errors" if errors else "") + (f"; {exhausted} clients ran out of claims" if exhausted else ""),
        ))  # fmt: skip
    return figures


# -- failover -------------------------------------------------------------------------------------------------


def failover_windows(cluster: LocalCluster, user: Any, repeats: int) -> list[float]:
    """`repeats` times: a client writes to a workspace, its primary is killed (kill -9) between two writes, the
    client keeps writing; the seconds from the kill to the first write answered. The killed node rejoins each time."""
    workspace = workspace_services.workspace_create(name="Bench failover", creator=user)
    windows = []
    written = 0

    def write() -> None:
        nonlocal written
        written += 1
        bench_graph.bench_note_create(workspace=workspace, n=written)

    try:
        for repeat in range(repeats):
            primary = cluster.primary_of(workspace.graph_name)
            for _ in range(20):
                write()
            seen = cluster.failover(primary, write, retry_on=(graph.GraphUnavailable,))
            windows.append(seen.seconds)
            _say(f"failover {repeat + 1}/{repeats}: primary {primary} killed, a write answered after {seen.seconds:.2f} s "
                 f"({seen.refused} refused)")  # fmt: skip
            cluster.rejoin(primary)
    finally:
        graph.graph_delete(workspace)
    return windows


@contextmanager
def _on(cluster: LocalCluster) -> Any:
    with override_settings(FALKORDB_URL=cluster.url, FALKORDB_CLUSTER_NODES=""):
        yield


def bench_shards(
    user: Any, *, spread_counts: list[int], workspaces: int, nodes: int, levels: list[int], seconds: float,
    runs: int, failovers: int, first_port: int,
) -> list[Figure]:  # fmt: skip
    rng = random.Random(14)
    options = {"workspaces": workspaces, "nodes": nodes, "levels": levels, "seconds": seconds, "runs": runs, "rng": rng}
    measured = throughput("standalone server", None, user, **options)  # type: ignore[arg-type]
    cluster = LocalCluster(free_ports(first_port, last=first_port + 100))
    cluster.start()
    _say(f"a 3-primary cluster (a replica each) formed in {cluster.formed_in:.1f} s on ports {cluster.ports}")
    try:
        figures = spread_figures(cluster, spread_counts)
        with _on(cluster):
            measured += throughput("3-shard cluster", cluster, user, **options)  # type: ignore[arg-type]
            windows = failover_windows(cluster, user, failovers) if failovers else []
    finally:
        cluster.stop()
    figures += throughput_figures(measured)
    if windows:
        figures.append(Figure(
            "failover: kill -9 of a workspace's primary to the first write answered", statistics.median(windows),
            "s median", f"min {min(windows):.2f} / max {max(windows):.2f} s over {len(windows)} kills; node timeout "
            f"{cluster.node_timeout_ms} ms",
        ))  # fmt: skip
    return figures
