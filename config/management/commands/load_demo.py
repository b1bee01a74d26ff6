from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from config.demo import demo_load


class Command(BaseCommand):
    help = "Loads the demo workspace once (for the first superuser, or --owner)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--owner", help="username of the demo workspace's admin")

    def handle(self, *args: Any, **options: Any) -> None:
        users = get_user_model().objects
        owner = (
            users.filter(username=options["owner"]).first()
            if options["owner"]
            else users.filter(is_superuser=True).order_by("pk").first()
        )
        if owner is None:
            raise CommandError("No such user to own the demo workspace; create a superuser first or pass --owner.")
        workspace = demo_load(owner=owner)
        if workspace is None:
            self.stdout.write("The demo workspace was loaded before; nothing to do.")
        else:
            self.stdout.write(f"Loaded the demo workspace “{workspace.name}” ({workspace.id}).")
