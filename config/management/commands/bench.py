"""`manage.py bench` (what `make bench` calls): the benchmark figures reported in docs/benchmarks.md."""

from __future__ import annotations

import os
import platform
import random
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.test import Client

from afterhack import graph
from benchmarks import agents as agents_bench
from benchmarks import claims as claims_bench
from benchmarks import contradiction as contradiction_bench
from benchmarks import corrections as corrections_bench
from benchmarks import loadtest
from benchmarks import mcp_server as mcp_bench
from benchmarks import memory as bench_memory
from benchmarks import shards as bench_shards
from benchmarks import telling as telling_bench
from benchmarks import watch as watch_bench
from workspaces.services import tokens as token_services
from workspaces.services import workspaces as workspace_services


def machine() -> str:
    """The CPU, cores, memory, Python and FalkorDB versions, for the report."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as info:
            cpu = next(line.split(":", 1)[1].strip() for line in info if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{cpu}, {os.cpu_count()} cores, {memory:.0f} GiB, Python {platform.python_version()}, FalkorDB {graph.server_version()}"


class Command(BaseCommand):
    help = "Runs the benchmarks on the configured stores (make bench uses a fresh temporary data dir)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--sources", type=int, default=10_000, help="how many sources the ingest benchmark adds")
        parser.add_argument(
            "--only",
            choices=[
                "claims",
                "agents",
                "corrections",
                "contradiction",
                "history",
                "mcp",
                "serving",
                "search",
                "memory",
                "shards",
                "watch",
                "telling",
            ],
            help="run only one group of benchmarks (search, memory, shards and watch are long and run only when "
            "named: make bench-search)",
        )
        parser.add_argument("--load-levels", default="8,32,128", help="concurrent clients for the serving benchmark")
        parser.add_argument("--load-seconds", type=float, default=15.0, help="seconds at each level of concurrency")
        parser.add_argument(
            "--sizes",
            default="10000,100000,1000000",
            help="workspace sizes (graph nodes) for the corrections benchmark",
        )
        parser.add_argument("--history-claims", type=int, default=10_000, help="claims in the history benchmark")
        parser.add_argument("--search-sizes", default="10000,100000,1000000", help="claims per workspace, search")
        parser.add_argument(
            "--search-dims",
            default="384,1536",
            help="vector dimensions for the search benchmark (0: no vectors, lexical only)",
        )
        parser.add_argument("--watch-claims", type=int, default=100_000, help="claims in the workspace, watch")
        parser.add_argument("--watch-new", type=int, default=100, help="new claims watched, watch")
        parser.add_argument("--memory-sizes", default="100000,1000000", help="graph nodes per workspace, memory")
        parser.add_argument(
            "--memory-dims",
            default="384",
            help="vector dimensions on every claim, at the first memory size ('' for none)",
        )

        parser.add_argument("--shard-spread", default="60,300", help="workspaces whose spread over 3 shards is counted")
        parser.add_argument("--shard-workspaces", type=int, default=30, help="workspaces the shards benchmark loads")
        parser.add_argument("--shard-nodes", type=int, default=10_000, help="graph nodes per workspace, shards")
        parser.add_argument("--shard-clients", default="1,4,8", help="concurrent client processes, shards")
        parser.add_argument("--shard-seconds", type=float, default=5.0, help="seconds per run, shards")
        parser.add_argument("--shard-runs", type=int, default=3, help="runs of each shards measurement")
        parser.add_argument("--shard-failovers", type=int, default=5, help="primaries killed, shards")
        parser.add_argument(
            "--shard-port", type=int, default=17300, help="first port of the shards benchmark's cluster"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        call_command("migrate", interactive=False, verbosity=0)
        # The pages rendered (the source page, over HTTP) name their static files through the manifest.
        call_command("collectstatic", interactive=False, verbosity=0)
        rng = random.Random(20261129)
        user = get_user_model().objects.create_user(username=f"bench-{rng.randrange(10**9)}", password=None)
        workspace = workspace_services.workspace_create(name="Benchmark", creator=user)
        page_workspace = workspace_services.workspace_create(name="Benchmark page", creator=user)
        client = Client()
        client.force_login(user)
        self.stdout.write(f"Machine: {machine()}\n")
        figures = []
        try:
            groups = {
                "claims": [
                    lambda: claims_bench.bench_validation(rng),
                    lambda: claims_bench.bench_ingest(rng, workspace, user, options["sources"]),
                    lambda: claims_bench.bench_source_page(rng, page_workspace, user, client),
                ],
                "agents": [lambda: agents_bench.bench_agent_runs(user)],
                "corrections": [
                    lambda: corrections_bench.bench_corrections(user, [int(n) for n in options["sizes"].split(",")])
                ],
                "contradiction": [contradiction_bench.bench_contradiction],
                "history": [lambda: corrections_bench.bench_history(user, options["history_claims"])],
                "mcp": [lambda: mcp_bench.bench_mcp_overhead(user)],
                "serving": [lambda: self.bench_serving(user, options)],
                "search": [
                    lambda: claims_bench.bench_search(
                        rng, user, [int(n) for n in options["search_sizes"].split(",")],
                        [int(n) for n in options["search_dims"].split(",")],
                    )
                ],
                "memory": [
                    lambda: bench_memory.bench_memory(
                        user, [int(n) for n in options["memory_sizes"].split(",")],
                        [int(n) for n in options["memory_dims"].split(",") if n],
                    )
                ],
                "watch": [lambda: watch_bench.bench_watch(user, options["watch_claims"], options["watch_new"])],
                "telling": [lambda: telling_bench.bench_telling(user)],
                "shards": [
                    lambda: bench_shards.bench_shards(
                        user, spread_counts=[int(n) for n in options["shard_spread"].split(",")],
                        workspaces=options["shard_workspaces"], nodes=options["shard_nodes"],
                        levels=[int(n) for n in options["shard_clients"].split(",")], seconds=options["shard_seconds"],
                        runs=options["shard_runs"], failovers=options["shard_failovers"], first_port=options["shard_port"],
                    )
                ],
            }  # fmt: skip
            long_groups = ("search", "memory", "shards", "watch")
            chosen = [options["only"]] if options["only"] else [name for name in groups if name not in long_groups]
            for run in [bench for name in chosen for bench in groups[name]]:
                for figure in run():
                    figures.append(figure)
                    self.stdout.write(f"| {figure.name} | {figure.value:,.1f} {figure.unit} | {figure.detail} |")
                    self.stdout.flush()
        finally:
            graph.graph_delete(workspace)
            graph.graph_delete(page_workspace)

    def bench_serving(self, user: Any, options: dict[str, Any]) -> list[claims_bench.Figure]:
        """Requests/s and latency percentiles of the mixed workload, gunicorn beside the development server."""
        workspace = workspace_services.workspace_create(name="Benchmark load", creator=user)
        _, token = token_services.token_issue(user=user, name="bench load")
        levels = [int(n) for n in options["load_levels"].split(",")]
        try:
            runs = loadtest.bench_load(
                token=token, workspace_id=str(workspace.id), levels=levels, seconds=options["load_seconds"]
            )
        finally:
            graph.graph_delete(workspace)
        return [
            claims_bench.Figure(
                f"{run.server}, {run.report.clients} clients",
                run.report.requests / run.report.seconds,
                "requests/s",
                f"p50 {run.report.percentile(50):.0f} / p95 {run.report.percentile(95):.0f} / "
                f"p99 {run.report.percentile(99):.0f} ms; errors: {run.report.server_errors} 5xx, "
                f"{run.report.connection_errors} connection; {run.report.requests:,} requests",
            )
            for run in runs
        ]
