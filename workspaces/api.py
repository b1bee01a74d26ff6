"""JSON API: workspaces and their members."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.http import HttpRequest
from ninja import Router, Schema
from ninja.responses import Status

from afterhack.api import ApiError, ErrorOut, Text
from workspaces import selectors, services
from workspaces.access import get_admin_workspace_for_user

router = Router(tags=["workspaces"])

ERRORS = {401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 422: ErrorOut}


class WorkspaceIn(Schema):
    name: Text


class WorkspaceOut(Schema):
    id: UUID
    name: str
    role: str


class MemberIn(Schema):
    username: Text
    role: Text


class RoleIn(Schema):
    role: Text


class MemberOut(Schema):
    username: str
    role: str


@router.post("", response={201: WorkspaceOut, **ERRORS})
def workspace_create(request: HttpRequest, payload: WorkspaceIn) -> Any:
    """Creates a workspace (and its graph); the caller becomes its admin."""
    if not request.user.has_perm("workspaces.add_workspace"):
        raise ApiError(403, "forbidden", "You are not allowed to create workspaces; ask an administrator.")
    workspace = services.workspace_create(name=payload.name, creator=request.user)
    return Status(201, {"id": workspace.id, "name": workspace.name, "role": "admin"})


@router.get("", response={200: list[WorkspaceOut], **ERRORS})
def workspace_list(request: HttpRequest) -> Any:
    """The workspaces the caller is a member of, with the caller's role."""
    return [
        {"id": m.workspace.id, "name": m.workspace.name, "role": m.role}
        for m in selectors.memberships_for_user(user=request.user)
    ]


@router.get("/{ws_id}/members", response={200: list[MemberOut], **ERRORS})
def member_list(request: HttpRequest, ws_id: str) -> Any:
    """The workspace's members and their roles (workspace admins only)."""
    workspace = get_admin_workspace_for_user(request.user, ws_id)
    return [{"username": m.user.get_username(), "role": m.role} for m in selectors.members_of(workspace=workspace)]


@router.post("/{ws_id}/members", response={201: MemberOut, **ERRORS})
def member_add(request: HttpRequest, ws_id: str, payload: MemberIn) -> Any:
    """Adds a member with a role (workspace admins only)."""
    workspace = get_admin_workspace_for_user(request.user, ws_id)
    membership = services.member_add(
        workspace=workspace, username=payload.username, role=payload.role, actor=request.user
    )
    return Status(201, {"username": membership.user.get_username(), "role": membership.role})


@router.patch("/{ws_id}/members/{username}", response={200: MemberOut, **ERRORS})
def member_change_role(request: HttpRequest, ws_id: str, username: str, payload: RoleIn) -> Any:
    """Gives a member another role (workspace admins only; the last admin stays admin)."""
    workspace = get_admin_workspace_for_user(request.user, ws_id)
    membership = services.membership_of(workspace=workspace, username=username)
    membership = services.member_change_role(
        workspace=workspace, membership_id=membership.pk, role=payload.role, actor=request.user
    )
    return {"username": membership.user.get_username(), "role": membership.role}


@router.delete("/{ws_id}/members/{username}", response={204: None, **ERRORS})
def member_remove(request: HttpRequest, ws_id: str, username: str) -> Any:
    """Removes a member (workspace admins only; the last admin cannot be removed)."""
    workspace = get_admin_workspace_for_user(request.user, ws_id)
    membership = services.membership_of(workspace=workspace, username=username)
    services.member_remove(workspace=workspace, membership_id=membership.pk, actor=request.user)
    return Status(204, None)
