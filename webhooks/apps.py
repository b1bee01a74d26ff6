from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "webhooks"

    def ready(self) -> None:
        # Its audit verbs, registered with workspaces.
        from webhooks.registration import register_parts

        register_parts()
