"""Backup and restore on the real stores (docs/deployment.md, "Backups and restore"): the June → July story is
backed up with `manage.py backup`, both stores are wiped (the graph deleted, every table emptied), `manage.py
restore` puts them back, and the same answers come back — the claim, the decision as of before the correction,
the changes, the corrections list and the audit trail."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from afterhack import graph
from tests.conftest import api_for
from tests.corrections.conftest import World, june_to_july
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
        "audit": list(AuditEvent.objects.order_by("id").values_list("id", "verb", "actor_name", "workspace_id", "target", "payload", "created_at")),
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
