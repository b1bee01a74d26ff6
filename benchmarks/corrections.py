"""Benchmarks of corrections (run by `make bench`): preview and apply on 10k, 100k and 1M-node workspaces; the past
(as-of reads, a week of changes, the one-week diff) on a 10k-claim workspace with a history."""

from __future__ import annotations

import json
import random
import statistics
import time
import urllib.request
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

from django.db import connection

from afterhack import graph
from afterhack.clock import now_iso
from agents.selectors import decisions as agents_selectors
from benchmarks import corrections_graph as bench_graph
from benchmarks import loadtest
from benchmarks.claims import Figure, percentiles
from claims.selectors import claims as claims_selectors
from claims.selectors import picker as picker_selectors
from claims.selectors import provenance as provenance_selectors
from corrections.selectors import changes as changes_selectors
from corrections.selectors import relied_on as relied_on_selectors
from corrections.selectors import timeline as timeline_selectors
from corrections.services import apply as apply_services
from corrections.services import preview as preview_services
from workspaces.selectors import dashboard as dashboard_selectors
from workspaces.services import tokens as token_services
from workspaces.services import workspaces as workspace_services

BATCH = 2_000
SAMPLES = 30


def grow(workspace: Any, nodes: int, rng: random.Random, keep: int = SAMPLES * 5) -> list[str]:
    """Adds stories until the workspace has about `nodes` nodes; returns the ids of `keep` claims to correct."""
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
    return targets[:keep]


def warm(workspace: Any, claim_id: str) -> None:
    """What a workspace in use has had: a reader opened a claim's page, and saw it in a list of search results
    (the card names its source: claim, fragment, version)."""
    provenance_selectors.claim_provenance(workspace=workspace, claim_id=claim_id)
    picker_selectors.claim_cards(workspace=workspace, claim_ids=[claim_id])


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


class StatementCounter:
    """Counts the SQL statements Django sends while it is installed (`connection.execute_wrapper`). An apply sends
    each in autocommit, so every statement is one PostgreSQL round-trip (no BEGIN/COMMIT of its own)."""

    def __init__(self) -> None:
        self.statements = 0

    def __call__(self, execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        self.statements += 1
        return execute(sql, params, many, context)


@dataclass
class Trips:
    """Round-trips per operation, one entry per sample."""

    preview_graph: list[int] = field(default_factory=list)
    apply_graph: list[int] = field(default_factory=list)
    apply_postgres: list[int] = field(default_factory=list)


def in_process(workspace: Any, user: Any, claims: list[str]) -> tuple[list[float], list[float], Trips]:
    previews, applies, trips = [], [], Trips()
    for claim_id in claims:
        before = graph.queries_sent()
        with Stopwatch() as watch:
            plan = preview_services.preview(workspace=workspace, claim_id=claim_id, statement="The launch is in July.")
        previews.append(watch.seconds)
        trips.preview_graph.append(graph.queries_sent() - before)
        before, counter = graph.queries_sent(), StatementCounter()
        with connection.execute_wrapper(counter), Stopwatch() as watch:
            apply_services.apply(
                workspace=workspace, claim_id=claim_id, statement="The launch is in July.", reason="bench",
                revision=plan.fingerprint, idempotency_key=str(uuid.uuid4()), actor=user,
            )  # fmt: skip
        applies.append(watch.seconds)
        trips.apply_graph.append(graph.queries_sent() - before)
        trips.apply_postgres.append(counter.statements)
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


def settle_disk(limit: float = 300.0) -> float:
    """Waits while FalkorDB rewrites its append-only file after the growth (it starts one when the file has doubled),
    so that the timings are of the corrections, not of the rewrite's fsyncs beside them; the seconds waited."""
    started = time.perf_counter()
    time.sleep(0.5)  # the server starts a rewrite from its cron, a moment after the file has grown
    while graph.persisting() and time.perf_counter() - started < limit:
        time.sleep(0.2)
    return time.perf_counter() - started


def bench_corrections(user: Any, sizes: list[int]) -> list[Figure]:
    rng = random.Random(7)
    _, token = token_services.token_issue(user=user, name="bench")
    server, base = loadtest.start_web_server("gunicorn", loadtest.server_env())
    floor = ping_floor()
    figures = [Figure("PING to the FalkorDB server (the floor)", floor, "µs", "median of 200, unix socket")]
    try:
        for size in sizes:
            workspace = workspace_services.workspace_create(name=f"Bench {size}", creator=user)
            started = time.perf_counter()
            claims = grow(workspace, size, rng)
            grown = time.perf_counter() - started
            settled = settle_disk()
            # Straight after the bulk growth, before anything has read the claims' evidence: FalkorDB 4.22 then pays
            # about 1 ms on every edge a write adds to a relation the growth filled (SUPPORTED_BY, HAS_FRAGMENT), until
            # a read query touches that relation after a write to it (then never again, even after more growth). A
            # workspace in use is read; this state is measured apart, and `warm` is the read that ends it.
            _, cold_applies, _ = in_process(workspace, user, claims[SAMPLES * 3 : SAMPLES * 4])
            cold_naive, _ = naive(workspace, claims[SAMPLES * 4 : SAMPLES * 5])
            warm(workspace, claims[0])
            previews, applies, trips = in_process(workspace, user, claims[:SAMPLES])
            http_previews, http_applies = over_http(base, token, workspace, claims[SAMPLES : SAMPLES * 2])
            naive_times, naive_trips = naive(workspace, claims[SAMPLES * 2 : SAMPLES * 3])
            label = f"{size:,} nodes"
            ratio = statistics.median(previews) * 1_000_000 / floor
            for name, values, detail in (
                (
                    f"{label}: preview, in-process",
                    previews,
                    f"graph round-trips: {statistics.median(trips.preview_graph):.0f}; {ratio:.0f}× the PING floor; "
                    f"workspace built in {grown:.0f} s, then {settled:.1f} s waiting for the server's AOF rewrite",
                ),
                (
                    f"{label}: apply, in-process",
                    applies,
                    f"round-trips per apply (median): graph {statistics.median(trips.apply_graph):.0f}, "
                    f"PostgreSQL {statistics.median(trips.apply_postgres):.0f}",
                ),
                (f"{label}: preview over HTTP", http_previews, "gunicorn on loopback, bearer token"),
                (
                    f"{label}: apply over HTTP",
                    http_applies,
                    "intent row + one graph read + one graph write + audit row",
                ),
                (
                    f"{label}: naive apply (a query per step)",
                    naive_times,
                    f"round-trips: {statistics.median(naive_trips):.0f}; not atomic, one level deep, no PostgreSQL",
                ),
                (
                    f"{label}: apply before any read (just grown)",
                    cold_applies,
                    "the store's first writes after the bulk growth, nothing read since (see the comment in the code)",
                ),
                (f"{label}: naive apply before any read (just grown)", cold_naive, "the same state"),
            ):
                p50, p95 = percentiles(values)
                figures.append(Figure(name, p50, "ms p50", f"p95 {p95:.1f} ms; {detail}"))
            graph.graph_delete(workspace)
    finally:
        server.terminate()
        server.wait()
    return figures


# -- the past (issue #13): as-of reads and the one-week diff on a 10k-claim workspace --------------------------

HISTORY_DAYS = 120
HISTORY_SAMPLES = 200
DIFF_SAMPLES = 30


def grow_history(workspace: Any, claims: int, events: int, rng: random.Random) -> tuple[list[dict[str, str]], datetime]:
    """Stories (3 claims each) created HISTORY_DAYS ago, then `events` corrections spread evenly over the days
    since; returns the stories and when they were created."""
    began = datetime.now(UTC) - timedelta(days=HISTORY_DAYS)
    stories = [
        {k: str(uuid.uuid4()) for k in ("s", "v", "f1", "f2", "a", "b", "c", "d", "e", "x")} for _ in range(claims // 3)
    ]
    for start in range(0, len(stories), BATCH):
        bench_graph.bench_stories_create(
            workspace=workspace, stories=stories[start : start + BATCH], now=began.isoformat(timespec="microseconds")
        )
    span = (datetime.now(UTC) - began).total_seconds()
    corrected = rng.sample(stories, events)
    moments = sorted(began + timedelta(seconds=rng.uniform(60, span - 60)) for _ in corrected)
    bench_graph.bench_history_create(
        workspace=workspace,
        events=[
            {"a": s["a"], "c": s["c"], "e": s["e"], "x": s["x"], "correction": str(uuid.uuid4()),
             "at": at.isoformat(timespec="microseconds")}
            for s, at in zip(corrected, moments, strict=True)
        ],
    )  # fmt: skip
    return stories, began


def bench_history(user: Any, claims: int = 10_000, events: int = 1_200) -> list[Figure]:
    """p50 of an as-of claim read, an as-of decision read, a page of changes, a one-week diff and the dashboard as
    of a moment."""
    rng = random.Random(13)
    workspace = workspace_services.workspace_create(name=f"Bench history {claims}", creator=user)
    try:
        started = time.perf_counter()
        stories, began = grow_history(workspace, claims, events, rng)
        grown = time.perf_counter() - started
        span = (datetime.now(UTC) - began).total_seconds()

        def moment() -> str:
            return (began + timedelta(seconds=rng.uniform(0, span))).isoformat(timespec="microseconds")

        picks = [rng.choice(stories) for _ in range(HISTORY_SAMPLES)]
        plain = [timed(lambda s=s: claims_selectors.claim_get(workspace=workspace, claim_id=s["a"])) for s in picks]
        as_of = [
            timed(lambda s=s: claims_selectors.claim_get(workspace=workspace, claim_id=s["a"], as_of=moment()))
            for s in picks
        ]
        decisions = [
            timed(lambda s=s: agents_selectors.decision_get(workspace=workspace, decision_id=s["e"], as_of=moment()))
            for s in picks
        ]
        weeks = []
        for _ in range(DIFF_SAMPLES):
            end = began + timedelta(seconds=rng.uniform(7 * 86_400, span))
            weeks.append(
                ((end - timedelta(days=7)).isoformat(timespec="microseconds"), end.isoformat(timespec="microseconds"))
            )
        pages = [
            timed(lambda w=w: changes_selectors.changes_between(workspace=workspace, start=w[0], end=w[1], limit=50))
            for w in weeks
        ]
        diffs = [
            timed(lambda w=w: timeline_selectors.beliefs_diff(workspace=workspace, start=w[0], end=w[1])) for w in weeks
        ]
        dashboards = [
            timed(lambda w=w: dashboard_selectors.dashboard_as_of(workspace=workspace, as_of=w[1])) for w in weeks
        ]
        changes = events * 4
        label = f"{claims:,} claims, {changes:,} changes over {HISTORY_DAYS} days"
        figures = bench_relied_on(workspace, stories, label)
        for name, values, detail in (
            (f"{label}: claim read (the present)", plain, f"the baseline; workspace built in {grown:.0f} s"),
            (f"{label}: as-of claim read", as_of, f"{HISTORY_SAMPLES} random claims at random moments"),
            (f"{label}: as-of decision read", decisions, "with its justifications then"),
            (f"{label}: a week's changes, first page of 50", pages, f"{DIFF_SAMPLES} random weeks"),
            (
                f"{label}: one-week diff",
                diffs,
                f"{DIFF_SAMPLES} random weeks, about {changes * 7 // HISTORY_DAYS:,} changes each",
            ),
            (f"{label}: the dashboard as of a moment", dashboards, "attention and totals then, in one graph query"),
        ):
            p50, p95 = percentiles(values)
            figures.append(Figure(name, p50, "ms p50", f"p95 {p95:.1f} ms; {detail}"))
        return figures
    finally:
        graph.graph_delete(workspace)


def bench_relied_on(workspace: Any, stories: list[dict[str, str]], label: str) -> list[Figure]:
    """An agent that recorded every decision of the workspace (two a story) asks what changed in what it relied
    on: the first page of the last 7 days, a resume from the previous answer's `next`, and the first page of the
    whole history (`from` its start)."""
    agent = SimpleNamespace(is_authenticated=True, get_username=lambda: "bench-agent")
    bench_graph.bench_decisions_of(
        workspace=workspace, ids=[s[k] for s in stories for k in ("d", "e")], me="bench-agent"
    )
    last = relied_on_selectors.relied_on_page(workspace=workspace, user=agent, limit=200)
    while last.count > len(last.results):  # to the end of the list: where the next session resumes
        last = relied_on_selectors.relied_on_page(workspace=workspace, user=agent, since=last.next, limit=200)
    start = (datetime.now(UTC) - timedelta(days=HISTORY_DAYS + 1)).isoformat(timespec="microseconds")
    reads = {
        "the last 7 days": lambda: relied_on_selectors.relied_on_page(workspace=workspace, user=agent, limit=50),
        "a resume with nothing new": lambda: relied_on_selectors.relied_on_page(
            workspace=workspace, user=agent, since=last.next, limit=50
        ),
        f"all {HISTORY_DAYS} days": lambda: relied_on_selectors.relied_on_page(
            workspace=workspace, user=agent, start=start, limit=50
        ),
    }
    figures = []
    for name, read in reads.items():
        p50, p95 = percentiles([timed(read) for _ in range(DIFF_SAMPLES)])
        figures.append(Figure(
            f"{label}: what changed in what an agent relied on, {name}, first page of 50", p50, "ms p50",
            f"p95 {p95:.1f} ms; the agent recorded {2 * len(stories):,} decisions, {read().count:,} changes listed",
        ))  # fmt: skip
    return figures
