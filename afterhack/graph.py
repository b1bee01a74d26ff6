"""The one gateway to FalkorDB: per-workspace graph handles, parameterized queries, timing, errors.

No other module imports `falkordb`. A graph is only ever reached through a workspace, whose
graph name is derived from its server-generated UUID, so no request can name a graph.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping
from typing import Any, Protocol

import redis
from django.conf import settings
from falkordb import FalkorDB
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

# The gateway's errors live with the others, so pages and the API can answer them without importing the gateway.
from afterhack.errors import GraphError as GraphError
from afterhack.errors import GraphUnavailable as GraphUnavailable
from afterhack.ids import parse_id

logger = logging.getLogger("afterhack.graph")

Row = list[Any]


class HasGraph(Protocol):
    """Anything that names its graph: a workspace."""

    @property
    def graph_name(self) -> str: ...


# Queries slower than this are logged at INFO (the rest at DEBUG).
SLOW_QUERY_MS = 100.0

# Commands the gateway sends that change data. Resending one after the connection broke while
# waiting for its answer could run it twice (a second node with the same id), so they are never resent.
WRITE_COMMANDS = frozenset({b"GRAPH.QUERY", b"GRAPH.DELETE"})

# Every write that a correction's preview may depend on raises the workspace's revision counter by
# one, in the same query: an Apply is refused when the counter moved since its preview. The guarded
# writes (corrections) match the counter first and set REVISION_PLUS_ONE; the others end with BUMP_REVISION.
REVISION_PLUS_ONE = "w.revision = w.revision + 1"
BUMP_REVISION = "MATCH (w:Workspace) SET " + REVISION_PLUS_ONE


class WriteOutcomeUnknown(redis.exceptions.RedisError):
    """The connection broke after a write was sent: it may or may not have run. Never retried."""


class _NoBlindWriteResend:
    """A redis-py connection that lets the client's retry policy resend a command only when it cannot have run.

    Failing to connect or to send means the server never got a whole command: resent (this is how
    the app reconnects after FalkorDB restarts). A connection that breaks while a write's answer is
    awaited leaves its outcome unknown: raised as WriteOutcomeUnknown, which the retry policy does not catch.
    """

    _awaiting_write = False

    def send_command(self, *args: Any, **kwargs: Any) -> None:
        super().send_command(*args, **kwargs)  # type: ignore[misc]
        name = args[0].encode() if isinstance(args[0], str) else bytes(args[0])
        self._awaiting_write = name.upper() in WRITE_COMMANDS

    def read_response(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().read_response(*args, **kwargs)  # type: ignore[misc]
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as error:
            if not self._awaiting_write:
                raise
            self.disconnect()  # type: ignore[attr-defined]
            raise WriteOutcomeUnknown(f"the connection broke before the write was confirmed: {error}") from error


class _Connection(_NoBlindWriteResend, redis.connection.Connection):
    pass


class _UnixConnection(_NoBlindWriteResend, redis.connection.UnixDomainSocketConnection):
    pass


class _SSLConnection(_NoBlindWriteResend, redis.connection.SSLConnection):
    pass


def _connection_pool(url: str) -> redis.ConnectionPool:
    """A pool for `url` that reconnects by itself: stale connections are found by a PING, then replaced."""
    for scheme, plain in (("falkor://", "redis://"), ("falkors://", "rediss://")):
        if url.startswith(scheme):
            url = plain + url.removeprefix(scheme)
    options = redis.connection.parse_url(url)
    kind = {"unix": _UnixConnection, "rediss": _SSLConnection}.get(url.split(":", 1)[0], _Connection)
    options.pop("connection_class", None)
    return redis.ConnectionPool(
        connection_class=kind,
        decode_responses=True,
        socket_timeout=60,
        socket_connect_timeout=5,
        # A connection idle for a second is PINGed before use: one left over from a server that
        # has since restarted fails the PING, not the query, and is replaced.
        health_check_interval=1,
        # Three quick tries (about a third of a second in all) before the request is answered 503.
        retry=Retry(
            ExponentialBackoff(cap=0.2, base=0.05), retries=3, supported_errors=(redis.exceptions.ConnectionError,)
        ),
        **options,
    )


_clients: dict[str, FalkorDB] = {}
# Queries sent by this process, for cost reports (the benchmark reads it before and after).
_sent = {"queries": 0}
_clients_lock = threading.Lock()


def client() -> FalkorDB:
    """The FalkorDB client for the configured URL (lazy; its connection pool is thread-safe)."""
    url = settings.FALKORDB_URL
    db = _clients.get(url)
    if db is None:
        with _clients_lock:
            db = _clients.get(url)
            if db is None:
                db = _clients[url] = FalkorDB(connection_pool=_connection_pool(url))
    return db


def _run(workspace: HasGraph, cypher: str, params: dict[str, Any] | None, *, read_only: bool) -> list[Row]:
    started = time.perf_counter()
    _sent["queries"] += 1
    try:
        graph = client().select_graph(workspace.graph_name)
        if read_only:
            result = graph.ro_query(cypher, params or {}, timeout=settings.GRAPH_READ_TIMEOUT_MS)
        else:
            result = graph.query(cypher, params or {})
    except redis.exceptions.ResponseError as error:
        if "timed out" in str(error).lower():
            raise GraphUnavailable(
                f"The graph database is too busy: a read ran past its time limit ({error})"
            ) from error
        raise GraphError(f"The graph refused a query: {error}") from error
    except redis.exceptions.RedisError as error:
        raise GraphUnavailable(f"The graph database could not be reached: {error}") from error
    finally:
        elapsed_ms = (time.perf_counter() - started) * 1000
        level = logging.INFO if elapsed_ms >= SLOW_QUERY_MS else logging.DEBUG
        first_line = cypher.strip().split("\n", 1)[0][:80]
        logger.log(level, "graph=%s ro=%s %.1fms %s", workspace.graph_name, read_only, elapsed_ms, first_line)
    return list(result.result_set)


def queries_sent() -> int:
    """How many graph queries this process has sent so far."""
    return _sent["queries"]


def query(workspace: HasGraph, cypher: str, params: dict[str, Any] | None = None) -> list[Row]:
    """Runs one (atomic) write query on the workspace's graph; returns its rows."""
    return _run(workspace, cypher, params, read_only=False)


def ro_query(workspace: HasGraph, cypher: str, params: dict[str, Any] | None = None) -> list[Row]:
    """Runs one read-only query, stopped after GRAPH_READ_TIMEOUT_MS; returns its rows."""
    return _run(workspace, cypher, params, read_only=True)


# Queries whose rows are read field by field return ONE map a row (`RETURN x {...} AS x`), read by name, so that
# reordering what a query returns cannot scramble fields. Aggregates go in a WITH before the map: an aggregate
# inside a map literal mis-groups in FalkorDB.


def records(workspace: HasGraph, cypher: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Runs one (atomic) write query that returns one map a row; returns the maps."""
    return [row[0] for row in query(workspace, cypher, params)]


def ro_records(workspace: HasGraph, cypher: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Runs one read-only query that returns one map a row; returns the maps."""
    return [row[0] for row in ro_query(workspace, cypher, params)]


def ro_records_of(workspace: HasGraph, cypher: str, **node_ids: str) -> list[dict[str, Any]]:
    """`ro_records` of a read about nodes given by id (the only parameters); none, without asking the graph,
    when one of them is not an id (nothing could match it)."""
    if any(parse_id(i) is None for i in node_ids.values()):
        return []
    return ro_records(workspace, cypher, node_ids)


def order_by(columns: Mapping[str, str], *, sort: str, descending: bool, tiebreak: str) -> str:
    """The ORDER BY of a page of a list (afterhack/listing.py): the column expression of the sort key, chosen
    from the caller's constants (never text from a request), then `tiebreak` in the same direction, so that
    rows with equal values keep one order and pages never overlap."""
    direction = " DESC" if descending else ""
    return " ORDER BY " + columns[sort] + direction + ", " + tiebreak + direction + " "


def graph_delete(workspace: HasGraph) -> None:
    """Deletes the workspace's graph and everything in it (nothing if it does not exist)."""
    delete_graph_named(workspace.graph_name)


def delete_graph_named(name: str) -> None:
    """Deletes a graph by name (nothing if it does not exist); for lifecycle, tests and operations."""
    try:
        client().select_graph(name).delete()
    except redis.exceptions.ResponseError as error:
        if "empty key" not in str(error).lower() and "invalid graph" not in str(error).lower():
            raise GraphError(f"The graph could not be deleted: {error}") from error
    except redis.exceptions.RedisError as error:
        raise GraphUnavailable(f"The graph database could not be reached: {error}") from error


def list_graph_names() -> list[str]:
    """Names of every graph on the server (for tests and operations, never for requests)."""
    try:
        return list(client().list_graphs())
    except redis.exceptions.RedisError as error:
        raise GraphUnavailable(f"The graph database could not be reached: {error}") from error


def server_version() -> str:
    """The FalkorDB module version the server reports (for benchmark reports)."""
    try:
        modules = client().connection.execute_command("MODULE", "LIST")
    except redis.exceptions.RedisError as error:
        raise GraphUnavailable(f"The graph database could not be reached: {error}") from error
    for module in modules:
        if str(module.get("name", "")).lower() in ("graph", "falkordb"):
            version = int(module.get("ver", 0))
            return f"{version // 10000}.{version // 100 % 100}.{version % 100}"
    return "unknown"


def ping() -> None:
    """Raises GraphError unless the FalkorDB server answers."""
    try:
        client().connection.ping()
    except redis.exceptions.RedisError as error:
        raise GraphUnavailable(f"The graph database could not be reached: {error}") from error


def redis_mode(url: str) -> str | None:
    """What the Redis server at `url` says it is (`redis_mode` of INFO: 'cluster' or 'standalone'),
    or None when it does not answer within two seconds. One short-lived connection, for start-up checks."""
    for scheme, plain in (("falkor://", "redis://"), ("falkors://", "rediss://")):
        if url.startswith(scheme):
            url = plain + url.removeprefix(scheme)
    try:
        probe = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2, decode_responses=True)
        try:
            return str(probe.info("server").get("redis_mode", "standalone"))
        finally:
            probe.close()
    except (redis.exceptions.RedisError, ValueError, OSError):
        return None
