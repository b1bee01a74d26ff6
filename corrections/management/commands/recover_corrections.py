from typing import Any

from django.core.management.base import BaseCommand

from corrections import intents


class Command(BaseCommand):
    help = "Settles correction intents left pending by a crashed process: completes or fails each from what the graph shows."

    def handle(self, *args: Any, **options: Any) -> None:
        report = intents.recover()
        self.stdout.write(
            f"{report.completed} completed, {report.failed} marked failed, {report.busy} still being applied."
        )
