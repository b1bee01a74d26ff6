"""Ready groups, so that the auditor's permission is one tick in the Django admin instead of one among ~55.

"Auditors": read every workspace as a viewer (workspaces.audit_every_workspace) and see the audit trail in the
Django admin (workspaces.view_auditevent); with Staff status they also open the audit pages. "Workspace
creators": create workspaces (workspaces.add_workspace).

This migration never changes what a person may do, so it has nothing to audit (it runs on historical models, which
no audit signal hears): a group it makes is new and has nobody in it yet. A group of either name that exists
already was made by someone for their own purpose and may have people in it; giving it these permissions would
give each of them, unseen, what the group gives, so it is left as it is and the migration says so. Reversed, a
ready group is deleted only while it is as the migration made it (these permissions, nobody in it); otherwise it is
left, and the migration says why.
"""

from typing import Any

from django.contrib.auth.management import create_permissions
from django.db import migrations

READY_GROUPS = {
    "Auditors": ["audit_every_workspace", "view_auditevent"],
    "Workspace creators": ["add_workspace"],
}


def say(words: str) -> None:
    """A sentence in the output of `migrate`, under the line naming this migration."""
    print(f"\n  {words}")


def quoted(names: list[str]) -> str:
    shown = [f"“{name}”" for name in names]
    return ", ".join(shown[:-1]) + " and " + shown[-1] if len(shown) > 1 else "".join(shown)


def _permissions(apps: Any, alias: str, codenames: list[str]) -> Any:
    permission = apps.get_model("auth", "Permission")
    return permission.objects.using(alias).filter(content_type__app_label="workspaces", codename__in=codenames)


def make_groups(apps: Any, schema_editor: Any) -> None:
    alias = schema_editor.connection.alias if schema_editor is not None else "default"
    # On a fresh database the permissions are made after every migration has run (post_migrate): make them now.
    config = apps.get_app_config("workspaces")
    # A historical app config has no models module, and create_permissions skips an app without one.
    models_module = getattr(config, "models_module", None)
    config.models_module = models_module or True
    try:
        create_permissions(config, apps=apps, verbosity=0, using=alias)
    finally:
        config.models_module = models_module
    group = apps.get_model("auth", "Group")
    for name, codenames in READY_GROUPS.items():
        permissions = _permissions(apps, alias, codenames)
        existing = group.objects.using(alias).filter(name=name).first()
        if existing is None:
            group.objects.using(alias).create(name=name).permissions.add(*permissions)
            continue
        lacking = sorted(permissions.exclude(pk__in=existing.permissions.values("pk")).values_list("name", flat=True))
        if lacking:
            say(
                f"A group “{name}” exists already: it is left as it is, so that nobody in it gains anything unseen. "
                f"It does not give {quoted(lacking)}: if its members should have that, give it to the group in the "
                f"Django admin (Groups → {name}), where the change is audited."
            )


def remove_groups(apps: Any, schema_editor: Any) -> None:
    alias = schema_editor.connection.alias if schema_editor is not None else "default"
    group = apps.get_model("auth", "Group")
    for name, codenames in READY_GROUPS.items():
        ready = group.objects.using(alias).filter(name=name).first()
        if ready is None:
            continue
        members = list(ready.user_set.order_by("username").values_list("username", flat=True))
        made = set(_permissions(apps, alias, codenames).values_list("pk", flat=True))
        if members:
            say(
                f"The group “{name}” is left as it is: {', '.join(members)} {'is' if len(members) == 1 else 'are'} "
                "in it, and deleting it here would take away what it gives them unseen (delete it in the Django "
                "admin, where that is audited)."
            )
        elif set(ready.permissions.values_list("pk", flat=True)) != made:
            say(f"The group “{name}” is left as it is: it gives other permissions than this migration gave it.")
        else:
            ready.delete()


class Migration(migrations.Migration):
    dependencies = [
        ("workspaces", "0005_audit_every_workspace"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(make_groups, remove_groups)]
