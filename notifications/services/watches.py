"""Watching: a person follows a claim, decision or action of a workspace they belong to, to be told of its changes.
It writes nothing in the graph, so viewers may watch too; the caller has checked the membership."""

from __future__ import annotations

from typing import Any

from afterhack.errors import NotFound, UserError
from afterhack.ids import parse_id
from notifications import registry
from notifications.models import Watch
from notifications.statuses import WatchKind
from workspaces.models import Workspace


class WatchableNotFound(NotFound):
    thing = "claim, decision or action"


NOT_AN_ID = "Give the id of a claim, decision or action of this workspace to watch (a UUID)."


def watch(*, user: Any, workspace: Workspace, node_id: object, kind: object = None) -> Watch:
    """The person's watch of the node (made now, or the one they had); 404 for an id the workspace does not hold
    (as that kind, when a kind is given)."""
    node, node_kind = _found(workspace, node_id, kind)
    found, _ = Watch.objects.get_or_create(user=user, workspace=workspace, node_id=node, defaults={"kind": node_kind})
    return found


def unwatch(*, user: Any, workspace: Workspace, node_id: object, kind: object = None) -> WatchKind:
    """Stops the person's watch of the node and answers its kind; unwatching what one does not watch changes
    nothing, and an id the workspace does not hold is 404 (a watch of a node since gone is still stopped)."""
    node = canonical_id(node_id)
    mine = Watch.objects.filter(user=user, workspace=workspace, node_id=node)
    kind_watched = mine.values_list("kind", flat=True).first()
    if kind_watched is not None:
        mine.delete()
        return WatchKind(kind_watched)
    return _found(workspace, node, kind)[1]


def canonical_id(node_id: object) -> str:
    """The node's id in its canonical form, or a UserError for what is no id."""
    node = parse_id(node_id)
    if node is None:
        raise UserError(NOT_AN_ID)
    return node


def _found(workspace: Workspace, node_id: object, kind: object) -> tuple[str, WatchKind]:
    """The node's canonical id and kind, or WatchableNotFound."""
    node = canonical_id(node_id)
    if kind is None:
        found = registry.kind_of(workspace, node)
        if found is None:
            raise WatchableNotFound()
        return node, found
    if kind not in {*WatchKind}:
        raise UserError(f"One watches a {', a '.join(WatchKind)}, not “{str(kind)[:40]}”.")
    if not registry.exists(workspace, node, WatchKind(str(kind))):
        raise WatchableNotFound(f"No such {kind} in this workspace.")
    return node, WatchKind(str(kind))
