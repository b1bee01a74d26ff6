"""manage.py embed_claims [--workspace ID]: gives every claim without a vector of the configured model one."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from afterhack import llm
from afterhack.ids import parse_id
from claims.selectors import claims as claims_selectors
from claims.services import embeddings as embeddings_services
from workspaces.models import Workspace


class Command(BaseCommand):
    help = (
        "Embeds the claims that have no vector of the configured embeddings model (AFTERHACK_EMBEDDING_MODEL), "
        "in batches, with a progress bar; running it again embeds only what is still missing."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--workspace", metavar="ID", help="only this workspace (its id); default: every workspace")

    def handle(self, *args: Any, **options: Any) -> None:
        if not llm.embedding_configured():
            raise CommandError(
                "No embeddings model is configured: set AFTERHACK_EMBEDDING_MODEL (and OPENAI_BASE_URL)."
            )
        model = llm.embedding_model()
        total = 0
        for workspace in self._workspaces(options["workspace"]):
            missing = claims_selectors.unembedded_count(workspace=workspace, model=model)
            # The bar goes to the terminal's stderr as is (Django's wrapper would end each redraw with a newline).
            with tqdm(total=missing, desc=workspace.name[:40], unit="claim", file=self.stderr._out) as bar:
                try:
                    embedded = embeddings_services.claims_backfill(workspace=workspace, progress=bar.update)
                except llm.EmbeddingError as error:
                    raise CommandError(
                        f"{error} The claims embedded so far keep their vectors: run embed_claims again to go on."
                    ) from None
            total += embedded
            self.stdout.write(f"{workspace.name}: {embedded} claim(s) embedded with {model}.")
        self.stdout.write(f"{total} claim(s) embedded in all.")

    def _workspaces(self, workspace_id: str | None) -> list[Workspace]:
        if workspace_id is None:
            return list(Workspace.objects.order_by("created_at"))
        workspace = Workspace.objects.filter(id=workspace_id).first() if parse_id(workspace_id) else None
        if workspace is None:
            raise CommandError(f"There is no workspace with the id {workspace_id!r}.")
        return [workspace]
