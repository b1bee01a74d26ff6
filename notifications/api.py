"""JSON API: the caller's notifications, marking them read, and watching a claim, decision or action."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from django.http import HttpRequest
from ninja import Field, Query, Router, Schema
from pydantic import ConfigDict, StrictInt
from pydantic.config import JsonDict

from afterhack.lists.cursors import MAX_LIMIT, Page, PageIn
from afterhack.schemas import Id, Input, PathId, Refuse, errors
from notifications.models import Notification
from notifications.selectors import inbox as inbox_selectors
from notifications.services import notices as notice_services
from notifications.services import watches as watch_services
from notifications.statuses import WatchKind
from workspaces.access import get_membership

router = Router(tags=["notifications"])
workspace_router = Router(tags=["notifications"])

READ_WORDS = "Send {“ids”: [notification ids]} to mark those read, or {“all”: true} to mark every one read."


class InboxIn(PageIn):
    unread: Annotated[
        bool,
        Field(description="true: only the unread ones."),
        Refuse(words="“unread” must be true or false."),
    ] = False


class NotificationOut(Schema):
    id: int
    kind: str = Field(description="The event it tells of, e.g. `correction.applied`.")
    workspace_id: str
    text: str
    url: str = Field(description="The path of the page to look at, on this server.")
    created_at: datetime
    read: bool


# One of the two (null is the same as left out).
READ_SHAPES: JsonDict = {
    "oneOf": [
        {"required": ["ids"], "properties": {"ids": {"type": "array"}, "all": {"type": "null"}}},
        {"required": ["all"], "properties": {"all": {"const": True}, "ids": {"type": "null"}}},
    ]
}


class ReadIn(Input):
    model_config = ConfigDict(json_schema_extra=READ_SHAPES)

    ids: Annotated[
        list[Annotated[StrictInt, Field(ge=1, le=2**63 - 1)]] | None,
        Field(max_length=MAX_LIMIT, description=f"The notifications to mark read (at most {MAX_LIMIT})."),
        Refuse(words=f"“ids” must be a list of at most {MAX_LIMIT} notification ids (whole numbers)."),
    ] = None
    all: Annotated[
        Literal[True] | None,
        Field(description="true: mark every notification of the caller read."),
        Refuse(words="“all” must be true (or left out, with “ids”)."),
    ] = None

    @classmethod
    def misshapen(cls, data: dict[str, Any]) -> str | None:
        if (data.get("ids") is not None) == (data.get("all") is not None):
            return READ_WORDS
        return None


class ReadOut(Schema):
    marked: int = Field(description="How many were unread and are now read.")
    unread: int = Field(
        description=f"How many unread ones the caller has left (counted up to {inbox_selectors.BELL_CAP})."
    )


class WatchIn(Input):
    id: Annotated[
        Id,
        Field(description="The id of a claim, decision or action of the workspace."),
        Refuse(
            words="Give the “id” of a claim, decision or action of this workspace (a UUID).",
            missing="Give the “id” of the claim, decision or action to watch.",
        ),
    ]


class WatchOut(Schema):
    id: str
    kind: WatchKind
    watching: bool


def notification_out(notification: Notification) -> dict[str, Any]:
    return {
        "id": notification.pk, "kind": notification.kind, "workspace_id": str(notification.workspace_id),
        "text": notification.text, "url": notification.url, "created_at": notification.created_at,
        "read": notification.read,
    }  # fmt: skip


@router.get("", response={200: Page[NotificationOut], **errors(401, 422, 503)})
def notification_list(request: HttpRequest, page: Query[InboxIn]) -> Any:
    """The caller's notifications, newest first (only those of workspaces the caller is still a member of);
    `unread=true` for the unread ones only."""
    return inbox_selectors.inbox_page(
        user=request.user, unread=page.unread, limit=page.limit, cursor=page.cursor
    ).answer(notification_out)


@router.post("/read", response={200: ReadOut, **errors(401, 403, 422, 503)})
def notification_read(request: HttpRequest, payload: ReadIn) -> Any:
    """Marks the caller's notifications with these `ids` read (ids of others' are passed over), or `all` of them."""
    if payload.all:
        marked = notice_services.mark_all_read(user=request.user)
    else:
        marked = notice_services.mark_read(user=request.user, ids=payload.ids or [])
    return {"marked": marked, "unread": inbox_selectors.unread_count(user=request.user)}


@workspace_router.post("/{ws_id}/watch", response={200: WatchOut, **errors(401, 403, 404, 422, 503)})
def watch(request: HttpRequest, ws_id: PathId, payload: WatchIn) -> Any:
    """Watches a claim, decision or action of the workspace: the caller is told of its changes. Any member may
    watch, viewers too; watching it again changes nothing. 404 for an id the workspace does not hold."""
    membership = get_membership(request.user, ws_id)
    found = watch_services.watch(user=request.user, workspace=membership.workspace, node_id=payload.id)
    return {"id": found.node_id, "kind": found.kind, "watching": True}


@workspace_router.delete("/{ws_id}/watch", response={200: WatchOut, **errors(401, 403, 404, 422, 503)})
def unwatch(request: HttpRequest, ws_id: PathId, payload: WatchIn) -> Any:
    """Stops watching a claim, decision or action; stopping what one does not watch changes nothing. 404 for an id
    the workspace does not hold (a watch of one since gone is still stopped)."""
    membership = get_membership(request.user, ws_id)
    kind = watch_services.unwatch(user=request.user, workspace=membership.workspace, node_id=payload.id)
    return {"id": watch_services.canonical_id(payload.id), "kind": kind, "watching": False}
