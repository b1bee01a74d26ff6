"""The one gateway to FalkorDB: per-workspace graph handles, parameterized queries, timing, errors.

No other module imports `falkordb`. A graph is only ever reached through a workspace, whose
graph name is derived from its server-generated UUID, so no request can name a graph.

Longer than 400 lines for one reason to change: it is the one gateway to FalkorDB (connections that never resend a
write, the cluster client, queries with their timing and errors, and the server commands), so nothing else does.
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
from redis.cluster import ClusterNode, RedisCluster
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


def redis_url(url: str) -> str:
    """`url` in the scheme redis-py reads: FalkorDB's `falkor://` and `falkors://` are `redis://` and `rediss://`."""
    for scheme, plain in (("falkor://", "redis://"), ("falkors://", "rediss://")):
        if url.startswith(scheme):
            return plain + url.removeprefix(scheme)
    return url


def _connection_pool(url: str) -> redis.ConnectionPool:
    """A pool for `url` that reconnects by itself: stale connections are found by a PING, then replaced."""
    url = redis_url(url)
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
        retry=_retry(),
        **options,
    )


def _retry() -> Retry:
    # Three quick tries (about a third of a second in all) before the request is answered 503.
    return Retry(
        ExponentialBackoff(cap=0.2, base=0.05), retries=3, supported_errors=(redis.exceptions.ConnectionError,)
    )


def cluster_nodes(value: str) -> list[tuple[str, int]]:
    """FALKORDB_CLUSTER_NODES (`host:port,host:port`) as (host, port) pairs; ValueError, in words, if malformed."""
    nodes = []
    for item in (part.strip() for part in value.split(",")):
        if not item:
            continue
        host, _, port = item.rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"FALKORDB_CLUSTER_NODES: {item!r} is not host:port (as in 10.0.0.5:6379).")
        nodes.append((host.strip("[]"), int(port)))
    return nodes


def _cluster_client(url: str, nodes: list[tuple[str, int]]) -> RedisCluster:
    """A cluster client on `nodes` (or the node `url` names), with the gateway's connections (no blind resends).

    Built here rather than by `FalkorDB.from_url`, which fails on a cluster node (falkordb 1.8.1: Cluster_Conn pops
    "username" from the pool's connection kwargs, absent when the URL names no user) and would not keep
    _NoBlindWriteResend: its cluster client makes plain connections.
    """
    url = redis_url(url)
    options = redis.connection.parse_url(url)
    if int(options.get("db") or 0) != 0:
        raise GraphUnavailable(f"FALKORDB_URL names database {options['db']}; a FalkorDB cluster has only database 0.")
    secure = url.startswith("rediss://")
    startup = nodes or [(options.get("host") or "localhost", int(options.get("port") or 6379))]
    extra = {key: options[key] for key in ("username", "password") if options.get(key)}
    first_host, first_port = startup[0]
    return RedisCluster(
        # Given a URL, redis-py builds each node's pool with the connection class given here (without one, it
        # refuses connection_class); plain redis:// so that its parsing does not put back the stock SSLConnection.
        url=f"redis://{first_host}:{first_port}/0",
        startup_nodes=[ClusterNode(host, port) for host, port in startup[1:]],
        connection_class=_SSLConnection if secure else _Connection,
        decode_responses=True,
        socket_timeout=60,
        socket_connect_timeout=5,
        health_check_interval=1,
        # No load_balancing_strategy: reads and writes go to the primary of the graph's key (read-your-writes).
        # A shard without a primary (during a failover) must not stop the others answering.
        require_full_coverage=False,
        retry=_retry(),
        **extra,
    )


def _mode_of(server: redis.Redis) -> str:
    """What a Redis server says it is: `redis_mode` of INFO server ('cluster' or 'standalone').

    The one reading of it, for the gateway's client (on its own pool) and for start-up checks (a one-off probe).
    """
    return str(server.info("server").get("redis_mode", "standalone"))


def _names_a_cluster(pool: redis.ConnectionPool) -> bool:
    """True if the server the pool reaches is a cluster node."""
    if pool.connection_class is _UnixConnection:
        return False  # a cluster is reached over TCP only
    return _mode_of(redis.Redis(connection_pool=pool)) == "cluster"


_clients: dict[tuple[str, str], FalkorDB] = {}
# Queries sent by this process, for cost reports (the benchmark reads it before and after).
_sent = {"queries": 0}
_sent_lock = threading.Lock()  # a request and its reader threads count together
_clients_lock = threading.Lock()


class _ClusterFalkorDB(FalkorDB):
    """The `falkordb` client on a cluster client built by the gateway (FalkorDB() would connect by itself).

    Its graphs send their commands through `execute_command`: writes go through `_replicated_write`.
    """

    def __init__(self, connection: RedisCluster, wait_ms: int) -> None:
        self.connection = connection
        self.flushdb = connection.flushdb
        self.wait_ms = wait_ms
        self.execute_command = self._execute

    def _execute(self, *args: Any, **kwargs: Any) -> Any:
        name = args[0].encode() if isinstance(args[0], str) else bytes(args[0])
        if self.wait_ms > 0 and name.upper() in WRITE_COMMANDS and not kwargs:
            return _replicated_write(self.connection, self.wait_ms, *args)
        return self.connection.execute_command(*args, **kwargs)


# A write the cluster refused without running it (the slot moved, is moving, or has no primary yet): safe to resend
# once the slot map is read again.
_NOT_RUN = (
    redis.exceptions.MovedError,
    redis.exceptions.AskError,
    redis.exceptions.TryAgainError,
    redis.exceptions.ClusterDownError,
)


def _replicated_write(cluster: RedisCluster, wait_ms: int, *args: Any) -> Any:
    """Sends a write to its key's primary, then `WAIT 1 wait_ms` on the SAME connection; the write's answer.

    Redis replication is asynchronous: a write the primary acknowledged is lost if the primary dies before its
    replica got it. WAIT returns once the replica has it (or after wait_ms): so an answered write survives the loss
    of its primary, unless WAIT timed out (replica down or lagging), which is logged; a WAIT that cannot be asked
    (the primary died just after answering the write) raises WriteOutcomeUnknown. WAIT only counts the writes of
    its own connection, hence one connection taken from the node's pool for both. A write that failed to connect or
    be sent, or that the cluster refused unrun (MOVED, ASK, TRYAGAIN, CLUSTERDOWN), is resent after the slot map is
    read again; one whose answer was lost raises WriteOutcomeUnknown (the connection class), never resent.
    """
    key = args[1]
    attempts = 4
    for attempt in range(1, attempts + 1):
        pool = cluster.get_redis_connection(cluster.get_node_from_key(key)).connection_pool
        connection = None
        try:
            connection = pool.get_connection()
            connection.send_command(*args)
            answer = connection.read_response()
        except (*_NOT_RUN, redis.exceptions.ConnectionError):
            # Not run: for a ConnectionError, _NoBlindWriteResend raises one only if the write was never whole sent.
            if connection is not None:
                connection.disconnect()
                pool.release(connection)
            if attempt == attempts:
                raise
            time.sleep(0.05 * attempt)
            cluster.nodes_manager.initialize()
            continue
        except BaseException:
            if connection is not None:
                pool.release(connection)
            raise
        try:
            connection.send_command("WAIT", 1, wait_ms)
            replicas = int(connection.read_response())
        except redis.exceptions.RedisError as error:
            # The write ran, but its primary may have died before any replica had it: not an acknowledged write.
            connection.disconnect()
            logger.warning("graph=%s write ran; its replica could not be asked (%s)", key, error)
            raise WriteOutcomeUnknown(f"the write ran but its replica could not be asked: {error}") from error
        finally:
            pool.release(connection)
        if replicas < 1:
            logger.warning("graph=%s write done but not confirmed by a replica within %dms", key, wait_ms)
        return answer
    raise AssertionError("unreachable")


def client() -> FalkorDB:
    """The FalkorDB client for the configured URL or cluster nodes (lazy; its connection pools are thread-safe).

    FALKORDB_CLUSTER_NODES (host:port, comma-separated) names a cluster's nodes; otherwise FALKORDB_URL names a single
    server or any node of a cluster, which is detected (INFO server: redis_mode cluster) when the client is made.
    """
    url = settings.FALKORDB_URL
    nodes_setting = getattr(settings, "FALKORDB_CLUSTER_NODES", "")
    key = (url, nodes_setting)
    db = _clients.get(key)
    if db is None:
        with _clients_lock:
            db = _clients.get(key)
            if db is None:
                try:
                    nodes = cluster_nodes(nodes_setting)
                except ValueError as error:
                    raise GraphUnavailable(str(error)) from error
                pool = _connection_pool(url)
                if nodes or _names_a_cluster(pool):
                    pool.disconnect()
                    logger.info("FalkorDB cluster mode: %s", nodes_setting or url)
                    db = _ClusterFalkorDB(_cluster_client(url, nodes), settings.FALKORDB_CLUSTER_WAIT_MS)
                else:
                    db = FalkorDB(connection_pool=pool)
                _clients[key] = db
    return db


def is_cluster() -> bool:
    """True when the configured FalkorDB is a cluster."""
    return isinstance(client().connection, RedisCluster)


def _each_primary(command: str, *args: Any) -> list[Any]:
    """Sends a command to every primary of the cluster; its answers in node order. Topology refreshed once if stale."""
    connection = client().connection
    assert isinstance(connection, RedisCluster)
    for attempt in (1, 2):
        try:
            return [
                connection.get_redis_connection(node).execute_command(command, *args)
                for node in connection.get_primaries()
            ]
        except redis.exceptions.ConnectionError:
            if attempt == 2:
                raise
            connection.nodes_manager.initialize()  # a primary may have failed over since the map was read
    return []


def _every_server(command: str, *args: Any) -> list[Any]:
    """A whole-server command's answers: the server's, or each primary's of a cluster (never for requests)."""
    try:
        if is_cluster():
            return _each_primary(command, *args)
        return [client().connection.execute_command(command, *args)]
    except redis.exceptions.RedisError as error:
        raise GraphUnavailable(f"The graph database could not be reached: {error}") from error


def _run(workspace: HasGraph, cypher: str, params: dict[str, Any] | None, *, read_only: bool) -> list[Row]:
    return list(_result(workspace, cypher, params, read_only=read_only).result_set)


def _result(workspace: HasGraph, cypher: str, params: dict[str, Any] | None, *, read_only: bool) -> Any:
    started = time.perf_counter()
    with _sent_lock:
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
    return result


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


def ro_columns_of(workspace: HasGraph, cypher: str, **node_ids: str) -> list[dict[str, Any]]:
    """`ro_records_of` for a read of many rows of plain values: the query returns named columns
    (`RETURN c.id AS id, …`), and each row comes back as a dict keyed by its columns' names, so it is still read
    by name. A map a row costs FalkorDB and its client several times more to build and parse (5,000 rows of seven
    fields: 30 ms as columns, 60-175 ms as maps)."""
    if any(parse_id(i) is None for i in node_ids.values()):
        return []
    result = _result(workspace, cypher, dict(node_ids), read_only=True)
    names = [_text(name) for _, name in result.header]
    return [dict(zip(names, row, strict=True)) for row in result.result_set]


def _text(name: str | bytes) -> str:
    return name.decode() if isinstance(name, bytes) else name


def ro_records_of(workspace: HasGraph, cypher: str, **node_ids: str) -> list[dict[str, Any]]:
    """`ro_records` of a read about nodes given by id (the only parameters); none, without asking the graph,
    when one of them is not an id (nothing could match it)."""
    if any(parse_id(i) is None for i in node_ids.values()):
        return []
    return ro_records(workspace, cypher, node_ids)


def order_by(columns: Mapping[str, str], *, sort: str, descending: bool, tiebreak: str) -> str:
    """The ORDER BY of a page of a list (afterhack/lists/spec.py): the column expression of the sort key, chosen
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
    """Names of every graph on the server, or on every primary of a cluster (for tests and operations, never for
    requests)."""
    return sorted({name for names in _every_server("GRAPH.LIST") for name in names})


def server_version() -> str:
    """The FalkorDB module version the server reports (for benchmark reports)."""
    for module in _every_server("MODULE", "LIST")[0]:
        if str(module.get("name", "")).lower() in ("graph", "falkordb"):
            version = int(module.get("ver", 0))
            return f"{version // 10000}.{version // 100 % 100}.{version % 100}"
    return "unknown"


def ping() -> None:
    """Raises GraphError unless the FalkorDB server (every primary of a cluster) answers."""
    _every_server("PING")


def persisting() -> bool:
    """Whether the server (every primary of a cluster) is rewriting its append-only file or saving a snapshot in the
    background now: a benchmark waits for it to end, lest it time the rewrite's competition for the disk."""
    return any(
        int(info.get("aof_rewrite_in_progress", 0)) or int(info.get("rdb_bgsave_in_progress", 0))
        for info in _every_server("INFO", "persistence")
    )


# -- backups (`manage.py backup` / `restore`): a graph's key in the server's own serialized form ----------------


def graph_dump(name: str) -> bytes | None:
    """The graph's key serialized by the server (DUMP; on a cluster, by the primary of its slot), or None if there is
    no such graph. The payload carries
    the server's RDB and FalkorDB encoding versions: it restores on the same or a newer FalkorDB, not an older one."""
    try:
        payload = client().connection.dump(name)
    except redis.exceptions.RedisError as error:
        raise GraphUnavailable(f"The graph database could not be reached: {error}") from error
    return bytes(payload) if payload is not None else None


def graph_restore(name: str, payload: bytes) -> None:
    """Puts a graph back from graph_dump's payload under the name it was dumped from, replacing a graph of that
    name. (Restored under another name, FalkorDB 4.22 keeps the old name inside the graph: use GRAPH.COPY to copy.)"""
    db = client()
    try:
        if isinstance(db, _ClusterFalkorDB) and db.wait_ms > 0:
            # Routed to the primary of the graph's slot, as every key is, and waited for like any write there. RESTORE
            # REPLACE may run twice harmlessly: resent as any command is.
            _replicated_write(db.connection, db.wait_ms, "RESTORE", name, 0, payload, "REPLACE")
        else:
            db.connection.restore(name, 0, payload, replace=True)
    except redis.exceptions.ResponseError as error:
        raise GraphError(f"The graph {name} could not be restored: {error}") from error
    except redis.exceptions.RedisError as error:
        raise GraphUnavailable(f"The graph database could not be reached: {error}") from error


def names_a_cluster(url: str, nodes: str = "") -> bool:
    """For start-up checks: True when `nodes` (FALKORDB_CLUSTER_NODES) lists a cluster's nodes, or the server at `url`
    says it is a cluster node, as client() decides. A server that does not answer is not called a cluster."""
    return bool(nodes.strip()) or redis_mode(url) == "cluster"


def redis_mode(url: str) -> str | None:
    """What the Redis server at `url` says it is (_mode_of: 'cluster' or 'standalone'), or None when it does not
    answer within two seconds. One short-lived connection of its own, for start-up checks: it builds no gateway
    pool, as `url` may name the Celery broker rather than FalkorDB."""
    url = redis_url(url)
    try:
        probe = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2, decode_responses=True)
        try:
            return _mode_of(probe)
        finally:
            probe.close()
    except (redis.exceptions.RedisError, ValueError, OSError):
        return None
