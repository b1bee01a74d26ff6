"""Reads of the workspace's corrections: a page at a time (the API), the history's pages (filtered), by id, a
correction as staff who may not read its workspace read it, its impact as it was when applied, a claim's chain,
and what happened to a claim that no longer holds."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet

from afterhack.lists.cursors import Paged, workspace_page
from afterhack.lists.filters import Criteria
from claims.selectors import claims as claims_selectors
from claims.selectors.claims import Claim
from claims.statuses import ClaimStatus
from corrections import disclosure
from corrections.graph import chain as chain_graph
from corrections.graph import corrections as corrections_graph
from corrections.graph.chain import Chain as Chain
from corrections.graph.corrections import Correction as Correction
from corrections.graph.corrections import CorrectionOutline as CorrectionOutline
from corrections.graph.subgraph import MAX_REVISION as MAX_REVISION
from workspaces.models import AuditEvent, Workspace
from workspaces.selectors import events as event_selectors

# The shapes these reads return (and the largest revision a preview hands out) are re-exported above (`X as X`),
# so pages and API modules name them without a graph module.


def corrections_page(*, workspace: Workspace, limit: int, cursor: str | None) -> Paged[corrections_graph.Correction]:
    """A page of the workspace's corrections, newest first."""
    return workspace_page(
        "corrections", workspace=workspace, cursor=cursor, limit=limit,
        read=corrections_graph.correction_list, count=corrections_graph.correction_count,
        position=lambda correction: [correction.applied_at, correction.id],
    )  # fmt: skip


@dataclass(frozen=True)
class Fate:
    """What happened to a claim that no longer holds: when, who, why, and (after a correction) what replaced it."""

    status: ClaimStatus
    when: str | None
    who: str | None
    why: str
    correction: corrections_graph.Correction | None = None
    replacement: Claim | None = None
    source_id: str | None = None


def claim_fate(*, workspace: Workspace, claim: Claim) -> Fate | None:
    """Why a superseded or retracted claim stopped holding, for its pages; None for a claim that holds."""
    if claim.status == ClaimStatus.SUPERSEDED:
        return _superseded(workspace, claim)
    if claim.status == ClaimStatus.RETRACTED:
        return _retracted(workspace, claim)
    return None


def _superseded(workspace: Workspace, claim: Claim) -> Fate:
    found = corrections_graph.correction_list(workspace=workspace, claim_id=claim.id, limit=10)
    correction = next((c for c in found if c.claim_id == claim.id), None)
    if correction is None:
        return Fate(claim.status, claim.status_changed_at, None, "It was replaced by a correction.")
    replacement = claims_selectors.claim_get(workspace=workspace, claim_id=correction.replacement_claim_id)
    return Fate(claim.status, correction.applied_at, correction.actor, correction.reason, correction, replacement)


def _retracted(workspace: Workspace, claim: Claim) -> Fate:
    # The graph keeps that the claim was retracted and when; who did it, and to which version,
    # is in the audit trail (the event lists the claims it retracted).
    verb = "source.versioned" if claim.retraction == "quote_vanished" else "source.retracted"
    event = (
        AuditEvent.objects.filter(workspace=workspace, verb=verb, payload__retracted__contains=[claim.id])
        .order_by("-created_at", "-id")
        .first()
    )
    title = event.target if event else "its source"
    if verb == "source.versioned":
        version = event.payload.get("version") if event else None
        why = f"Its quote is no longer in {f'version {version}' if version else 'the newer version'} of “{title}”."
    else:
        why = f"Its source “{title}” was retracted."
    return Fate(
        claim.status,
        event.created_at.isoformat() if event else claim.status_changed_at,
        event.actor_name if event else None,
        why,
        source_id=claim.source_id,
    )


def _applied_event(workspace: Workspace, correction_id: str) -> QuerySet[AuditEvent]:
    return AuditEvent.objects.filter(
        workspace=workspace, verb="correction.applied", payload__correction_id=correction_id
    ).order_by("created_at", "id")


def applied_impact(*, workspace: Workspace, correction_id: str) -> dict[str, Any] | None:
    """The impact a correction had when it was applied, with the titles as they were (kept by its audit event);
    None for a correction applied (or recovered) before the audit trail kept it."""
    event = _applied_event(workspace, correction_id).first()
    impact = event.payload.get("impact") if event else None
    return impact if isinstance(impact, dict) else None


def applied_impact_outline(*, workspace: Workspace, correction_id: str) -> dict[str, Any] | None:
    """`applied_impact` as staff who may not read the workspace read it (workspaces/disclosure.py): what the
    correction touched, by title, and the ids alone of the decisions it left standing and of the supports that
    restated it, read so: their titles never leave the database."""
    read = _applied_event(workspace, correction_id).values(**disclosure.impact_columns()).first()
    row: dict[str, Any] = dict(read or {})
    if row.pop("impact_type", None) != "object":
        return None
    return {key: value for key, value in row.items() if value is not None}


def correction_get(*, workspace: Workspace, correction_id: str) -> corrections_graph.Correction | None:
    """One correction with what it corrected, or None."""
    return corrections_graph.correction_get(workspace=workspace, correction_id=correction_id)


def correction_outline(*, workspace: Workspace, correction_id: str) -> CorrectionOutline | None:
    """One correction as staff who may not read its workspace read it (no quote, no source), or None."""
    return corrections_graph.correction_outline_get(workspace=workspace, correction_id=correction_id)


def corrections_get(*, workspace: Workspace, correction_ids: list[str]) -> list[corrections_graph.Correction]:
    """The corrections with these ids that exist, in the order given (one query for all of them)."""
    return corrections_graph.corrections_get(workspace=workspace, correction_ids=correction_ids)


def corrections_of_claim(*, workspace: Workspace, claim_id: str) -> list[corrections_graph.Correction]:
    """The corrections of this claim (as the old claim or as the replacement), newest first."""
    return corrections_graph.correction_list(workspace=workspace, claim_id=claim_id)


def history_actors(criteria: Criteria) -> tuple[str, ...]:
    """The usernames whose full name holds the history's person filter (any case): it matches them too (its other
    filters are read as corrections/lists.py declares them)."""
    person = criteria.get("actor").lower()
    return tuple(event_selectors.usernames_named(words=person)) if person else ()


def history_page(*, workspace: Workspace, criteria: Criteria, offset: int, limit: int) -> list[Correction]:
    """One page of the corrections the history's criteria select, in their sort."""
    return corrections_graph.correction_page(
        workspace=workspace, criteria=criteria, actors=history_actors(criteria), offset=offset, limit=limit
    )


def history_count(*, workspace: Workspace, criteria: Criteria) -> int:
    """How many corrections the history's criteria select."""
    return corrections_graph.correction_count(workspace=workspace, criteria=criteria, actors=history_actors(criteria))


def claim_chain(*, workspace: Workspace, claim_id: str) -> Chain | None:
    """Where the claim comes from, what rests on it (derived claims, decisions, actions), and its corrections;
    None for no such claim."""
    return chain_graph.claim_chain(workspace=workspace, claim_id=claim_id)
