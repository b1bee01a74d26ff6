"""A claim as it was at a moment (docs/history.md, "Reading the past"): pure rewinds of a claim read now, from its
Changes after that moment (afterhack/history.py has the rules they share)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from afterhack import history
from afterhack.history_graph import ChangeCause
from claims.graph.search import SearchHit
from claims.graph.shapes import CITED_PASSAGE_ROLE, Claim, Fragment
from claims.statuses import ClaimStatus


def moved_since(changes: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The first move to a new version among a claim's changes after T: its evidence at T, or None (unmoved)."""
    return history.first_of(changes, ChangeCause.NEW_VERSION)


def old_fragment_ids(changes: list[dict[str, Any]]) -> list[str]:
    """The ids of the fragments a claim rested on at T, if it moved since (the edges were replaced)."""
    move = moved_since(changes)
    return [entry.split(":", 1)[1] for entry in (move or {}).get("from_supported_by") or [] if ":" in entry]


def claim_at(
    claim: Claim,
    *,
    as_of: str,
    changes: list[dict[str, Any]],
    replaced_at: str | None,
    fragments: dict[str, Fragment] | None = None,
) -> Claim | None:
    """The claim as it was at `as_of`, or None if it did not exist yet. `changes` are its Changes after `as_of`,
    `replaced_at` when its replacement (superseded_by) was made, `fragments` the old fragments by id
    (`old_fragment_ids`) for a claim moved since."""
    if not history.existed(claim.created_at, as_of):
        return None
    changes = history.after(changes, as_of)
    status = ClaimStatus(history.status_at(claim.status, changes))
    then = replace(
        claim,
        status=status,
        superseded_by=claim.superseded_by if replaced_at is not None and history.existed(replaced_at, as_of) else None,
        retraction=claim.retraction if status == claim.status else None,
        status_changed_at=claim.status_changed_at if not changes else None,
    )
    move = moved_since(changes)
    if move is None:
        return then
    fragments = fragments or {}
    roles = [entry.split(":", 1) for entry in move.get("from_supported_by") or [] if ":" in entry]
    return replace(
        then,
        version_id=move.get("from_version_id"),
        start=move.get("from_start"),
        end=move.get("from_end"),
        fragments=sorted(
            (fragments[fid] for role, fid in roles if role != CITED_PASSAGE_ROLE and fid in fragments),
            key=lambda f: f.start,
        ),
    )


def hit_at(hit: SearchHit, changes: list[dict[str, Any]], as_of: str) -> SearchHit:
    """A search hit with the status its claim had at `as_of` (`changes`: the claim's Changes after then)."""
    return replace(hit, status=ClaimStatus(history.status_at(hit.status, history.after(changes, as_of))))
