from django.apps import AppConfig


class WiringConfig(AppConfig):
    """Installed so that the commands that compose the apps (`manage.py run`, `bench`, `load_demo`) are found."""

    name = "config"
    verbose_name = "Afterhack wiring"
