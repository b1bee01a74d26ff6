"""How `make run` serves: gunicorn's size on this machine, and the PostgreSQL connections that size needs."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

from afterhack.env import env_number
from afterhack.errors import UserError


def _env_int(name: str, default: int, *, least: int = 1) -> int:
    value, refusal = env_number(name, default, minimum=least)
    if refusal:
        raise UserError(refusal)
    return value


def cores() -> int:
    """The CPU cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@dataclass(frozen=True)
class Sizing:
    """Processes and threads of the web server and the worker, and the connections they may hold."""

    web_workers: int
    web_threads: int
    worker_concurrency: int
    worker_pool: int
    # The teller: a worker of its own for the `tell` queue (the outbox's dispatcher, webhook deliveries, emails), in
    # threads, so a receiver that hangs for its whole deadline never holds the extraction and the watch, nor them it.
    tell_threads: int = 4
    # Room for `manage.py` commands, the launcher itself and a psql session.
    reserve: int = 10

    @classmethod
    def from_env(cls) -> Sizing:
        """AFTERHACK_WEB_WORKERS (default: cores + 1), AFTERHACK_WEB_THREADS (8), AFTERHACK_WORKER_CONCURRENCY (2),
        AFTERHACK_TELL_THREADS (4)."""
        return cls(
            web_workers=_env_int("AFTERHACK_WEB_WORKERS", cores() + 1),
            web_threads=_env_int("AFTERHACK_WEB_THREADS", 8),
            worker_concurrency=_env_int("AFTERHACK_WORKER_CONCURRENCY", 2),
            worker_pool=2,
            tell_threads=_env_int("AFTERHACK_TELL_THREADS", 4),
        )

    @property
    def web_pool(self) -> int:
        """Connections a web worker may hold: one per thread, so no request waits for another's."""
        return self.web_threads

    @property
    def connections(self) -> int:
        """The most PostgreSQL connections everything `make run` starts can hold at once."""
        # The Celery worker: its main process, the beat scheduler and each child.
        worker_processes = self.worker_concurrency + 2
        teller = self.tell_threads + 1
        return self.web_workers * self.web_pool + worker_processes * self.worker_pool + teller + self.reserve

    def check_fits(self, max_connections: int, reserved: int) -> None:
        """Refuses, in words, a size that could use more connections than PostgreSQL allows."""
        available = max_connections - reserved
        if self.connections > available:
            raise UserError(
                f"{self.web_workers} web workers × {self.web_threads} threads could hold {self.connections} "
                f"PostgreSQL connections with the worker and commands, but the server allows {available} "
                f"(max_connections {max_connections} minus {reserved} reserved). Lower AFTERHACK_WEB_WORKERS "
                "or AFTERHACK_WEB_THREADS, or raise max_connections."
            )

    def describe(self, max_connections: int) -> str:
        return (
            f"{self.web_workers} web workers × {self.web_threads} threads, "
            f"at most {self.connections} of PostgreSQL's {max_connections} connections"
        )


def gunicorn_command(*, port: int, sizing: Sizing) -> list[str]:
    """gunicorn serving the app on 127.0.0.1:`port`: threaded workers, access log on stdout, errors on stderr."""
    return [
        sys.executable, "-m", "gunicorn", "config.wsgi:application",
        "--bind", f"127.0.0.1:{port}",
        # gunicorn's threaded worker, reading each request whole before a thread serves it: a slow client holds
        # no thread (afterhack/web_worker.py).
        "--worker-class", "afterhack.web_worker.WholeRequestWorker",
        "--workers", str(sizing.web_workers),
        "--threads", str(sizing.web_threads),
        # A worker that stops answering its heartbeat for this long is replaced.
        "--timeout", "60",
        # On SIGTERM, requests in flight get this long to finish.
        "--graceful-timeout", "20",
        "--keep-alive", "5",
        # Workers are replaced now and then, so a slow leak cannot grow for ever: each after a count drawn from
        # 5,000 to 10,000 requests. Workers started together share the load evenly, and while a new one loads the
        # app (4 s here, 10 under load) the others serve alone; drawn from 5,000 to 5,500 (issue #23) two of two
        # were replaced within seconds of each other, and nothing was served for about 12 s.
        "--max-requests", "5000", "--max-requests-jitter", "5000",
        "--backlog", "2048",
        "--access-logfile", "-",
        "--access-logformat", '%(h)s "%(r)s" %(s)s %(B)s %(M)sms "%(a)s"',
        "--error-logfile", "-",
        "--capture-output",
        "--name", "afterhack-web",
        # gunicornc is not used; its socket would otherwise be shared by every checkout in ~/.gunicorn.
        "--no-control-socket",
    ]  # fmt: skip
