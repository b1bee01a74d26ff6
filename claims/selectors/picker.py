"""Claims as the pickers show them: cards, the items a picker lists, and the claim picker (`claims:pick`)."""

from __future__ import annotations

from afterhack.picker import PICK_LIMIT, Picker, PickItem, picker_of
from claims.graph import pickers as pickers_graph
from claims.graph.pickers import ClaimCard as ClaimCard
from claims.selectors.search import claim_search, newest_claims
from claims.statuses import ConfidenceKind
from workspaces.models import Workspace


def claim_cards(*, workspace: Workspace, claim_ids: list[str]) -> list[ClaimCard]:
    """These claims (those that exist, in order), each with its status, source and date."""
    return pickers_graph.claim_cards(workspace=workspace, claim_ids=claim_ids)


def pick_item(card: ClaimCard) -> PickItem:
    """A claim as the pickers show it: where it comes from in words."""
    if card.source_title:
        origin = f"from {card.source_title}"
    elif card.confidence_kind == ConfidenceKind.HUMAN_CORRECTION:
        origin = "a reviewer's correction"
    elif card.confidence_kind == ConfidenceKind.DERIVED:
        origin = "derived from other claims"
    else:
        origin = ""
    return PickItem(card.id, card.statement, card.status, origin, card.created_at, card.usable)


def claim_items(*, workspace: Workspace, claim_ids: list[str]) -> list[PickItem]:
    """These claims as the pickers show them (those that exist, in order)."""
    return [pick_item(card) for card in claim_cards(workspace=workspace, claim_ids=claim_ids)]


def claim_finds(*, workspace: Workspace, query: str, limit: int = PICK_LIMIT) -> list[PickItem]:
    """The claims THE search finds for the query (the newest for an empty one), as the pickers show them."""
    if query.strip():
        hits = claim_search(workspace=workspace, query=query, limit=limit).hits
    else:
        hits = newest_claims(workspace=workspace, limit=limit)
    return claim_items(workspace=workspace, claim_ids=[hit.id for hit in hits])


def claim_picker(
    *,
    workspace: Workspace,
    field: str,
    query: str = "",
    chosen: list[str] | tuple[str, ...] = (),
    newest: list[PickItem] | None = None,
    **shown: object,
) -> Picker:
    """A claim picker (`claims:pick` answers its searches) with its results for `query` and the `chosen` claims;
    `newest` are the newest claims when a page with many pickers has read them once for all."""
    return picker_of(
        find=lambda q: newest if newest is not None and not q else claim_finds(workspace=workspace, query=q),
        get=lambda ids: claim_items(workspace=workspace, claim_ids=ids),
        query=query, chosen=chosen, endpoint="claims:pick", field=field, noun="claim",
        **{"key": field, "label": "Find claims", **shown},
    )  # fmt: skip
