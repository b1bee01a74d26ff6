from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from afterhack.errors import UserError
from workspaces import backup


class Command(BaseCommand):
    help = "Restores a `manage.py backup` folder: replaces the database's tables and puts back its graphs."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("folder", help="a folder written by manage.py backup")
        parser.add_argument("--yes", action="store_true", help="confirm: the database's tables are replaced")

    def handle(self, *args: Any, **options: Any) -> None:
        if not options["yes"]:
            raise CommandError(
                "restore replaces every table of the configured database and the backed-up graphs: add --yes to go on."
            )
        try:
            report = backup.restore(Path(options["folder"]))
        except UserError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(
            f"Restored the database and {len(report.graphs)} graph(s) from {report.folder}. "
            "Then run manage.py migrate and manage.py reconcile_graphs."
        )
