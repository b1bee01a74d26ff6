"""Belief maintenance: every change to what holds (correct, retract, new version, re-justify, revise,
dismiss) and the action transitions they cause. The name is historical; see docs/architecture.md."""

from django.apps import AppConfig


class CorrectionsConfig(AppConfig):
    name = "corrections"

    def ready(self) -> None:
        # Its audit verbs, index, dashboard counts and menu links, registered with workspaces.
        from corrections.registration import register_parts

        register_parts()
        # The contradiction watch, on every claim that becomes current (claims/signals.py).
        from claims.signals import claims_current
        from corrections.services.watch import claims_current_received

        claims_current.connect(claims_current_received, dispatch_uid="corrections.watch")
