from django.apps import AppConfig


class WiringConfig(AppConfig):
    """Installed so that the commands that compose the apps (`manage.py run`, `bench`, `load_demo`) are found, and so
    that the demo registers its audit verb with workspaces as every app registers its parts."""

    name = "config"
    verbose_name = "Afterhack wiring"

    def ready(self) -> None:
        from config.demo import register_parts

        register_parts()
