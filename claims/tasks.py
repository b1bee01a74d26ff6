"""Celery tasks of the claims app: thin wrappers that take ids and call one service."""

from __future__ import annotations

from celery import shared_task

from afterhack.jobs import run_job
from claims.services import embeddings as embeddings_services
from claims.services import extraction as extraction_services
from workspaces.selectors import memberships as membership_selectors


@shared_task
def run_extraction(workspace_id: str, extraction_id: str) -> str | None:
    """Runs one queued extraction; returns its final status."""
    return run_job(
        membership_selectors.workspace_get(workspace_id=workspace_id), extraction_id,
        work=lambda workspace: extraction_services.extraction_run(workspace=workspace, extraction_id=extraction_id),
        give_up=lambda workspace: extraction_services.extraction_fail_unexpectedly(workspace=workspace, extraction_id=extraction_id),
    )  # fmt: skip


@shared_task
def embed_claims(workspace_id: str, claim_ids: list[str]) -> int:
    """Embeds new claims for semantic search; returns how many got a vector."""
    workspace = membership_selectors.workspace_get(workspace_id=workspace_id)
    return embeddings_services.claims_embed_new(workspace=workspace, claim_ids=claim_ids) if workspace else 0
