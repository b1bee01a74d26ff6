from django.apps import AppConfig


class AfterhackConfig(AppConfig):
    name = "afterhack"
    verbose_name = "Afterhack"
