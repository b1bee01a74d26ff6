from typing import Any

from django.core.management.base import BaseCommand

from workspaces.services.workspaces import graphs_reconcile


class Command(BaseCommand):
    help = "Gives every workspace its graph and indexes; lists (or with --delete removes) graphs with no workspace."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--delete", action="store_true", help="delete graphs whose workspace no longer exists")

    def handle(self, *args: Any, **options: Any) -> None:
        report = graphs_reconcile(delete_orphans=options["delete"])
        self.stdout.write(f"{report.ensured} workspace graph(s) checked and up to date.")
        for name in report.orphans:
            verb = "deleted" if name in report.deleted else "has no workspace (use --delete to remove it)"
            self.stdout.write(f"  {name} {verb}")
