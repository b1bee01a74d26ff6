"""What can be watched: the apps above register each kind of node a person may watch (claims its claims, agents its
decisions and actions) with how to tell that one exists, in their `AppConfig.ready()`; notifications names none of
their labels. A watch of an id no registered kind knows is refused."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from notifications.statuses import WatchKind

if TYPE_CHECKING:
    from workspaces.models import Workspace


@dataclass(frozen=True)
class Watchable:
    """A kind of node people may watch, and `exists(workspace, node_id)`: whether the workspace holds one by that id
    (any status: a superseded claim can still change, and its page still offers the button)."""

    kind: WatchKind
    exists: Callable[[Workspace, str], bool]


WATCHABLE: dict[WatchKind, Watchable] = {}


def register_watchable(*watchables: Watchable) -> None:
    """Registers kinds of node to watch; registering one again replaces it (a test's reload of an app)."""
    for watchable in watchables:
        WATCHABLE[watchable.kind] = watchable


def kind_of(workspace: Workspace, node_id: str) -> WatchKind | None:
    """The kind of the node with this id in the workspace, asking each registered kind in turn, or None."""
    for watchable in WATCHABLE.values():
        if watchable.exists(workspace, node_id):
            return watchable.kind
    return None


def exists(workspace: Workspace, node_id: str, kind: WatchKind) -> bool:
    """Whether the workspace holds a node of this kind with this id (False for a kind nobody registered)."""
    watchable = WATCHABLE.get(kind)
    return watchable is not None and watchable.exists(workspace, node_id)
