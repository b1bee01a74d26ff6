from django.apps import AppConfig


class CorrectionsConfig(AppConfig):
    name = "corrections"
