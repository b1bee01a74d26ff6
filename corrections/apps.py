"""Belief maintenance: every change to what holds (correct, retract, new version, re-justify, revise,
dismiss) and the action transitions they cause. The name is historical; see docs/architecture.md."""

from django.apps import AppConfig


class CorrectionsConfig(AppConfig):
    name = "corrections"
