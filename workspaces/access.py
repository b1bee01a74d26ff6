"""Who may see and change a workspace: the first line of every view and endpoint.

An outsider gets 404 (exactly as if the workspace did not exist), a viewer who tries to
write gets 403. Membership in PostgreSQL is the single source of truth; a staff auditor given the
permission to read every workspace is a viewer of each (never saved as a member).
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.core.exceptions import PermissionDenied
from django.http import Http404

from workspaces.models import Membership, Role, Workspace
from workspaces.selectors.dashboard import moment_of
from workspaces.selectors.memberships import audits_every_workspace


class WorkspaceNotFound(Http404):
    """No such workspace for this user (it may exist for others)."""


class WorkspaceForbidden(PermissionDenied):
    """The user is a member but their role does not allow this."""


def get_membership(user: Any, ws_id: UUID | str) -> Membership:
    """The user's membership of the workspace; 404 for outsiders."""
    if not getattr(user, "is_authenticated", False):
        raise WorkspaceNotFound("No such workspace.")
    try:
        ws_uuid = ws_id if isinstance(ws_id, UUID) else UUID(str(ws_id))
    except ValueError:
        raise WorkspaceNotFound("No such workspace.") from None
    membership = Membership.objects.select_related("workspace").filter(user=user, workspace_id=ws_uuid).first()
    if membership is None:
        membership = _auditing(user, ws_uuid)
    if membership is None:
        raise WorkspaceNotFound("No such workspace.")
    return membership


def _auditing(user: Any, ws_uuid: UUID) -> Membership | None:
    """For an auditor (audits_every_workspace), a viewer's membership of the workspace, never saved: they read it
    as its viewers do and change nothing. None for anyone else, or when there is no such workspace."""
    if not audits_every_workspace(user):
        return None
    workspace = Workspace.objects.filter(pk=ws_uuid).first()
    return None if workspace is None else Membership(user=user, workspace=workspace, role=Role.VIEWER)


def get_workspace_for_user(user: Any, ws_id: UUID | str) -> Workspace:
    """The workspace, for any member to read; 404 for outsiders."""
    return get_membership(user, ws_id).workspace


def get_rw_workspace_for_user(user: Any, ws_id: UUID | str) -> Workspace:
    """The workspace, for a reviewer or admin to change; 404 outsiders, 403 viewers."""
    membership = get_membership(user, ws_id)
    if not membership.can_write:
        raise WorkspaceForbidden("Viewers can read this workspace but not change it.")
    return membership.workspace


# What only a workspace's admins may do, as the refusal of anyone else says it: "Only this workspace's admins can …".
MANAGE_MEMBERS = "manage its members"
CHANGE_SETTINGS = "change its settings"


def get_admin_workspace_for_user(user: Any, ws_id: UUID | str, *, to: str = MANAGE_MEMBERS) -> Workspace:
    """The workspace, for its admins to manage (`to`: what they do, in the refusal's words); 404 outsiders, 403
    everyone else."""
    membership = get_membership(user, ws_id)
    if not membership.is_admin:
        raise WorkspaceForbidden(f"Only this workspace's admins can {to}.")
    return membership.workspace


def member_page_at(request: Any, ws_id: UUID | str) -> dict[str, Any]:
    """The context of a member's page that can show the past: its workspace, the membership, and the moment the
    address asks for (`as_of`, afterhack/as_of.py; the present when none); 404 for outsiders."""
    membership = get_membership(request.user, ws_id)
    as_of = moment_of(request.GET, workspace=membership.workspace)
    return {"workspace": membership.workspace, "membership": membership, "as_of": as_of}
