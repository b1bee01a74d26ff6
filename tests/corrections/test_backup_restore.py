"""Backup and restore on the real stores (docs/deployment.md, "Backups and restore"): the June → July story is
backed up with `manage.py backup`, both stores are wiped (the graph deleted, every table emptied), `manage.py
restore` puts them back, and the same answers come back — the claim, the decision as of before the correction,
the changes, the corrections list and the audit trail. Then the same with FalkorDB's own files (its RDB and its
append-only dir) on private servers in a temp dir."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
import redis
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import override_settings

from afterhack import embedded, graph
from tests.conftest import api_for
from tests.corrections.conftest import World, june_to_july
from tests.waiting import wait_until
from workspaces.models import AuditEvent, Workspace

# Real dumps: the rows must be committed for pg_dump (another connection) to see them.
pytestmark = pytest.mark.django_db(transaction=True)


def answers(world: World, client: Any, launch: str, before: str) -> dict[str, Any]:
    """What the story answers through the API, and the audit trail's rows."""

    def get(path: str, **params: str) -> Any:
        answer = client.get(f"/workspaces/{world.ws}/{path}" + ("?" + urlencode(params) if params else ""))
        assert answer.status_code == 200, (path, answer.content)
        return answer.json()

    return {
        "claim": get(f"claims/{world.june}"),
        "claim_before": get(f"claims/{world.june}", as_of=before),
        "decision_before": get(f"decisions/{launch}", as_of=before),
        "decision": get(f"decisions/{launch}"),
        "changes": get("changes", **{"from": "2000-01-01T00:00:00Z"}),
        "corrections": get("corrections"),
        "audit": list(
            AuditEvent.objects.order_by("id").values_list(
                "id", "verb", "actor_name", "workspace_id", "target", "payload", "created_at"
            )
        ),
    }


def test_a_backup_restores_the_same_answers_after_both_stores_are_wiped(world: World, tmp_path: Path) -> None:
    launch, _, before, _ = june_to_july(world)
    # One client, its token issued before the backup: the restored database must still know it.
    client = api_for(world.trio.viewer)
    kept = answers(world, client, launch, before)
    assert kept["claim"]["status"] == "superseded" and kept["decision_before"]["status"] == "supported"
    assert kept["changes"]["results"] and kept["audit"]

    folder = tmp_path / "backup"
    call_command("backup", str(folder))
    assert (folder / "postgres.dump").stat().st_size > 0
    assert (folder / "graphs" / f"{world.trio.workspace.graph_name}.falkordb").is_file()

    # Both stores wiped: the graph gone, every table empty (the audit trail's too).
    graph.graph_delete(world.trio.workspace)
    call_command("flush", interactive=False, verbosity=0)
    assert not Workspace.objects.exists() and world.trio.workspace.graph_name not in graph.list_graph_names()

    call_command("restore", str(folder), "--yes")
    assert answers(world, client, launch, before) == kept


def test_restore_refuses_without_yes_and_a_folder_that_is_no_backup(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="add --yes"):
        call_command("restore", str(tmp_path))
    with pytest.raises(CommandError, match="is not a backup"):
        call_command("restore", str(tmp_path), "--yes")
    (tmp_path / "stray").write_text("x")
    with pytest.raises(CommandError, match="is not empty"):
        call_command("backup", str(tmp_path))


# -- whole-server files: the RDB after BGSAVE, the append-only dir ---------------------------------------------


@contextmanager
def private_falkordb(folder: Path, *, appendonly: bool = True) -> Iterator[str]:
    """A FalkorDB server of its own in `folder` (as embedded: appendonly, fsync always), on a unix socket; its URL."""
    folder.mkdir(parents=True, exist_ok=True)
    sock, pidfile = embedded._socket_path(folder, "falkordb.sock"), folder / "redis.pid"
    command = embedded._redis_command(folder, sock, pidfile)
    command[command.index("--appendonly") + 1] = "yes" if appendonly else "no"
    subprocess.run(command, check=True)
    wait_until(
        lambda: embedded._redis_pings(sock), seconds=15, every=0.02,
        what=lambda: "the server to answer: " + (folder / "redis.log").read_text()[-2000:],
    )  # fmt: skip
    try:
        yield f"unix://{sock}?db=0"
    finally:
        embedded._stop_pid_from(pidfile, expected_name="redis-server")


def server_command(url: str, *command: str) -> Any:
    path = url.removeprefix("unix://").split("?", 1)[0]
    with redis.Redis(unix_socket_path=path, decode_responses=True) as server:
        return server.execute_command(*command)


@pytest.mark.subprocess
def test_the_servers_own_files_restore_the_same_answers(world: World, tmp_path: Path) -> None:
    """A server holding the workspace's graph writes its RDB (BGSAVE) and its append-only files; a fresh server
    started on either answers the API as the original did."""
    launch, _, before, _ = june_to_july(world)
    client = api_for(world.trio.viewer)
    kept = answers(world, client, launch, before)
    name = world.trio.workspace.graph_name
    payload = graph.graph_dump(name)
    assert payload is not None

    with private_falkordb(tmp_path / "first") as first:
        with override_settings(FALKORDB_URL=first):
            graph.graph_restore(name, payload)
            assert answers(world, client, launch, before) == kept
        server_command(first, "BGSAVE")
        wait_until(
            lambda: not server_command(first, "INFO", "persistence")["rdb_bgsave_in_progress"],
            seconds=30, what="BGSAVE to end",
        )  # fmt: skip
        assert server_command(first, "INFO", "persistence")["rdb_last_bgsave_status"] == "ok"
        (tmp_path / "from-rdb").mkdir()
        shutil.copy(tmp_path / "first" / "dump.rdb", tmp_path / "from-rdb" / "dump.rdb")
        shutil.copytree(tmp_path / "first" / "appendonlydir", tmp_path / "from-aof" / "appendonlydir")

    # An RDB loads only into a server started without the append-only file (with it on and no AOF there, the
    # server starts empty); turning the AOF on afterwards writes it from what was loaded.
    with private_falkordb(tmp_path / "from-rdb", appendonly=False) as fresh, override_settings(FALKORDB_URL=fresh):
        assert graph.list_graph_names() == [name]
        assert answers(world, client, launch, before) == kept
        server_command(fresh, "CONFIG", "SET", "appendonly", "yes")
        wait_until(
            lambda: (tmp_path / "from-rdb" / "appendonlydir").exists()
            and not server_command(fresh, "INFO", "persistence")["aof_rewrite_in_progress"],
            seconds=30, what="the append-only file to be written",
        )  # fmt: skip
    with private_falkordb(tmp_path / "from-rdb") as again, override_settings(FALKORDB_URL=again):
        assert answers(world, client, launch, before) == kept
    with private_falkordb(tmp_path / "from-aof") as fresh, override_settings(FALKORDB_URL=fresh):
        assert graph.list_graph_names() == [name]
        assert answers(world, client, launch, before) == kept
