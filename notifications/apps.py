from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "notifications"

    def ready(self) -> None:
        # The dispatcher is asked to tell what a commit wrote to the outbox (workspaces/registry.py `tell_soon`).
        from notifications.outbox import tell_soon
        from workspaces import registry

        if tell_soon not in registry.TELL_SOON:
            registry.TELL_SOON.append(tell_soon)
