"""Concurrent clients against a served Afterhack, for the load test in the suite and `make bench`.

Each client is a thread with its own keep-alive HTTP connection, sending a mix of reads,
searches and source creates through the JSON API. Clients run in several processes (spawned,
not forked) so that the client side is not what limits the figures.
"""

from __future__ import annotations

import http.client
import json
import multiprocessing
import os
import random
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SEARCHES = ["launch", "June", "customer", "announcement", "When is the launch?", "budget approval"]
WORDS = "launch customer budget plan region supplier review quarter market office invoice target".split()


@dataclass
class Target:
    """Where the clients send requests, and as whom."""

    base_url: str
    token: str
    workspace_id: str


@dataclass
class LoadReport:
    """What the clients saw: every answer's status (or connection error), latencies, and what they created."""

    clients: int
    seconds: float
    latencies_ms: list[float] = field(default_factory=list)
    outcomes: Counter[str] = field(default_factory=Counter)
    created: list[tuple[str, str]] = field(default_factory=list)
    unavailable_bodies: list[dict[str, Any]] = field(default_factory=list)

    def merge(self, other: LoadReport) -> None:
        self.latencies_ms += other.latencies_ms
        self.outcomes.update(other.outcomes)
        self.created += other.created
        self.unavailable_bodies += other.unavailable_bodies[:20]

    @property
    def requests(self) -> int:
        return sum(self.outcomes.values())

    @property
    def server_errors(self) -> int:
        """Answers 500 and above."""
        return sum(n for outcome, n in self.outcomes.items() if outcome.isdigit() and int(outcome) >= 500)

    @property
    def connection_errors(self) -> int:
        """Requests that got no HTTP answer at all."""
        return sum(n for outcome, n in self.outcomes.items() if not outcome.isdigit())

    def percentile(self, p: float) -> float:
        if not self.latencies_ms:
            return 0.0
        ordered = sorted(self.latencies_ms)
        return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]

    def summary(self) -> str:
        rate = self.requests / self.seconds if self.seconds else 0.0
        return (
            f"{self.clients} clients: {rate:,.0f} requests/s, p50 {self.percentile(50):.0f} ms, "
            f"p95 {self.percentile(95):.0f} ms, p99 {self.percentile(99):.0f} ms, "
            f"{self.server_errors} 5xx, {self.connection_errors} connection errors, {len(self.created)} sources created"
        )


class Client:
    """One simulated user: a keep-alive connection and a random mix of calls."""

    def __init__(self, target: Target, rng: random.Random, report: LoadReport, lock: threading.Lock) -> None:
        self.target, self.rng, self.report, self.lock = target, rng, report, lock
        parsed = urllib.parse.urlsplit(target.base_url)
        self.host, self.port = parsed.hostname or "127.0.0.1", parsed.port or 80
        self.connection: http.client.HTTPConnection | None = None
        self.api = f"/api/v1/workspaces/{target.workspace_id}"
        self.known_sources: list[str] = []

    def request(self, method: str, path: str, body: dict[str, Any] | None = None) -> tuple[str, Any]:
        """One call; returns the status as text (or the connection error's name) and the JSON answer."""
        headers = {"Authorization": f"Bearer {self.target.token}", "Accept": "application/json"}
        payload = None
        if body is not None:
            payload = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        started = time.perf_counter()
        try:
            if self.connection is None:
                self.connection = http.client.HTTPConnection(self.host, self.port, timeout=60)
            self.connection.request(method, path, body=payload, headers=headers)
            answer = self.connection.getresponse()
            raw = answer.read()
            outcome = str(answer.status)
            if answer.getheader("Connection", "").lower() == "close":
                self.close()
        except (OSError, http.client.HTTPException) as error:
            self.close()
            outcome, raw = type(error).__name__, b""
        elapsed = (time.perf_counter() - started) * 1000
        try:
            data = json.loads(raw) if raw else None
        except ValueError:
            data = None
        with self.lock:
            self.report.latencies_ms.append(elapsed)
            self.report.outcomes[outcome] += 1
            if outcome == "503" and isinstance(data, dict):
                self.report.unavailable_bodies.append(data)
        return outcome, data

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None

    def step(self) -> None:
        roll = self.rng.random()
        if roll < 0.15:
            title = f"Load {self.rng.randrange(10**12)}"
            text = " ".join(self.rng.choice(WORDS) for _ in range(40)) + "."
            outcome, data = self.request("POST", f"{self.api}/sources", {"title": title, "text": text})
            if outcome == "201" and isinstance(data, dict):
                self.known_sources.append(data["id"])
                with self.lock:
                    self.report.created.append((data["id"], title))
        elif roll < 0.40:
            query = urllib.parse.quote(self.rng.choice(SEARCHES))
            self.request("GET", f"{self.api}/claims?q={query}")
        elif roll < 0.55 and self.known_sources:
            self.request("GET", f"{self.api}/sources/{self.rng.choice(self.known_sources)}")
        elif roll < 0.70:
            self.request("GET", f"{self.api}/decisions")
        elif roll < 0.85:
            self.request("GET", f"{self.api}/sources")
        else:
            self.request("GET", "/api/v1/workspaces")

    def run(self, until: float) -> None:
        while time.monotonic() < until:
            self.step()
        self.close()


def _clients_in_process(target: Target, clients: int, seconds: float, seed: int) -> LoadReport:
    report, lock = LoadReport(clients=clients, seconds=seconds), threading.Lock()
    until = time.monotonic() + seconds
    threads = [
        threading.Thread(target=Client(target, random.Random(seed * 1000 + i), report, lock).run, args=(until,))
        for i in range(clients)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return report


def run_load(target: Target, *, clients: int, seconds: float, processes: int = 0) -> LoadReport:
    """`clients` concurrent clients for `seconds`, spread over `processes` client processes (0: one per 16)."""
    processes = processes or max(1, min(clients // 16, 8))
    shares = [clients // processes + (1 if i < clients % processes else 0) for i in range(processes)]
    report = LoadReport(clients=clients, seconds=seconds)
    context = multiprocessing.get_context("spawn")
    with context.Pool(processes) as pool:
        parts = [pool.apply_async(_clients_in_process, (target, n, seconds, i)) for i, n in enumerate(shares)]
        for part in parts:
            report.merge(part.get(timeout=seconds + 180))
    return report


def unreadable(target: Target, created: list[tuple[str, str]]) -> list[str]:
    """The acknowledged creates that cannot be read back with the title they were created with."""
    missing = []
    for source_id, title in created:
        request = urllib.request.Request(
            f"{target.base_url}/api/v1/workspaces/{target.workspace_id}/sources/{source_id}",
            headers={"Authorization": f"Bearer {target.token}"},
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                if json.load(answer).get("title") != title:
                    missing.append(source_id)
        except OSError:
            missing.append(source_id)
    return missing


# -- serving, for the benchmark --------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_healthy(base_url: str, *, seconds: float = 60) -> bool:
    """True once GET /healthz answers 200 (polled every 0.1 s), False after `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{base_url}/healthz", timeout=2) as answer:
                if answer.status == 200:
                    return True
        except OSError:
            pass
        time.sleep(0.1)
    return False


def server_env() -> dict[str, str]:
    """The environment of a web server on this process's stores, quiet in its logs."""
    from django.conf import settings

    return {
        "DATABASE_URL": settings.SERVICES.database_url,
        "FALKORDB_URL": settings.SERVICES.falkordb_url,
        # With DATABASE_URL set a server refuses to start without a shared key: this process's own.
        "DJANGO_SECRET_KEY": settings.SECRET_KEY,
        "AFTERHACK_LOG_LEVEL": "WARNING",
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }


def start_web_server(kind: str, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], str]:
    """The app served by gunicorn as `make run` serves it, or by Django's development server; waits until healthy."""
    from afterhack.serving import Sizing, gunicorn_command

    port = free_port()
    if kind == "gunicorn":
        sizing = Sizing.from_env()
        command = gunicorn_command(port=port, sizing=sizing)
        env = {**env, "AFTERHACK_DB_POOL_SIZE": str(sizing.web_pool)}
    else:
        command = [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload", "--skip-checks"]
    server = subprocess.Popen(
        command, env={**os.environ, **env}, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    base_url = f"http://127.0.0.1:{port}"
    if not wait_healthy(base_url):
        server.kill()
        raise RuntimeError(f"the {kind} server did not become healthy within 60 s")
    return server, base_url


# -- the benchmark ---------------------------------------------------------------------


@dataclass(frozen=True)
class LoadFigure:
    server: str
    report: LoadReport


def bench_load(*, token: str, workspace_id: str, levels: list[int], seconds: float) -> list[LoadFigure]:
    """The mixed workload at each level of concurrency, served by gunicorn and then by the development server."""
    env = server_env()
    figures = []
    # The development server as it would run without the launcher's sizing: a connection per request.
    for kind, extra in (("gunicorn", {}), ("runserver", {"AFTERHACK_DB_POOL_SIZE": "0"})):
        server, base_url = start_web_server(kind, {**env, **extra})
        try:
            target = Target(base_url, token, workspace_id)
            # A short warm-up: workers import, pools fill, caches load.
            run_load(target, clients=4, seconds=2)
            for clients in levels:
                figures.append(LoadFigure(kind, run_load(target, clients=clients, seconds=seconds)))
                wait_healthy(base_url, seconds=30)
        finally:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
    return figures
