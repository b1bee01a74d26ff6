"""Embeddings of claims (semantic search): new claims embedded by the worker once their write commits, and the
backfill of `manage.py embed_claims`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.conf import settings
from django.db import transaction

from afterhack import llm
from claims.graph import embeddings as embeddings_graph
from workspaces.models import Workspace
from workspaces.services.audit import record_event

logger = logging.getLogger("claims")


def embed_soon(*, workspace: Workspace, claim_ids: list[str]) -> None:
    """Has the worker embed these new claims once the current transaction commits (nothing without a model).
    A claim the worker could not embed (the model failed) waits for `manage.py embed_claims`."""
    if not llm.embedding_configured() or not claim_ids:
        return
    # Imported here: tasks import services.
    from claims.tasks import embed_claims

    workspace_id, ids = str(workspace.id), list(claim_ids)
    transaction.on_commit(lambda: embed_claims.delay(workspace_id, ids))


def claims_embed(
    *, workspace: Workspace, claim_ids: list[str] | None = None, progress: Callable[[int], None] | None = None
) -> int:
    """Gives the claims (these, or all) that have no vector of the configured model one: a batch at a time,
    one embeddings call and one graph write each. Returns how many it stored; raises llm.EmbeddingError.

    The vector index takes its dimension from the model's vectors; a model of another dimension gets a new index.
    """
    model, done, batch = llm.embedding_model(), 0, max(1, settings.AFTERHACK_EMBEDDING_BATCH)
    ids = embeddings_graph.claims_unembedded(workspace=workspace, model=model) if claim_ids is None else claim_ids
    for first in range(0, len(ids), batch):
        todo = embeddings_graph.claims_to_embed(workspace=workspace, model=model, claim_ids=ids[first : first + batch])
        if todo:
            vectors = llm.embed([claim.statement for claim in todo])
            embeddings_graph.embedding_index_ensure(workspace=workspace, dimension=len(vectors[0]))
            rows = [{"id": c.id, "statement": c.statement, "vector": v} for c, v in zip(todo, vectors, strict=True)]
            done += embeddings_graph.claim_embeddings_set(workspace=workspace, model=model, rows=rows)
        if progress is not None:
            progress(len(ids[first : first + batch]))
    return done


def claims_embed_new(*, workspace: Workspace, claim_ids: list[str]) -> int:
    """The worker's embedding of new claims: a failing model is logged, not raised (the backfill catches up)."""
    if not llm.embedding_configured():
        return 0
    try:
        return claims_embed(workspace=workspace, claim_ids=claim_ids)
    except llm.EmbeddingError as error:
        logger.warning("%d new claims were left without a vector: %s", len(claim_ids), error)
        return 0


def claims_backfill(*, workspace: Workspace, progress: Callable[[int], None] | None = None) -> int:
    """Embeds every claim of the workspace that lacks a vector of the configured model (`manage.py embed_claims`);
    audited when it embedded any. Raises llm.EmbeddingError when the model fails (what was stored stays)."""
    embedded = claims_embed(workspace=workspace, progress=progress)
    if embedded:
        record_event(
            actor=None, workspace=workspace, verb="claims.embedded", target=llm.embedding_model(),
            payload={"embedded": embedded, "model": llm.embedding_model()},
        )  # fmt: skip
    return embedded
