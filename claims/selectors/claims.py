"""Reads of claims: one or several as they are or were at a moment, and the claims list's pages."""

from __future__ import annotations

from afterhack import history
from afterhack.lists.filters import Criteria
from claims import history as claims_history
from claims.graph import claims as claims_graph
from claims.graph import embeddings as embeddings_graph
from claims.graph import lists as lists_graph
from claims.graph import past as past_graph
from claims.graph.lists import ClaimRow as ClaimRow
from claims.graph.shapes import CitedPassage as CitedPassage
from claims.graph.shapes import Claim as Claim
from workspaces.models import Workspace


def claim_rows(
    *, workspace: Workspace, criteria: Criteria, offset: int, limit: int, ranked: list[str] | None = None
) -> list[ClaimRow]:
    """One page of the claims list: of every claim, or of a search's `ranked` ids (best first), filtered,
    sorted and paged as the criteria ask."""
    return lists_graph.claim_rows(workspace=workspace, criteria=criteria, offset=offset, limit=limit, ids=ranked)


def claim_rows_count(*, workspace: Workspace, criteria: Criteria, ranked: list[str] | None = None) -> int:
    """How many claims the claims list has with these filters (of every claim, or of the `ranked` ids)."""
    return lists_graph.claim_rows_count(workspace=workspace, criteria=criteria, ids=ranked)


def claims_by_ids(*, workspace: Workspace, claim_ids: list[str]) -> list[Claim]:
    """The claims with these ids that exist, in the order given."""
    return claims_graph.claims_get(workspace=workspace, claim_ids=claim_ids)


def claim_get(*, workspace: Workspace, claim_id: str, as_of: str | None = None) -> Claim | None:
    """One claim with its fragments and justifications, or None. With `as_of` (a moment as
    afterhack.clock.moment_iso gives it): the claim as it was then, or None if it did not exist yet."""
    if as_of is None:
        return claims_graph.claim_get(workspace=workspace, claim_id=claim_id)
    then = claims_as_of(workspace=workspace, claim_ids=[claim_id], as_of=as_of)
    return then[0] if then else None


def claims_as_of(*, workspace: Workspace, claim_ids: list[str], as_of: str) -> list[Claim]:
    """The claims with these ids as they were at `as_of` (those that existed then, in the order given): one query
    for the claims and their changes since, and one more only for the old fragments of claims moved since."""
    read = past_graph.claims_as_of(workspace=workspace, claim_ids=claim_ids, as_of=as_of)
    old_ids = [fid for then in read for fid in claims_history.old_fragment_ids(history.after(then.changes, as_of))]
    fragments = past_graph.fragments_get(workspace=workspace, fragment_ids=old_ids) if old_ids else {}
    claims = (
        claims_history.claim_at(
            then.claim, as_of=as_of, changes=then.changes, replaced_at=then.replaced_at, fragments=fragments
        )
        for then in read
    )
    return [claim for claim in claims if claim is not None]


def unembedded_count(*, workspace: Workspace, model: str) -> int:
    """How many of the workspace's claims have no vector of the embeddings model `model`."""
    return embeddings_graph.claims_unembedded_count(workspace=workspace, model=model)
