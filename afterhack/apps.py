from django.apps import AppConfig


class AfterhackConfig(AppConfig):
    name = "afterhack"
    verbose_name = "Afterhack"

    def ready(self) -> None:
        # Registers the start-up refusals (secret key, broker) as system checks.
        from afterhack import startup  # noqa: F401

        # The demo (part of the wiring, which composes the apps) registers its audit verb with workspaces.
        from afterhack.demo import register_parts

        register_parts()
