"""JSON API: workspaces and their members."""

from __future__ import annotations

from typing import Annotated, Any
from uuid import UUID

from django.http import HttpRequest
from ninja import Field, Query, Router, Schema
from ninja.responses import Status
from pydantic import StrictBool

from afterhack.http import ApiError
from afterhack.lists.cursors import Page, PageIn
from afterhack.schemas import Input, PathId, Refuse, Text, Words, errors
from afterhack.text import MAX_USERNAME_CHARS, MAX_WORKSPACE_NAME_CHARS
from workspaces.access import CHANGE_SETTINGS, get_admin_workspace_for_user
from workspaces.models import Membership, Role
from workspaces.selectors import memberships as membership_selectors
from workspaces.services import memberships as membership_services
from workspaces.services import workspaces as workspace_services

router = Router(tags=["workspaces"])

# Django's own bound on usernames.
ROLE_WORDS = "Unknown role: choose viewer, reviewer or admin."


class WorkspaceIn(Input):
    name: Annotated[
        Words,
        Field(max_length=MAX_WORKSPACE_NAME_CHARS),
        Refuse(
            words=f"A workspace needs a name: text of at most {MAX_WORKSPACE_NAME_CHARS} characters, without NUL characters."
        ),
    ]


class WorkspaceOut(Schema):
    id: UUID
    name: str
    role: Role = Field(description="The caller's role in the workspace.")


class WorkspaceSettingsIn(Input):
    agent_claims_need_approval: Annotated[
        StrictBool,
        Field(
            description="True: claims proposed by agents (MCP, a model's extraction) wait as `proposed`, never "
            "citable, until a reviewer approves them; false (the default): they are current at once."
        ),
        Refuse(words="“agent_claims_need_approval” must be true or false."),
    ]


class WorkspaceSettingsOut(Schema):
    id: UUID
    name: str
    role: Role = Field(description="The caller's role in the workspace.")
    agent_claims_need_approval: bool
    independent_sources: bool = Field(description="The independent-source policy (changed in the Django admin).")


class MemberIn(Input):
    username: Annotated[
        Words,
        Field(max_length=MAX_USERNAME_CHARS),
        Refuse(words="Give the username of the person to add (text, without NUL characters)."),
    ]
    role: Annotated[Role, Refuse(words=ROLE_WORDS)]


class RoleIn(Input):
    role: Annotated[Role, Refuse(words=ROLE_WORDS)]


class MemberOut(Schema):
    username: str
    role: Role


def member_out(membership: Membership) -> dict[str, Any]:
    return {"username": membership.user.get_username(), "role": membership.role}


@router.post("", response={201: WorkspaceOut, **errors(401, 403, 422, 503)})
def workspace_create(request: HttpRequest, payload: WorkspaceIn) -> Any:
    """Creates a workspace (and its graph); the caller becomes its admin. Needs the
    `workspaces.add_workspace` permission (superusers have it)."""
    if not request.user.has_perm("workspaces.add_workspace"):
        raise ApiError(403, "forbidden", "You are not allowed to create workspaces; ask an administrator.")
    workspace = workspace_services.workspace_create(name=payload.name, creator=request.user)
    return Status(201, {"id": workspace.id, "name": workspace.name, "role": Role.ADMIN})


@router.get("", response={200: Page[WorkspaceOut], **errors(401, 422, 503)})
def workspace_list(request: HttpRequest, page: Query[PageIn]) -> Any:
    """The workspaces the caller is a member of, with the caller's role, by name."""
    memberships = membership_selectors.memberships_page(user=request.user, limit=page.limit, cursor=page.cursor)
    return memberships.answer(lambda m: {"id": m.workspace.id, "name": m.workspace.name, "role": m.role})


@router.patch("/{ws_id}", response={200: WorkspaceSettingsOut, **errors(401, 403, 404, 422, 503)})
def workspace_settings(request: HttpRequest, ws_id: PathId, payload: WorkspaceSettingsIn) -> Any:
    """Changes the workspace's settings (workspace admins only: 403 for other members), audited as a change of the
    workspace settings (nothing is recorded when the value is what it was). Answers the workspace with its settings."""
    workspace = get_admin_workspace_for_user(request.user, ws_id, to=CHANGE_SETTINGS)
    workspace = workspace_services.workspace_settings_change(
        workspace=workspace, actor=request.user, **payload.model_dump()
    )
    return {
        "id": workspace.id, "name": workspace.name, "role": Role.ADMIN,
        "agent_claims_need_approval": workspace.agent_claims_need_approval,
        "independent_sources": workspace.independent_sources,
    }  # fmt: skip


@router.get("/{ws_id}/members", response={200: Page[MemberOut], **errors(401, 403, 404, 422, 503)})
def member_list(request: HttpRequest, ws_id: PathId, page: Query[PageIn]) -> Any:
    """The workspace's members and their roles, by username (workspace admins only)."""
    workspace = get_admin_workspace_for_user(request.user, ws_id)
    return membership_selectors.members_page(workspace=workspace, limit=page.limit, cursor=page.cursor).answer(
        member_out
    )


@router.post("/{ws_id}/members", response={201: MemberOut, **errors(401, 403, 404, 422, 503)})
def member_add(request: HttpRequest, ws_id: PathId, payload: MemberIn) -> Any:
    """Adds a member with a role (workspace admins only). A username with no account, or whose account is
    deactivated, is refused with 422 saying which."""
    workspace = get_admin_workspace_for_user(request.user, ws_id)
    membership = membership_services.member_add(
        workspace=workspace, username=payload.username, role=payload.role, actor=request.user
    )
    return Status(201, member_out(membership))


@router.patch("/{ws_id}/members/{username}", response={200: MemberOut, **errors(401, 403, 404, 422, 503)})
def member_change_role(request: HttpRequest, ws_id: PathId, username: Text, payload: RoleIn) -> Any:
    """Gives a member another role (workspace admins only; the last active admin stays admin: 422 naming the
    workspace)."""
    workspace = get_admin_workspace_for_user(request.user, ws_id)
    membership = membership_services.membership_of(workspace=workspace, username=username)
    membership = membership_services.member_change_role(
        workspace=workspace, membership_id=membership.pk, role=payload.role, actor=request.user
    )
    return member_out(membership)


@router.delete("/{ws_id}/members/{username}", response={204: None, **errors(401, 403, 404, 422, 503)})
def member_remove(request: HttpRequest, ws_id: PathId, username: Text) -> Any:
    """Removes a member (workspace admins only; the last active admin cannot be removed: 422 naming the
    workspace)."""
    workspace = get_admin_workspace_for_user(request.user, ws_id)
    membership = membership_services.membership_of(workspace=workspace, username=username)
    membership_services.member_remove(workspace=workspace, membership_id=membership.pk, actor=request.user)
    return Status(204, None)
