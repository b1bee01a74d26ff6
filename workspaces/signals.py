"""Every change of who may do what is audited, on every path that saves through the models.

Accounts, groups and permissions are changed by the Django admin, by `manage.py` commands (`createsuperuser`,
`changepassword`), by the portal's sign-on (which creates accounts) and from the shell, and none of those goes
through this app's services. So the audit events are recorded by model signals, the one place every such path
passes: the user model's saves (created, renamed, deactivated, reactivated, made or unmade staff or superuser, a
password set or made unusable) and deletions, the group model's, and the three relations that grant permissions (a
person's groups, a person's own permissions, a group's permissions), in either direction. Who acted comes from
the request being served (workspaces/acting.py), else it is the system.

Each event is workspace-less and names its target (a username or a group's name), what it was before and after
(`from` → `to`), where it was made (`via`), and when the change gives or takes away reading every workspace
(workspaces.models.AUDIT_EVERY_WORKSPACE), who gained or lost that (`effect`, in words). A group's events list
its members, so a person's own filter finds them. Not audited, because they change nothing a person may do: the
last-login time, a password's hash upgraded at login (the same password, stored stronger), names and e-mail.
Not audited because Django sends no signal for them: QuerySet.update() and bulk_create()/bulk_update() of accounts,
rows of the permission relations written through their `through` models or cascaded away, and raw SQL; nor, on
purpose, a fixture loaded with `loaddata` (its raw saves restore what was recorded). docs/architecture.md lists them.

The same signals keep the rule that a workspace keeps an active admin (workspaces/services/admins.py) on paths
that have no form to refuse it in words: deactivating or deleting the last active admin raises `NoAdminLeft` and
nothing is saved. A change is checked, written and audited in one transaction: a deletion always (Django deletes
inside one), a save inside the caller's transaction, or, for a save made outside any (a script, a command), inside
one its handler opens (`_saved_in_a_transaction`); the workspaces checked stay locked until it commits.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import get_hasher, identify_hasher, is_password_usable
from django.contrib.auth.models import Group, Permission
from django.db import transaction
from django.db.models import Model, QuerySet
from django.db.models.signals import m2m_changed, post_delete, post_save, pre_delete, pre_save
from django.dispatch import receiver

from workspaces.acting import acting_person, acting_through
from workspaces.models import Membership, Role, Workspace
from workspaces.selectors import memberships as membership_selectors
from workspaces.services import admins as admin_services
from workspaces.services import audit as audit_services
from workspaces.services import memberships as membership_services

User = get_user_model()

# The account fields read before a save, to compare with what is saved.
WATCHED = ("username", "is_active", "is_staff", "is_superuser", "password")

# Each yes/no field of an account: for its new value, the verb and the before → after in words.
FLAGS: dict[str, dict[bool, tuple[str, str, str]]] = {
    "is_active": {
        True: ("user.reactivated", "deactivated", "active"),
        False: ("user.deactivated", "active", "deactivated"),
    },
    "is_staff": {
        True: ("user.staff_granted", "not staff", "staff"),
        False: ("user.staff_revoked", "staff", "not staff"),
    },
    "is_superuser": {
        True: ("user.superuser_granted", "not a superuser", "superuser"),
        False: ("user.superuser_revoked", "superuser", "not a superuser"),
    },
}

# How many names an event's words list before "and N more" (the payload keeps them all).
NAMES_IN_WORDS = 10


def listed(names: list[str]) -> str:
    """Usernames in a sentence, at most NAMES_IN_WORDS of them."""
    more = len(names) - NAMES_IN_WORDS
    return ", ".join(names[:NAMES_IN_WORDS]) + (f" and {more} more" if more > 0 else "")


def record(*, verb: str, target: str, payload: dict[str, Any], actor: Any = None) -> None:
    """One workspace-less audit event about an account or a group, by whoever is acting."""
    payload = {**payload, "via": acting_through()}
    audit_services.record_event(
        actor=actor or acting_person(), workspace=None, verb=verb, target=target, payload=payload
    )


def _password_state(encoded: str) -> str:
    # An empty hash is an account made with no password at all (the portal's, before it is marked unusable).
    return "set" if encoded and is_password_usable(encoded) else "none"


def _account_words(user: Any) -> str:
    """What an account is, in words: "active, staff, with a password"."""
    words = ["active" if user.is_active else "deactivated"]
    words += ["staff"] * bool(user.is_staff) + ["superuser"] * bool(user.is_superuser)
    words.append("with a password" if _password_state(user.password) == "set" else "without a password")
    return ", ".join(words)


def _granted(user_id: Any) -> bool:
    """Whether the person was given reading every workspace (which works while their account is active)."""
    return user_id in membership_selectors.grants_of(user_ids=[user_id])


def _effect(name: str, before: bool, after: bool) -> str:
    """The change in reading every workspace of one person, as the end of an event's words ('' for none)."""
    if before == after:
        return ""
    return f"; {name} now reads every workspace" if after else f"; {name} no longer reads every workspace"


# -- accounts ------------------------------------------------------------------------------------


@receiver(pre_save, sender=User, dispatch_uid="audit_account_before")
def account_before(
    sender: Any, instance: Any, raw: bool, using: str, update_fields: Collection[str] | None, **kwargs: Any
) -> None:
    """Reads the account as it is stored, before a save that may change what its person may do; refuses
    deactivating the last active admin of a workspace."""
    # What an earlier save read and never used (it was refused, or wrote none of these fields) is not true now.
    instance.__dict__.pop("_access_before", None)
    # A fixture being loaded (raw) restores accounts as they were recorded, audit trail included.
    if raw or instance.pk is None:
        return
    # A save of some fields writes only those: the others may differ in memory, but nothing changes them.
    fields = [name for name in WATCHED if update_fields is None or name in update_fields]
    before = User.objects.using(using).filter(pk=instance.pk).values(*fields).first() if fields else None
    if before is None or all(getattr(instance, name) == value for name, value in before.items()):
        return
    if not transaction.get_connection(using).in_atomic_block:
        _saved_in_a_transaction(instance, using, update_fields)
        return
    if before.get("is_active") and not instance.is_active:
        # The workspaces stay locked until the transaction that saves this ends: no role changes in between.
        admin_services.accounts_keep_admins(users=[instance], change="Deactivating")
    instance.__dict__["_access_before"] = before


def _saved_in_a_transaction(instance: Any, using: str, update_fields: Collection[str] | None) -> None:
    """Saves the account inside a transaction, for a save made outside one (a script, a command).

    Django writes a save in a statement of its own after this handler returns, so a lock taken here would be let go
    before the write, and the events would commit apart from it. Saved again inside a transaction instead, the
    check, the write and the events are one: a refusal leaves nothing saved, and the caller's own save then writes
    the same values once more, which changes nothing and records nothing.
    """
    with transaction.atomic(using=using):
        instance.save(using=using, update_fields=update_fields)


@receiver(post_save, sender=User, dispatch_uid="audit_account_after")
def account_after(sender: Any, instance: Any, created: bool, raw: bool, **kwargs: Any) -> None:
    """Records what the save changed: the account created, renamed, each flag, the password."""
    before = instance.__dict__.pop("_access_before", None)
    if raw:
        return
    name = instance.get_username()
    if created:
        flags = {"is_active": instance.is_active, "is_staff": instance.is_staff, "is_superuser": instance.is_superuser}
        payload = {**flags, "from": "no account", "to": _account_words(instance)}
        record(verb="user.created", target=name, payload=payload)
        return
    if before is None:
        return
    if before.get("username", name) != name:
        record(verb="user.renamed", target=name, payload={"from": before["username"], "to": name})
    for field in [field for field in FLAGS if field in before]:
        value = bool(getattr(instance, field))
        if value == bool(before[field]):
            continue
        verb, was, now = FLAGS[field][value]
        payload = {"from": was, "to": now}
        if field == "is_active":
            granted = _granted(instance.pk)
            payload["effect"] = _effect(name, granted and not value, granted and value)
        record(verb=verb, target=name, payload=payload)
    if "password" in before:
        _password_changed(instance, before["password"])


def _password_changed(user: Any, stored: str) -> None:
    """A password set (by the admin's password form, `changepassword`, the person themselves, a hash written into
    the account) or made unusable. Not a hash upgraded at login: the same password, stored stronger."""
    was, now = _password_state(stored), _password_state(user.password)
    if was == "set" and now == "none":
        record(verb="user.password_removed", target=user.get_username(), payload={"from": "set", "to": "unusable"})
    elif now == "set" and user.password != stored and not _upgraded_at_login(user, stored):
        before = "old password" if was == "set" else "no password"
        record(verb="user.password_set", target=user.get_username(), payload={"from": before, "to": "new password"})


def _upgraded_at_login(user: Any, stored: str) -> bool:
    """Whether the new hash can be the stored password's, upgraded when its person logged in. Django upgrades a hash
    only when it is outdated (another algorithm than the preferred one, or one the preferred hasher says must be
    updated), hashes it with the preferred one, and saves it with `_password` cleared (check_password); any other
    new hash is a password set. (A hash written directly in place of an outdated one, with the preferred algorithm,
    cannot be told from an upgrade: docs/architecture.md names it.)"""
    if getattr(user, "_password", None) is not None:
        return False
    preferred = get_hasher()
    try:
        old, new = identify_hasher(stored), identify_hasher(user.password)
    except ValueError:
        return False
    outdated = old.algorithm != preferred.algorithm or preferred.must_update(stored)
    return outdated and new.algorithm == preferred.algorithm and not preferred.must_update(user.password)


@receiver(pre_delete, sender=User, dispatch_uid="audit_account_deleted")
def account_deleted(sender: Any, instance: Any, **kwargs: Any) -> None:
    """Refuses deleting the last active admin of a workspace; records the account's deletion and, in each of its
    workspaces, that its person is no longer a member (the rows go with the account)."""
    admin_services.accounts_keep_admins(users=[instance], change="Deleting")
    name = instance.get_username()
    acting = acting_person()
    # Someone deleting their own account: the event cannot point at an account that is going.
    actor = None if acting is not None and acting.pk == instance.pk else acting
    memberships = list(Membership.objects.filter(user=instance).select_related("user", "workspace"))
    for membership in memberships:
        membership_services.member_removed(
            membership=membership, actor=actor, why="account deleted", via=acting_through()
        )
    payload = {
        "from": _account_words(instance), "to": "deleted",
        "memberships": {m.workspace.name: m.role for m in memberships},
        "groups": sorted(instance.groups.values_list("name", flat=True)),
        "tokens_deleted": instance.api_tokens.count(),
        "effect": _effect(name, instance.is_active and _granted(instance.pk), False),
    }  # fmt: skip
    record(verb="user.deleted", target=name, payload=payload, actor=actor)


@receiver(post_delete, sender=Membership, dispatch_uid="membership_keeps_an_admin")
def membership_deleted(sender: Any, instance: Membership, origin: Any = None, **kwargs: Any) -> None:
    """Accounts deleted together (the admin's list, a queryset in the shell) may each leave another admin, but not
    all at once: once their memberships are gone, each workspace they were admins of must still have an active
    one. (Memberships removed on their own go through `member_remove` of workspaces/services/memberships.py, which
    keeps the rule itself.)"""
    deleting_accounts = isinstance(origin, User) or (isinstance(origin, QuerySet) and origin.model is User)
    if not deleting_accounts or instance.role != Role.ADMIN:
        return
    if User.objects.filter(pk=instance.user_id, is_active=True).exists():
        asked = Workspace.objects.filter(pk=instance.workspace_id)
        admin_services.keep_an_admin(change="Deleting these accounts", leaving=Membership.objects.none(), asked=asked)


# -- groups --------------------------------------------------------------------------------------


@receiver(pre_save, sender=Group, dispatch_uid="audit_group_before")
def group_before(sender: Any, instance: Group, raw: bool, **kwargs: Any) -> None:
    if not raw and instance.pk is not None:
        instance.__dict__["_name_before"] = Group.objects.filter(pk=instance.pk).values_list("name", flat=True).first()


@receiver(post_save, sender=Group, dispatch_uid="audit_group_after")
def group_after(sender: Any, instance: Group, created: bool, raw: bool, **kwargs: Any) -> None:
    """A group created or renamed (its permissions and members are their own events)."""
    was = instance.__dict__.pop("_name_before", None)
    if raw:
        return
    if created:
        record(verb="group.created", target=instance.name, payload={"from": "no group", "to": instance.name})
    elif was is not None and was != instance.name:
        record(verb="group.renamed", target=instance.name, payload={"from": was, "to": instance.name})


@receiver(pre_delete, sender=Group, dispatch_uid="audit_group_deleting")
def group_deleting(sender: Any, instance: Group, **kwargs: Any) -> None:
    members = dict(instance.user_set.values_list("pk", "username"))
    instance.__dict__["_deleting"] = (members, _readers(members), _held("group", [instance.pk])[instance.pk])


@receiver(post_delete, sender=Group, dispatch_uid="audit_group_deleted")
def group_deleted(sender: Any, instance: Group, **kwargs: Any) -> None:
    """A group deleted: its members lose what it gave them."""
    members, readers_before, permissions = instance.__dict__.pop("_deleting", ({}, set(), {}))
    payload = {
        "from": sorted(permissions), "to": [], "members": sorted(members.values()),
        "effect": _group_effect(members, readers_before, _readers(members)),
    }  # fmt: skip
    record(verb="group.deleted", target=instance.name, payload=payload)


# -- the relations that grant permissions --------------------------------------------------------


def _readers(members: dict[Any, str]) -> set[Any]:
    """Which of these people read every workspace (active, with the permission given them or a group of theirs)."""
    active = set(User.objects.filter(pk__in=members, is_active=True).values_list("pk", flat=True))
    return active & membership_selectors.grants_of(user_ids=list(members)).keys()


def _group_effect(members: dict[Any, str], before: set[Any], after: set[Any]) -> str:
    gained = sorted(members[pk] for pk in after - before)
    lost = sorted(members[pk] for pk in before - after)
    words = [f"; now read every workspace: {listed(gained)}"] * bool(gained)
    words += [f"; no longer read every workspace: {listed(lost)}"] * bool(lost)
    return "".join(words)


def _held(owner: str, ids: list[Any]) -> dict[Any, dict[str, str]]:
    """What each group ("group") or person ("user": their own, not their groups') holds: "app.codename" → name
    of each permission, or for people's groups ("groups") name → name."""
    held: dict[Any, dict[str, str]] = {pk: {} for pk in ids}
    if owner == "groups":
        for user_id, name in Group.objects.filter(user__in=ids).values_list("user", "name"):
            held[user_id][name] = name
        return held
    rows = Permission.objects.filter(**{f"{owner}__in": ids}).values_list(
        owner, "content_type__app_label", "codename", "name"
    )
    for owner_id, app, codename, name in rows:
        held[owner_id][f"{app}.{codename}"] = name
    return held


@dataclass(frozen=True)
class Grants:
    """One relation that grants permissions: whose it is (people or groups), what it holds, its verbs."""

    owner: type[Model]
    holds: str  # for _held: "groups", "user", "group"
    noun: str
    added: str
    removed: str

    def words(self, names: list[str]) -> str:
        return f"the {self.noun}{'s' * (len(names) > 1)} {admin_services.quoted(names)}"


RELATIONS = {
    User.groups.through: Grants(User, "groups", "group", "user.group_added", "user.group_removed"),
    User.user_permissions.through: Grants(
        User, "user", "permission", "user.permission_added", "user.permission_removed"
    ),
    Group.permissions.through: Grants(
        Group, "group", "permission", "group.permission_added", "group.permission_removed"
    ),
}


def _owners(relation: Grants, instance: Model, reverse: bool, action: str, pk_set: set[Any] | None) -> list[Any]:
    """The people (or groups) whose grants this change touches."""
    if not reverse:
        return [instance.pk]
    if action != "pre_clear":
        return sorted(pk_set or ())
    # A clear from the other side (a group emptied of its members, a permission taken from everyone).
    related = instance.user_set if relation.owner is User else instance.group_set  # type: ignore[attr-defined]
    return list(related.values_list("pk", flat=True))


@dataclass(frozen=True)
class Snapshot:
    """What each owner holds at a moment, their names, their people (a person is their own), and which of those
    people read every workspace."""

    held: dict[Any, dict[str, str]]
    names: dict[Any, str]
    people: dict[Any, dict[Any, str]]
    readers: set[Any]


def _snapshot(relation: Grants, owner_ids: list[Any]) -> Snapshot:
    if relation.owner is User:
        names = dict(User.objects.filter(pk__in=owner_ids).values_list("pk", "username"))
        people = {pk: {pk: name} for pk, name in names.items()}
    else:
        names = dict(Group.objects.filter(pk__in=owner_ids).values_list("pk", "name"))
        people = {pk: {} for pk in owner_ids}
        for group_id, user_id, username in User.objects.filter(groups__in=owner_ids).values_list(
            "groups", "pk", "username"
        ):
            people[group_id][user_id] = username
    everyone = {pk: name for members in people.values() for pk, name in members.items()}
    return Snapshot(_held(relation.holds, owner_ids), names, people, _readers(everyone))


@receiver(m2m_changed, sender=User.groups.through, dispatch_uid="audit_user_groups")
@receiver(m2m_changed, sender=User.user_permissions.through, dispatch_uid="audit_user_permissions")
@receiver(m2m_changed, sender=Group.permissions.through, dispatch_uid="audit_group_permissions")
def grants_changed(
    sender: Any, instance: Model, action: str, reverse: bool, pk_set: set[Any] | None, **kwargs: Any
) -> None:
    """Before a change of a grant relation, reads what each owner holds; after it, records what it gave or took."""
    relation = RELATIONS[sender]
    stage, _, kind = action.partition("_")
    if stage == "pre":
        if kind != "clear" and not pk_set:
            return
        owners = _owners(relation, instance, reverse, action, pk_set)
        instance.__dict__.setdefault("_grants_before", {})[(sender, kind)] = (owners, _snapshot(relation, owners))
        return
    stashed = instance.__dict__.get("_grants_before", {}).pop((sender, kind), None)
    if stashed is not None:
        owners, before = stashed
        _record_grants(relation, before, _snapshot(relation, owners))


def _record_grants(relation: Grants, before: Snapshot, after: Snapshot) -> None:
    """One event per owner whose holdings changed (one call of add, remove or clear changes them one way)."""
    for owner_id, name in before.names.items():
        was, now = before.held[owner_id], after.held[owner_id]
        people = before.people[owner_id]
        readers_before, readers_after = before.readers & people.keys(), after.readers & people.keys()
        if relation.owner is User:
            effect = _effect(name, bool(readers_before), bool(readers_after))
        else:
            effect = _group_effect(people, readers_before, readers_after)
        for verb, changed in ((relation.added, now.keys() - was.keys()), (relation.removed, was.keys() - now.keys())):
            if not changed:
                continue
            payload: dict[str, Any] = {
                "what": relation.words(sorted({**was, **now}[key] for key in changed)), "changed": sorted(changed),
                "from": sorted(was), "to": sorted(now), "effect": effect,
            }  # fmt: skip
            if relation.owner is Group:
                payload["members"] = sorted(people.values())
            record(verb=verb, target=name, payload=payload)
