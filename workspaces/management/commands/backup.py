from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from afterhack.errors import UserError
from workspaces import backup


class Command(BaseCommand):
    help = "Backs up PostgreSQL (pg_dump) and every workspace's graph (FalkorDB DUMP) into a new folder."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("folder", help="a folder that does not exist yet (or is empty)")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            report = backup.backup(Path(options["folder"]))
        except UserError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(f"Backed up the database and {len(report.graphs)} graph(s) into {report.folder}.")
