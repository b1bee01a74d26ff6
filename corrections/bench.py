"""Benchmark of corrections (run by `make bench`): preview and apply on 10k, 100k and 1M-node workspaces."""

from __future__ import annotations

import json
import random
import statistics
import time
import urllib.request
import uuid
from typing import Any

from afterhack import graph, loadtest
from afterhack.clock import now_iso
from claims.bench import Figure, percentiles
from corrections import bench_graph, services
from workspaces import services as workspace_services

BATCH = 2_000
SAMPLES = 30


def grow(workspace: Any, nodes: int, rng: random.Random) -> list[str]:
    """Adds stories until the workspace has about `nodes` nodes; returns the ids of the claims to correct."""
    count = nodes // bench_graph.BENCH_NODES_PER_STORY
    targets: list[str] = []
    for start in range(0, count, BATCH):
        stories = [
            {k: str(uuid.uuid4()) for k in ("s", "v", "f1", "f2", "a", "b", "c", "d", "e", "x")}
            for _ in range(min(BATCH, count - start))
        ]
        bench_graph.bench_stories_create(workspace=workspace, stories=stories, now=now_iso())
        targets.extend(story["a"] for story in stories)
    rng.shuffle(targets)
    return targets[: SAMPLES * 4]


def timed(work: Any) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


class Stopwatch:
    """Times the block it wraps; the seconds are in `.seconds` afterwards."""

    def __enter__(self) -> Stopwatch:
        self.started = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self.started


def in_process(workspace: Any, user: Any, claims: list[str]) -> tuple[list[float], list[float], list[int]]:
    previews, applies, trips = [], [], []
    for claim_id in claims:
        with Stopwatch() as watch:
            plan = services.preview(workspace=workspace, claim_id=claim_id, statement="The launch is in July.")
        previews.append(watch.seconds)
        before = graph.queries_sent()
        with Stopwatch() as watch:
            services.apply(
                workspace=workspace, claim_id=claim_id, statement="The launch is in July.", reason="bench",
                revision=plan.fingerprint, idempotency_key=str(uuid.uuid4()), actor=user,
            )  # fmt: skip
        applies.append(watch.seconds)
        trips.append(graph.queries_sent() - before)
    return previews, applies, trips


def over_http(base: str, token: str, workspace: Any, claims: list[str]) -> tuple[list[float], list[float]]:
    def post(path: str, body: dict[str, Any]) -> dict[str, Any]:
        request = urllib.request.Request(
            f"{base}/api/v1/workspaces/{workspace.id}{path}", data=json.dumps(body).encode(), method="POST",
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        )  # fmt: skip
        with urllib.request.urlopen(request, timeout=60) as answer:
            return dict(json.load(answer))

    previews, applies = [], []
    for claim_id in claims:
        with Stopwatch() as watch:
            answer = post(f"/claims/{claim_id}/correction-preview", {"statement": "The launch is in July."})
        previews.append(watch.seconds)
        body = {
            "statement": "The launch is in July.",
            "reason": "bench",
            "revision": answer["revision"],
            "idempotency_key": str(uuid.uuid4()),
        }
        with Stopwatch() as watch:
            post(f"/claims/{claim_id}/corrections", body)
        applies.append(watch.seconds)
    return previews, applies


def naive(workspace: Any, claims: list[str]) -> tuple[list[float], list[int]]:
    """The hackathon original: a query per step, one level deep, nothing atomic."""
    times, trips = [], []
    for claim_id in claims:
        ids = {"claim_id": claim_id, "correction_id": str(uuid.uuid4()), "fragment_id": str(uuid.uuid4()),
               "replacement_id": str(uuid.uuid4()), "statement": "The launch is in July.", "reason": "bench", "now": now_iso()}  # fmt: skip
        before, started = graph.queries_sent(), time.perf_counter()
        for step in ("supersede", "correction", "corrects", "fragment", "replacement", "cites", "supersedes"):
            bench_graph.naive_step(workspace=workspace, step=step, params=ids)
        for (decision_id,) in bench_graph.naive_step(workspace=workspace, step="dependents", params=ids):
            alive = bench_graph.naive_step(
                workspace=workspace, step="alternatives", params={"decision_id": decision_id}
            )[0][0]
            if not alive:
                bench_graph.naive_step(workspace=workspace, step="flag", params={"decision_id": decision_id})
                bench_graph.naive_step(workspace=workspace, step="actions", params={"decision_id": decision_id})
        times.append(time.perf_counter() - started)
        trips.append(graph.queries_sent() - before)
    return times, trips


def ping_floor() -> float:
    times = [timed(graph.ping) for _ in range(200)]
    return statistics.median(times) * 1_000_000


def bench_corrections(user: Any, sizes: list[int]) -> list[Figure]:
    rng = random.Random(7)
    _, token = workspace_services.token_issue(user=user, name="bench")
    server, base = loadtest.start_web_server("gunicorn", loadtest.server_env())
    figures = [Figure("PING to the FalkorDB server (the floor)", ping_floor(), "µs", "median of 200, unix socket")]
    try:
        for size in sizes:
            workspace = workspace_services.workspace_create(name=f"Bench {size}", creator=user)
            started = time.perf_counter()
            claims = grow(workspace, size, rng)
            grown = time.perf_counter() - started
            previews, applies, trips = in_process(workspace, user, claims[:SAMPLES])
            http_previews, http_applies = over_http(base, token, workspace, claims[SAMPLES : SAMPLES * 2])
            naive_times, naive_trips = naive(workspace, claims[SAMPLES * 2 : SAMPLES * 3])
            label = f"{size:,} nodes"
            for name, values, detail in (
                (f"{label}: preview, in-process", previews, f"workspace built in {grown:.0f} s"),
                (
                    f"{label}: apply, in-process",
                    applies,
                    f"graph round-trips per apply: {statistics.median(trips):.0f} (median)",
                ),
                (f"{label}: preview over HTTP", http_previews, "gunicorn on loopback, bearer token"),
                (f"{label}: apply over HTTP", http_applies, "intent row + one graph write + audit row"),
                (
                    f"{label}: naive apply (a query per step)",
                    naive_times,
                    f"round-trips: {statistics.median(naive_trips):.0f}; not atomic, one level deep",
                ),
            ):
                p50, p95 = percentiles(values)
                figures.append(Figure(name, p50, "ms p50", f"p95 {p95:.1f} ms; {detail}"))
            graph.graph_delete(workspace)
    finally:
        server.terminate()
        server.wait()
    return figures
