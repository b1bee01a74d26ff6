"""Writes: workspaces, memberships, tokens; each with its audit event in the same transaction."""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.models import QuerySet
from django.utils import timezone

from afterhack import graph, history_graph
from afterhack.clock import now_iso
from afterhack.errors import UserError, found
from afterhack.text import MAX_WORKSPACE_NAME_CHARS, clean_text
from workspaces import graph as workspace_graph
from workspaces.models import ApiToken, AuditEvent, Membership, Role, Workspace


class InvalidInput(UserError):
    """Input a person must fix; the message says what is wrong, in words."""


def actor_name(actor: Any) -> str:
    """How a person (or the system, for background work) is named in the graph and the audit trail."""
    return actor.get_username() if actor is not None and getattr(actor, "is_authenticated", False) else "system"


def audit_event(
    *, actor: Any, workspace: Workspace | None, verb: str, target: str = "", payload: dict[str, Any] | None = None
) -> AuditEvent:
    """An audit event as it is recorded, not saved yet: who (a person, else "system"), where, what."""
    authenticated = actor is not None and getattr(actor, "is_authenticated", False)
    return AuditEvent(
        actor=actor if authenticated else None,
        actor_name=actor_name(actor),
        workspace=workspace,
        verb=verb,
        target=target[:255],
        payload=payload or {},
    )


def record_event(
    *, actor: Any, workspace: Workspace | None, verb: str, target: str = "", payload: dict[str, Any] | None = None
) -> AuditEvent:
    """Appends one audit event (call it inside the transaction of the change it records)."""
    event = audit_event(actor=actor, workspace=workspace, verb=verb, target=target, payload=payload)
    event.save(force_insert=True)
    return event


# Many audit events as ONE statement, one JSON parameter holding every (target, payload): atomic and committed
# on its own outside a transaction (one round-trip), and a third of the time of the ORM's bulk_create for 500
# events (measured: 35 against 106 ms), which builds a model and a placeholder group for each.
EVENTS_INSERT = """
INSERT INTO {table} ({actor}, {actor_name}, {workspace}, {verb}, {target}, {payload}, {created_at})
SELECT %(actor)s, %(actor_name)s, %(workspace)s, %(verb)s, e.target, e.payload, %(created_at)s
FROM jsonb_to_recordset(%(events)s::jsonb) AS e(target text, payload jsonb)
"""


def record_events(
    *, actor: Any, workspace: Workspace | None, verb: str, events: list[tuple[str, dict[str, Any]]]
) -> None:
    """Appends one audit event per (target, payload), each as `record_event` writes it, all in one INSERT (call
    it in the transaction of the changes they record, or after them: alone, it commits by itself)."""
    who = audit_event(actor=actor, workspace=workspace, verb=verb)
    meta, quote = AuditEvent._meta, connection.ops.quote_name
    columns = {field.name: quote(str(field.column)) for field in meta.concrete_fields}
    rows = [{"target": target[:255], "payload": payload} for target, payload in events]
    with connection.cursor() as cursor:
        cursor.execute(
            EVENTS_INSERT.format(table=quote(meta.db_table), **columns),
            {
                "actor": who.actor_id,
                "actor_name": who.actor_name,
                "workspace": who.workspace_id,
                "verb": who.verb,
                "created_at": timezone.now(),
                "events": json.dumps(rows),
            },
        )


def clean_workspace_name(name: Any) -> str:
    """The name stripped of surrounding space, or InvalidInput saying what is wrong with it."""
    # Only stripped: a name keeps the spacing its admin gave it.
    return clean_text(
        name, noun="A workspace name", max_chars=MAX_WORKSPACE_NAME_CHARS, missing="A workspace needs a name.",
        fold=False, error=InvalidInput,
    )  # fmt: skip


def clean_role(role: Any) -> Role:
    """The role, or InvalidInput naming the roles there are."""
    if role not in Role.values:
        raise InvalidInput(f"Unknown role {role!r}: choose viewer, reviewer or admin.")
    return Role(role)


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


def token_issue(
    *, user: Any, name: str = "API token", actor: Any = None, expires_at: datetime | None = None
) -> tuple[ApiToken, str]:
    """A new API token for the user and its raw value, which is shown once and never stored.

    It expires at `expires_at`, by default AFTERHACK_TOKEN_TTL_DAYS from now.
    """
    with transaction.atomic():
        token, raw = ApiToken.issue(user=user, name=name[:100] or "API token", expires_at=expires_at)
        record_event(
            actor=actor or user, workspace=None, verb="token.issued", target=f"{token.hint}… for {user.get_username()}",
            payload={"user": user.get_username(), "expires_at": token.expires_at.isoformat()},
        )  # fmt: skip
    return token, raw


def token_revoke(*, token: ApiToken, actor: Any) -> ApiToken:
    """Revokes the token: it is refused from now on. Revoking it again changes nothing."""
    with transaction.atomic():
        revoked = ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
        if revoked:
            record_event(
                actor=actor, workspace=None, verb="token.revoked", target=f"{token.hint}… for {token.user.get_username()}",
                payload={"user": token.user.get_username(), "from": "valid", "to": "revoked"},
            )  # fmt: skip
    token.refresh_from_db(fields=["revoked_at"])
    return token


def tokens_revoke(*, tokens: QuerySet[ApiToken], actor: Any) -> int:
    """Revokes each of these tokens not revoked yet, audited one by one like `token_revoke`; returns how many."""
    with transaction.atomic():
        revoking = list(tokens.filter(revoked_at__isnull=True).select_related("user"))
        for token in revoking:
            token_revoke(token=token, actor=actor)
    return len(revoking)


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
