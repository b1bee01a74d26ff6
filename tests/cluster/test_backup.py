"""`manage.py backup` / `restore` on a FalkorDB cluster: each graph's DUMP and RESTORE go to the primary of its key's
slot. Two workspaces on different shards are backed up, both stores wiped, restored, and they answer as before, each
graph back on its own shard and on that shard's replica (docs/deployment.md, "Backups and restore")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from afterhack import graph
from afterhack.cluster import LocalCluster
from claims.services import claims as claims_services
from claims.services import sources as sources_services
from tests.conftest import api_for
from tests.corrections.conftest import World, june_to_july
from tests.corrections.test_backup_restore import answers
from workspaces.models import Workspace
from workspaces.services import workspaces as workspace_services

# Real dumps: the rows must be committed for pg_dump (another connection) to see them.
pytestmark = [pytest.mark.cluster, pytest.mark.django_db(transaction=True)]


def on_shards(cluster: LocalCluster, name: str) -> tuple[bool, bool]:
    """Whether the graph is on its slot's primary, and on that primary's replica."""
    primary = cluster.primary_of(name)
    replica = cluster.node(cluster.replica_of(primary))
    replica.execute_command("READONLY")
    return name in cluster.node(primary).execute_command("GRAPH.LIST"), bool(replica.exists(name))


def test_a_backup_of_two_shards_restores_the_same_answers(
    world: World, on_cluster: LocalCluster, tmp_path: Path
) -> None:
    launch, _, before, _ = june_to_july(world)
    first = world.trio.workspace
    # A second workspace whose graph lives on another shard, with a source and a claim of its own.
    for n in range(30):
        second = workspace_services.workspace_create(name=f"Elsewhere {n}", creator=world.trio.owner)
        if on_cluster.primary_of(second.graph_name) != on_cluster.primary_of(first.graph_name):
            break
    assert on_cluster.primary_of(second.graph_name) != on_cluster.primary_of(first.graph_name)
    source = sources_services.source_add(workspace=second, title="Memo", text="The office moves in May.\n",
                                        actor=world.trio.owner)  # fmt: skip
    memo = claims_services.claim_add(workspace=second, source_id=source.id, statement="The office moves in May.",
                              evidence_quote="The office moves in May", actor=world.trio.owner).id  # fmt: skip
    client, owner = api_for(world.trio.viewer), api_for(world.trio.owner)

    def elsewhere() -> Any:
        answer = owner.get(f"/workspaces/{second.id}/claims/{memo}")
        assert answer.status_code == 200, answer.content
        return answer.json()

    kept, kept_elsewhere = answers(world, client, launch, before), elsewhere()
    assert kept_elsewhere["statement"] == "The office moves in May."

    folder = tmp_path / "backup"
    call_command("backup", str(folder))
    for workspace in (first, second):
        assert (folder / "graphs" / f"{workspace.graph_name}.falkordb").stat().st_size > 0

    for workspace in (first, second):
        graph.graph_delete(workspace)
        assert on_shards(on_cluster, workspace.graph_name) == (False, False)
    call_command("flush", interactive=False, verbosity=0)
    assert not Workspace.objects.exists()

    call_command("restore", str(folder), "--yes")
    assert answers(world, client, launch, before) == kept
    assert elsewhere() == kept_elsewhere
    for workspace in (first, second):
        # Back on its own shard's primary, and already on its replica when restore answered.
        assert on_shards(on_cluster, workspace.graph_name) == (True, True)
