"""Workspaces' own parts of the registry (workspaces/registry.py): the verbs of workspaces, members, tokens, people
and groups. Every one names no workspace content, so it reads whole to every reader (workspaces/disclosure.py)."""

from __future__ import annotations

from workspaces.registry import AuditVerb, EventPage, register

DASHBOARD = EventPage("workspaces:dashboard")
MEMBERS = EventPage("workspaces:members", admins=True)

# verb: (words, kind)
ACCESS_VERBS = {
    "workspace.created": ("created the workspace “{target}”", "Workspace created"),
    "workspace.changed": ("changed the workspace settings", "Workspace settings changed"),
    "member.added": ("added {target} as {role}", "Member added"),
    "member.role_changed": ("made {target} {to} (was {from})", "Role changed"),
    "member.removed": ("removed {target}", "Member removed"),
    "token.issued": ("issued an API token {target}", "API token issued"),
    "token.revoked": ("revoked the API token {target}", "API token revoked"),
    "token.restored": ("restored the API token {target}", "API token restored"),
    "token.deleted": ("deleted the API token {target}", "API token deleted"),
    "user.created": ("created the account {target} ({to})", "Account created"),
    "user.renamed": ("renamed the account {from} to {target}", "Account renamed"),
    "user.deactivated": ("deactivated the account {target}{effect}", "Account deactivated"),
    "user.reactivated": ("reactivated the account {target}{effect}", "Account reactivated"),
    "user.staff_granted": ("made {target} staff", "Made staff"),
    "user.staff_revoked": ("made {target} no longer staff", "No longer staff"),
    "user.superuser_granted": ("made {target} a superuser", "Made superuser"),
    "user.superuser_revoked": ("made {target} no longer a superuser", "No longer superuser"),
    "user.password_set": ("set a new password for {target}", "Password set"),
    "user.password_removed": ("made the password of {target} unusable", "Password made unusable"),
    "user.deleted": ("deleted the account {target} (was {from}){effect}", "Account deleted"),
    "user.group_added": ("added {target} to {what}{effect}", "Added to a group"),
    "user.group_removed": ("removed {target} from {what}{effect}", "Removed from a group"),
    "user.permission_added": ("gave {target} {what}{effect}", "Permission given"),
    "user.permission_removed": ("took {what} from {target}{effect}", "Permission taken away"),
    "group.created": ("created the group “{target}”", "Group created"),
    "group.renamed": ("renamed the group “{from}” to “{target}”", "Group renamed"),
    "group.deleted": ("deleted the group “{target}”{effect}", "Group deleted"),
    "group.permission_added": ("gave the group “{target}” {what}{effect}", "Group given a permission"),
    "group.permission_removed": ("took {what} from the group “{target}”{effect}", "Group lost a permission"),
}


def page_of(verb: str) -> EventPage | None:
    """The workspace's page for its own events, its members page for its members' (admins only), none otherwise."""
    return {"workspace": DASHBOARD, "member": MEMBERS}.get(verb.split(".", 1)[0])


VERBS = [AuditVerb(verb, words, kind, page=page_of(verb), whole=True) for verb, (words, kind) in ACCESS_VERBS.items()]


def register_parts() -> None:
    """Registers workspaces' own verbs."""
    register(*VERBS)
