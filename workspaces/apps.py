from django.apps import AppConfig


class WorkspacesConfig(AppConfig):
    name = "workspaces"

    def ready(self) -> None:
        # Every change of who may do what is audited by model signals, on every path that saves through the models
        # (workspaces/signals.py).
        from workspaces import signals  # noqa: F401

        # Its own audit verbs, registered as the apps above register theirs (workspaces/registry.py).
        from workspaces.registration import register_parts

        register_parts()
