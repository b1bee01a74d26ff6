"""The rule that a workspace keeps an active admin, written once: which workspaces a change would leave without
one, the one message the pages, the API, the admin and code give when refusing it, and the refusals for a member's
new role or removal and for deactivating or deleting accounts."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import QuerySet

from workspaces.models import Membership, Role, Workspace
from workspaces.services.workspaces import InvalidInput


class NoAdminLeft(InvalidInput):
    """The change would leave a workspace without an active admin; the message names the workspace(s)."""


def quoted(names: Iterable[str]) -> str:
    """“A”, “A” and “B”, “A”, “B” and “C”: names as a sentence lists them."""
    shown = [f"“{name}”" for name in names]
    return ", ".join(shown[:-1]) + " and " + shown[-1] if len(shown) > 1 else "".join(shown)


def workspaces_left_without_admin(
    *, leaving: QuerySet[Membership], admins: Collection[Any] = (), asked: Iterable[Workspace] | None = None
) -> list[Workspace]:
    """The rule that a workspace keeps an active admin, written here only: the workspaces that would have none once
    the memberships `leaving` no longer count (demoted, removed, their accounts deactivated or deleted), by name.

    Asked of `asked` (saved or not), by default of the workspaces `leaving` holds an active admin of; `admins` are
    the people (ids) a change makes or keeps admins of the one workspace asked about (the admin's workspace page).
    Only active admins count: a deactivated one cannot sign in to manage anyone, and demoting or removing them takes
    nothing away."""
    active_admins = Membership.objects.filter(role=Role.ADMIN, user__is_active=True)
    if asked is None:
        asked = Workspace.objects.filter(
            pk__in=active_admins.filter(pk__in=leaving.values("pk")).values("workspace_id")
        )
    asked = list(asked)
    if not asked or get_user_model().objects.filter(pk__in=admins, is_active=True).exists():
        return []
    kept = active_admins.filter(workspace_id__in=[workspace.pk for workspace in asked])
    kept_in = set(kept.exclude(pk__in=leaving.values("pk")).values_list("workspace_id", flat=True))
    return sorted((workspace for workspace in asked if workspace.pk not in kept_in), key=lambda w: w.name)


def no_admin_left(*, change: str, **rule: Any) -> str:
    """Why `change` ("Deactivating alice") is refused, naming the workspaces it would leave without an active admin
    (workspaces_left_without_admin, given `rule`'s arguments); '' when it keeps one in each. The one message the
    pages, the API, the admin and code say."""
    lost = workspaces_left_without_admin(**rule)
    if not lost:
        return ""
    names, one = quoted(workspace.name for workspace in lost), len(lost) == 1
    return (
        f"{change} would leave {names} without an active admin: {names} {'needs' if one else 'each need'} at least "
        f"one admin whose account is active; make someone else admin {'first' if one else 'of each first'}."
    )


def keep_an_admin(*, change: str, **rule: Any) -> None:
    """Refuses `change` (NoAdminLeft, in no_admin_left's words) when it would leave a workspace without an active
    admin."""
    if why := no_admin_left(change=change, **rule):
        raise NoAdminLeft(why)


def member_keeps_an_admin(membership: Membership, *, role: str | None) -> None:
    """Refuses (NoAdminLeft) giving the member `role` (None: removing them) when that leaves their workspace without
    an active admin."""
    name = membership.user.get_username()
    change = f"Removing {name}" if role is None else f"Making {name} {role}"
    leaving = Membership.objects.filter(pk=membership.pk) if role != Role.ADMIN else Membership.objects.none()
    keep_an_admin(change=change, leaving=leaving)


def accounts_without_admin(*, users: list[Any], change: str) -> str:
    """Why deactivating or deleting these users together (`change`: "Deactivating", "Deleting") is refused, naming
    the workspaces it would leave without an active admin; '' when it is not."""
    names = ", ".join(sorted(user.get_username() for user in users))
    leaving = Membership.objects.filter(user_id__in=[user.pk for user in users])
    return no_admin_left(change=f"{change} {names}", leaving=leaving)


def accounts_keep_admins(*, users: list[Any], change: str) -> None:
    """Refuses (NoAdminLeft, naming the workspaces) deactivating or deleting these users when that would leave a
    workspace without an active admin. Locks those workspaces' membership changes until the transaction ends, so
    a role changed meanwhile cannot slip between the check and the change (call inside a transaction)."""
    admin_of = Membership.objects.filter(user__in=[user.pk for user in users], role=Role.ADMIN).values("workspace_id")
    list(Workspace.objects.select_for_update().filter(pk__in=admin_of).order_by("pk").values_list("pk", flat=True))
    if why := accounts_without_admin(users=users, change=change):
        raise NoAdminLeft(why)
