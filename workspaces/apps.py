from importlib import import_module

from django.apps import AppConfig


class WorkspacesConfig(AppConfig):
    name = "workspaces"

    def ready(self) -> None:
        # Every change of who may do what is audited by model signals, on every path that saves through the models
        # (workspaces/signals.py).
        from workspaces import signals  # noqa: F401

        # The admin's pages, one module each (workspaces/admin/): the admin's autodiscovery imports only the package,
        # and it has run by now (django.contrib.admin comes first in INSTALLED_APPS), so `people` replaces the User
        # and Group registrations of afterhack's admin module. Registered in the order they were when the admin was
        # one module, so its URLs keep their order.
        for page in ("people", "workspaces", "audit", "tokens", "login"):
            import_module(f"workspaces.admin.{page}")

        # Its own audit verbs, registered as the apps above register theirs (workspaces/registry.py).
        from workspaces.registration import register_parts

        register_parts()
