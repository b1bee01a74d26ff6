"""`manage.py mcp --user NAME`: the MCP server on stdin/stdout, for a local client acting as that user."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from mcp_server.transport import serve_stdio


class Command(BaseCommand):
    help = "Serves Afterhack's MCP tools over stdio as the given user (stdout carries the protocol only)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--user", required=True, help="the username whose workspaces and roles the tools use")

    def handle(self, *args: Any, **options: Any) -> None:
        user = get_user_model().objects.filter(username=options["user"]).first()
        if user is None or not user.is_active:
            why = "does not exist" if user is None else "is not active"
            raise CommandError(f"The user “{options['user']}” {why}: name an active user with --user.", returncode=2)
        serve_stdio(user)
