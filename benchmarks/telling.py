"""Benchmark of telling (`make bench BENCH_ARGS="--only telling"`): corrections applied at a steady rate in one
workspace with webhook endpoints on a local receiver, and a teller worker (the `tell` queue, in threads, as `make run`
starts it) dispatching the outbox and sending: how long from Apply's answer until the receiver has the signed
`correction.applied`, p50 / p99 over every delivery; and Apply's own time meanwhile."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from django.conf import settings
from standardwebhooks import Webhook

from afterhack import graph
from benchmarks.claims import Figure
from benchmarks.loadtest import ROOT, server_env
from claims.services import claims as claims_services
from claims.services import sources as sources_services
from claims.signals import claims_current
from corrections.services import apply as apply_services
from corrections.services.preview import preview
from corrections.services.watch import claims_current_received
from webhooks.models import Attempt
from webhooks.services.endpoints import endpoint_create
from workspaces.services import workspaces as workspace_services


class Receiver:
    """A local webhook receiver: when each (endpoint path, correction) first arrived, and whether it verified."""

    def __init__(self) -> None:
        self.arrived: dict[tuple[str, str], float] = {}
        self.secrets: dict[str, str] = {}
        self.unverified = 0
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                at = time.time()
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                try:
                    Webhook(receiver.secrets[self.path]).verify(body, dict(self.headers))
                    key = (self.path, json.loads(body)["data"]["correction_id"])
                except Exception:  # noqa: BLE001 - counted: a delivery that does not verify is a failure
                    with receiver.lock:
                        receiver.unverified += 1
                    key = None
                if key is not None:
                    with receiver.lock:
                        receiver.arrived.setdefault(key, at)
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        ThreadingHTTPServer.request_queue_size = 256  # a burst of deliveries at once is not refused
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@contextmanager
def teller(threads: int = 4) -> Iterator[subprocess.Popen[bytes]]:
    """The teller worker as `make run` starts it, on this process's stores and broker, with the beat (whose sweeps
    send what is due: a retry, a message whose queued task found it not due yet)."""
    env = {
        **os.environ,
        **server_env(),
        "CELERY_BROKER_URL": settings.SERVICES.broker_url,
        "AFTERHACK_DB_POOL_SIZE": str(threads + 1),
    }
    command = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "config",
        "worker",
        "--loglevel=WARNING",
        "-Q",
        settings.AFTERHACK_TELL_QUEUE,
        "--pool=threads",
        f"--concurrency={threads}",
        "-n",
        f"bench-teller-{uuid.uuid4().hex[:6]}@%h",
        "-B",
        "-s",
        str(Path(settings.DATA_DIR) / "bench-celerybeat-schedule"),
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
    ]
    process = subprocess.Popen(command, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()


def _claims(workspace: Any, user: Any, count: int) -> list[str]:
    sentences = [f"Item {i} ships in June." for i in range(count)]
    source = sources_services.source_add(
        workspace=workspace, title="Shipping plan", text=" ".join(sentences), actor=user
    )
    return [
        claims_services.claim_add(
            workspace=workspace, source_id=source.id, statement=s, evidence_quote=s[:-1], actor=user
        ).id
        for s in sentences
    ]


def _warm_up(workspace: Any, user: Any, claim_id: str, receiver: Receiver, endpoints: int) -> None:
    statement = "Item 0 ships in July, warming up."
    seen = preview(workspace=workspace, claim_id=claim_id, statement=statement)
    outcome = apply_services.apply(workspace=workspace, claim_id=claim_id, statement=statement, reason="Warm-up.",
                                   revision=seen.fingerprint, idempotency_key="bench-warm-up", actor=user)  # fmt: skip
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if sum(key[1] == outcome.correction_id for key in receiver.arrived) >= endpoints:
            return
        time.sleep(0.1)
    raise RuntimeError("the teller worker did not tell the warm-up correction within 2 minutes")


def _tenths(answered: dict[str, float], receiver: Receiver) -> list[list[float]]:
    """The latencies of each tenth of the run, in the order the corrections were applied."""
    order = list(answered.items())
    size = max(1, len(order) // 10)
    return [
        [
            receiver.arrived[(path, c)] - at
            for c, at in order[i : i + size]
            for path in receiver.secrets
            if (path, c) in receiver.arrived
        ]
        for i in range(0, len(order), size)
    ]


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def bench_telling(user: Any, *, rate: float = 20.0, seconds: float = 30.0, endpoints: int = 10) -> list[Figure]:
    """Corrections at `rate` a second for `seconds`, each told to `endpoints` webhooks by a teller worker."""
    workspace = workspace_services.workspace_create(name="Benchmark telling", creator=user)
    receiver = Receiver()
    # The watch is not what is measured here (and no worker of its queue runs).
    claims_current.disconnect(dispatch_uid="corrections.watch")
    try:
        for n in range(endpoints):
            made = endpoint_create(
                workspace=workspace, url=f"{receiver.url}/hook/{n}", events=["correction.applied"], actor=user
            )
            receiver.secrets[f"/hook/{n}"] = made.secret
        count = int(rate * seconds)
        claim_ids = _claims(workspace, user, count + 1)
        warm_up, claim_ids = claim_ids[0], claim_ids[1:]
        answered: dict[str, float] = {}
        apply_ms: list[float] = []
        with teller():
            # Measured once the worker is up: one correction told to every endpoint first (not counted).
            _warm_up(workspace, user, warm_up, receiver, endpoints)
            start = time.monotonic()
            for i, claim_id in enumerate(claim_ids):
                wait = start + i / rate - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
                statement = f"Item {i} ships in July."
                seen = preview(workspace=workspace, claim_id=claim_id, statement=statement)
                began = time.perf_counter()
                outcome = apply_services.apply(
                    workspace=workspace,
                    claim_id=claim_id,
                    statement=statement,
                    reason="The supplier slipped.",
                    revision=seen.fingerprint,
                    idempotency_key=f"bench-{i}",
                    actor=user,
                )
                apply_ms.append((time.perf_counter() - began) * 1000)
                answered[outcome.correction_id] = time.time()
            deadline = time.monotonic() + 60
            while len(receiver.arrived) < count * endpoints and time.monotonic() < deadline:
                time.sleep(0.2)
        failures = Counter(
            Attempt.objects.filter(message__endpoint__workspace=workspace)
            .exclude(status_code__gte=200, status_code__lt=300)
            .values_list("error", flat=True)
        )
        latencies = [
            receiver.arrived[(path, correction)] - at
            for correction, at in answered.items()
            for path in receiver.secrets
            if (path, correction) in receiver.arrived
        ]
    finally:
        claims_current.connect(claims_current_received, dispatch_uid="corrections.watch")
        receiver.server.shutdown()
        graph.graph_delete(workspace)
    expected = count * endpoints
    detail = (
        f"{count} corrections at {rate:g}/s, {endpoints} endpoints: {len(latencies):,} of {expected:,} "
        f"delivered within a minute, {receiver.unverified} unverified; failed attempts: "
        f"{sum(failures.values())} ({'; '.join(f'{n}× {e[:80]}' for e, n in failures.most_common(2)) or 'none'})"
    )
    return [
        Figure(
            "Apply → receiver, p50", statistics.median(latencies) * 1000 if latencies else float("nan"), "ms", detail
        ),
        Figure(
            "Apply → receiver, p99", _percentile(latencies, 0.99) * 1000 if latencies else float("nan"), "ms", detail
        ),
        Figure(
            "Apply → receiver, within 1 s",
            100 * sum(x <= 1 for x in latencies) / max(1, len(latencies)),
            "%",
            "p99 (s) by tenths of the run: "
            + " ".join(f"{_percentile(part, 0.99):.1f}" for part in _tenths(answered, receiver) if part),
        ),
        Figure(
            "Apply meanwhile, p50",
            statistics.median(apply_ms),
            "ms",
            f"p95 {_percentile(apply_ms, 0.95):.1f} ms; the service call, the teller dispatching and sending",
        ),
    ]
