"""Writes of workspaces: creating one with its own graph, keeping every workspace's graph and indexes current
(`manage.py reconcile_graphs`), and the settings its admins change; each audited in the same transaction.
`InvalidInput` is the error of every write of the app that a person must fix."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from afterhack import graph, history_graph
from afterhack.clock import now_iso
from afterhack.errors import UserError
from afterhack.text import MAX_WORKSPACE_NAME_CHARS, clean_text
from workspaces import graph as workspace_graph
from workspaces.models import Membership, Role, Workspace
from workspaces.services.audit import record_event


class InvalidInput(UserError):
    """Input a person must fix; the message says what is wrong, in words."""


def clean_workspace_name(name: Any) -> str:
    """The name stripped of surrounding space, or InvalidInput saying what is wrong with it."""
    # Only stripped: a name keeps the spacing its admin gave it.
    return clean_text(
        name, noun="A workspace name", max_chars=MAX_WORKSPACE_NAME_CHARS, missing="A workspace needs a name.",
        fold=False, error=InvalidInput,
    )  # fmt: skip


def workspace_create(*, name: str, creator: Any, creator_is_admin: bool = True) -> Workspace:
    """A new workspace with its own graph; the creator becomes its admin unless told otherwise."""
    return workspace_register(workspace=Workspace(name=name), creator=creator, creator_is_admin=creator_is_admin)


def workspace_register(*, workspace: Workspace, creator: Any, creator_is_admin: bool = True) -> Workspace:
    """Saves a new (unsaved) workspace, creates its graph and indexes, and audits it.

    The graph is written last inside the transaction: if it fails, the rows roll back and
    whatever part of the graph was made is dropped. (If an enclosing transaction rolls back
    later, an empty graph is left; `manage.py reconcile_graphs` finds and removes those.)
    """
    workspace.name = clean_workspace_name(workspace.name)
    with transaction.atomic():
        workspace.save(force_insert=True)
        if creator_is_admin:
            Membership.objects.create(user=creator, workspace=workspace, role=Role.ADMIN)
        record_event(actor=creator, workspace=workspace, verb="workspace.created", target=workspace.name)
        try:
            graph_ensure(workspace=workspace)
        except Exception:
            workspace_graph.graph_drop(workspace=workspace)
            raise
    return workspace


def graph_ensure(*, workspace: Workspace) -> None:
    """Creates the workspace's graph, or adds whatever indexes it lacks, and begins its history of changes
    if a graph from before the history lacks it (docs/history.md; idempotent)."""
    workspace_graph.graph_create(
        workspace=workspace, workspace_id=str(workspace.id), created_at=workspace.created_at.isoformat()
    )
    history_graph.history_begin(workspace=workspace, now=now_iso())


@dataclass(frozen=True)
class GraphReport:
    ensured: int
    orphans: list[str]
    deleted: list[str]


def graphs_reconcile(*, delete_orphans: bool = False) -> GraphReport:
    """Gives every workspace its graph and current indexes; finds graphs whose workspace is gone."""
    workspaces = list(Workspace.objects.all())
    for workspace in workspaces:
        graph_ensure(workspace=workspace)
    known = {workspace.graph_name for workspace in workspaces}
    orphans = sorted(name for name in graph.list_graph_names() if WORKSPACE_GRAPH.fullmatch(name) and name not in known)
    deleted = []
    if delete_orphans:
        for name in orphans:
            graph.delete_graph_named(name)
            deleted.append(name)
    return GraphReport(len(workspaces), orphans, deleted)


WORKSPACE_GRAPH = re.compile(r"ws_[0-9a-f]{32}")


def previews_invalidate(*, workspace: Workspace) -> None:
    """Makes every preview computed so far stale (the workspace's policy changed), by bumping its revision."""
    workspace_graph.revision_bump(workspace=workspace)


# The settings a workspace's admins change in the app and over the API (the Django admin changes these and more).
ADMIN_SETTINGS = ("agent_claims_need_approval",)


def workspace_settings_change(*, workspace: Workspace, actor: Any, **changes: bool) -> Workspace:
    """Changes the workspace's settings (ADMIN_SETTINGS: each true or false), audited as `workspace.changed` with what
    each was and became, as the Django admin records it; a value unchanged records nothing. The caller checked the
    actor is an admin of the workspace."""
    unknown = sorted(set(changes) - set(ADMIN_SETTINGS))
    if unknown:
        raise InvalidInput(f"These are not settings a workspace admin can change: {', '.join(unknown)}.")
    if not all(isinstance(value, bool) for value in changes.values()):
        raise InvalidInput("Each setting is true or false.")
    with transaction.atomic():
        fresh = Workspace.objects.select_for_update().get(pk=workspace.pk)
        changed = [name for name, value in changes.items() if getattr(fresh, name) != value]
        if changed:
            before = {name: getattr(fresh, name) for name in changed}
            for name in changed:
                setattr(fresh, name, changes[name])
            fresh.save(update_fields=changed)
            record_event(
                actor=actor, workspace=fresh, verb="workspace.changed", target=fresh.name,
                payload={"fields": changed, "from": before, "to": {name: changes[name] for name in changed}},
            )  # fmt: skip
    return fresh
