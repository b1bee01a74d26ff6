"""Writes of memberships: adding a person to a workspace with a role, changing their role, removing them; each
serialised per workspace and audited with the role it was and became (never leaving a workspace without an active
admin: workspaces/services/admins.py)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction

from afterhack.errors import found
from workspaces.models import Membership, Role, Workspace
from workspaces.services.admins import member_keeps_an_admin
from workspaces.services.audit import record_event
from workspaces.services.workspaces import InvalidInput


def clean_role(role: Any) -> Role:
    """The role, or InvalidInput naming the roles there are."""
    if role not in Role.values:
        raise InvalidInput(f"Unknown role {role!r}: choose viewer, reviewer or admin.")
    return Role(role)


def _locked(workspace: Workspace) -> None:
    """Serialises membership changes of one workspace (call inside a transaction)."""
    list(Workspace.objects.select_for_update().filter(pk=workspace.pk).values_list("pk", flat=True))


class NoSuchUser(InvalidInput):
    """No account has that username (it may not exist yet: accounts are made outside workspaces)."""


class DeactivatedUser(InvalidInput):
    """The account exists but is deactivated: its person cannot sign in, so they are not added."""


def _user_named(username: Any) -> Any:
    if not isinstance(username, str) or not username.strip():
        raise InvalidInput("Give the username of the person to add.")
    shown = username.strip()[:60] + ("…" if len(username.strip()) > 60 else "")
    user = found(
        get_user_model().objects.filter(username=username.strip()).first(),
        NoSuchUser(f"There is no user called {shown!r}."),
    )
    return member_addable(user)


def member_addable(user: Any) -> Any:
    """The user, or DeactivatedUser saying why a deactivated account is not added (the pages, the API, the admin)."""
    if not user.is_active:
        raise DeactivatedUser(
            f"{user.get_username()[:60]}'s account is deactivated, so they cannot sign in: a staff member reactivates "
            "it in the Django admin (Users → their account → Active) before they can be added."
        )
    return user


# A membership event's "from" or "to" when the person had or has no role in the workspace.
NOT_A_MEMBER = "not a member"


def member_add(*, workspace: Workspace, username: str, role: str, actor: Any) -> Membership:
    """Adds a user to the workspace with a role."""
    role = clean_role(role)
    user = _user_named(username)
    with transaction.atomic():
        _locked(workspace)
        if Membership.objects.filter(workspace=workspace, user=user).exists():
            raise InvalidInput(f"{user.get_username()} is already a member; change their role instead.")
        membership = Membership.objects.create(workspace=workspace, user=user, role=role)
        record_event(
            actor=actor, workspace=workspace, verb="member.added", target=user.get_username(),
            payload={"role": role, "from": NOT_A_MEMBER, "to": role},
        )  # fmt: skip
    return membership


def membership_of(*, workspace: Workspace, username: str) -> Membership:
    """The workspace membership of the user with this username, or InvalidInput."""
    return found(
        Membership.objects.filter(workspace=workspace, user__username=username).first(),
        InvalidInput(f"{username[:60]!r} is not a member of this workspace."),
    )


def _membership_in(workspace: Workspace, membership_id: Any) -> Membership:
    return found(
        Membership.objects.select_related("user", "workspace").filter(workspace=workspace, pk=membership_id).first(),
        InvalidInput("That person is not a member of this workspace."),
    )


def member_change_role(*, workspace: Workspace, membership_id: Any, role: str, actor: Any) -> Membership:
    """Gives a member another role; the last admin cannot be demoted."""
    role = clean_role(role)
    with transaction.atomic():
        _locked(workspace)
        membership = _membership_in(workspace, membership_id)
        before = membership.role
        member_keeps_an_admin(membership, role=role)
        if before != role:
            membership.role = role
            membership.save(update_fields=["role"])
            record_event(
                actor=actor, workspace=workspace, verb="member.role_changed",
                target=membership.user.get_username(), payload={"from": before, "to": role},
            )  # fmt: skip
    return membership


def member_remove(*, workspace: Workspace, membership_id: Any, actor: Any) -> str:
    """Removes a member (the last admin cannot be removed); returns their username."""
    with transaction.atomic():
        _locked(workspace)
        membership = _membership_in(workspace, membership_id)
        member_keeps_an_admin(membership, role=None)
        membership.delete()
        member_removed(membership=membership, actor=actor)
    return membership.user.get_username()


def member_removed(*, membership: Membership, actor: Any, **why: str) -> None:
    """Records that the member is no longer one (`why`: what else the event says, as {"why": "account deleted"})."""
    record_event(
        actor=actor, workspace=membership.workspace, verb="member.removed", target=membership.user.get_username(),
        payload={"role": membership.role, "from": membership.role, "to": NOT_A_MEMBER, **why},
    )  # fmt: skip
