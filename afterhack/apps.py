from django.apps import AppConfig


class AfterhackConfig(AppConfig):
    name = "afterhack"
    verbose_name = "Afterhack"

    def ready(self) -> None:
        # Registers the start-up refusals (secret key, broker) as system checks.
        from afterhack import startup  # noqa: F401
