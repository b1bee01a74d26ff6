"""Ready groups, so that the auditor's permission is one tick in the Django admin instead of one among ~55.

"Auditors": read every workspace as a viewer (workspaces.audit_every_workspace) and see the audit trail in the
Django admin (workspaces.view_auditevent); with Staff status they also open the audit pages. "Workspace
creators": create workspaces (workspaces.add_workspace). Idempotent: a group of that name that exists already
keeps its members and permissions and gains these. Reversed, each group loses these permissions and is deleted
when it has none left.
"""

from typing import Any

from django.contrib.auth.management import create_permissions
from django.db import migrations

READY_GROUPS = {
    "Auditors": ["audit_every_workspace", "view_auditevent"],
    "Workspace creators": ["add_workspace"],
}


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
        ready, _ = group.objects.using(alias).get_or_create(name=name)
        ready.permissions.add(*_permissions(apps, alias, codenames))


def remove_groups(apps: Any, schema_editor: Any) -> None:
    alias = schema_editor.connection.alias if schema_editor is not None else "default"
    group = apps.get_model("auth", "Group")
    for name, codenames in READY_GROUPS.items():
        ready = group.objects.using(alias).filter(name=name).first()
        if ready is None:
            continue
        ready.permissions.remove(*_permissions(apps, alias, codenames))
        if not ready.permissions.exists():
            ready.delete()


class Migration(migrations.Migration):
    dependencies = [
        ("workspaces", "0005_audit_every_workspace"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(make_groups, remove_groups)]
