"""Reads of workspaces and memberships: who belongs where, with which role, who may audit every workspace
(and through which grant)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.db.models import CharField, Q, QuerySet, Value

from afterhack.lists.cursors import Paged, page_of
from workspaces.models import AUDIT_EVERY_WORKSPACE, Membership, Role, Workspace


def memberships_for_user(*, user: Any) -> QuerySet[Membership]:
    """The user's memberships, with their workspaces, by workspace name."""
    return Membership.objects.filter(user=user).select_related("workspace").order_by("workspace__name")


def members_of(*, workspace: Workspace) -> QuerySet[Membership]:
    """The workspace's memberships with their users, by username."""
    return Membership.objects.filter(workspace=workspace).select_related("user").order_by("user__username")


def member(*, workspace: Workspace, membership_id: int) -> Membership | None:
    """One membership of the workspace with its user, or None."""
    return members_of(workspace=workspace).filter(pk=membership_id).first()


def memberships_page(*, user: Any, limit: int, cursor: str | None) -> Paged[Membership]:
    """A page of the user's memberships, by workspace name (then id)."""

    def read(after: Any, n: int) -> list[Membership]:
        rows = memberships_for_user(user=user).order_by("workspace__name", "workspace_id")
        if after is not None:
            name, workspace_id = after
            rows = rows.filter(Q(workspace__name__gt=name) | Q(workspace__name=name, workspace_id__gt=workspace_id))
        return list(rows[:n])

    return page_of(
        scope=f"workspaces:{user.pk}", cursor=cursor, limit=limit, read=read,
        count=lambda: memberships_for_user(user=user).count(),
        position=lambda membership: [membership.workspace.name, str(membership.workspace_id)],
    )  # fmt: skip


def members_page(*, workspace: Workspace, limit: int, cursor: str | None) -> Paged[Membership]:
    """A page of the workspace's members, by username."""

    def read(after: Any, n: int) -> list[Membership]:
        rows = members_of(workspace=workspace)
        return list((rows.filter(user__username__gt=after[0]) if after is not None else rows)[:n])

    return page_of(
        scope=f"members:{workspace.id}", cursor=cursor, limit=limit, read=read,
        count=lambda: members_of(workspace=workspace).count(),
        position=lambda membership: [membership.user.get_username()],
    )  # fmt: skip


def memberships_by_workspace(*, user: Any) -> dict[UUID, Membership]:
    """The user's memberships by workspace id (which workspaces' pages the user may open); for an auditor of every
    workspace, a viewer's membership of any workspace asked about besides their own."""
    own = {m.workspace_id: m for m in Membership.objects.filter(user=user)}
    return _EveryWorkspace(own, user=user) if audits_every_workspace(user) else own


class _EveryWorkspace(dict[UUID, Membership]):
    """An auditor's memberships: their own, and a viewer's (never saved) of every other workspace."""

    def __init__(self, own: dict[UUID, Membership], *, user: Any) -> None:
        super().__init__(own)
        self.user = user

    def get(self, key: UUID, default: Any = None) -> Membership:
        return super().get(key) or Membership(user=self.user, workspace_id=key, role=Role.VIEWER)

    def __contains__(self, key: object) -> bool:
        return True


def readable_in(memberships: dict[UUID, Membership]) -> set[UUID] | None:
    """The workspaces whose content the reader of `memberships` (memberships_by_workspace) may read: their own, or
    None for every one (an auditor of every workspace)."""
    return None if isinstance(memberships, _EveryWorkspace) else set(memberships)


def audits_every_workspace(user: Any) -> bool:
    """Whether the user reads every workspace: an active account given the permission (grants_of). A superuser is
    not an auditor by being one."""
    if not (getattr(user, "is_authenticated", False) and getattr(user, "is_active", False)):
        return False
    return user.pk in grants_of(user_ids=[user.pk])


@dataclass(frozen=True)
class Grant:
    """How a person holds a permission: given to them directly, and through which of their groups."""

    direct: bool
    groups: list[str]

    def __bool__(self) -> bool:
        return self.direct or bool(self.groups)


EVERY_WORKSPACE = f"workspaces.{AUDIT_EVERY_WORKSPACE}"


def grants_of(*, user_ids: Collection[Any], permission: str = EVERY_WORKSPACE) -> dict[Any, Grant]:
    """How each of these people was given `permission` ("app_label.codename"; by default reading every workspace,
    workspaces.models.AUDIT_EVERY_WORKSPACE), directly and through which groups: only those who were, whether or not
    their account is active, and never for being a superuser. The one query for "was this person given it?"."""
    app_label, codename = permission.split(".", 1)
    granted = Permission.objects.filter(codename=codename, content_type__app_label=app_label)
    direct = get_user_model().user_permissions.through.objects.filter(user_id__in=user_ids, permission__in=granted)
    groups = get_user_model().groups.through.objects.filter(user_id__in=user_ids, group__permissions__in=granted)
    # One round-trip: a row per person given it directly (no group) and per group that gives it to them.
    no_group = Value(None, output_field=CharField())
    rows = direct.values_list("user_id", no_group).union(groups.values_list("user_id", "group__name"), all=True)
    given_directly: set[Any] = set()
    through: dict[Any, list[str]] = {}
    for user_id, group in rows:
        if group is None:
            given_directly.add(user_id)
        else:
            through.setdefault(user_id, []).append(group)
    return {pk: Grant(pk in given_directly, sorted(through.get(pk, []))) for pk in given_directly | through.keys()}


def workspaces_by_name() -> QuerySet[Workspace]:
    """Every workspace, by name (for staff auditors)."""
    return Workspace.objects.order_by("name")


def workspace_get(*, workspace_id: UUID | str) -> Workspace | None:
    """The workspace with this id, or None (for staff auditors, whatever their membership)."""
    return Workspace.objects.filter(id=workspace_id).first()
