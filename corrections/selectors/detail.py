"""A correction's page: for a reader of its workspace (what it changed, the passage it cites, its impact as it was
and as a picture), and for staff who may not read the workspace (built from what they may read alone)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.http import Http404

from afterhack.errors import found
from agents.selectors import decisions as agents_selectors
from claims.selectors import claims as claims_selectors
from claims.selectors import provenance as provenance_selectors
from corrections.selectors import corrections as corrections_selectors
from corrections.selectors import pictures as pictures_selectors
from corrections.selectors import suggestions as suggestions_selectors
from workspaces.models import Workspace
from workspaces.selectors import events as event_selectors


def correction_detail(*, workspace: Workspace, correction_id: str) -> dict[str, Any]:
    """A correction's page for a reader of its workspace (a member, or staff who may read every workspace): what it
    changed, the passage it cites, its impact as it was and as a picture, each thing linked to its page."""
    correction = found(
        corrections_selectors.correction_get(workspace=workspace, correction_id=correction_id),
        Http404("No such correction in this workspace."),
    )
    old = claims_selectors.claim_get(workspace=workspace, claim_id=correction.claim_id)
    new = claims_selectors.claim_get(workspace=workspace, claim_id=correction.replacement_claim_id)
    affected = {key: ids for key, ids in correction.affected.items() if key.startswith("decisions")}
    by_id = {
        d.id: d
        for d in agents_selectors.decisions_get(
            workspace=workspace, decision_ids=[i for ids in affected.values() for i in ids]
        )
    }
    actions = agents_selectors.actions_get(workspace=workspace, action_ids=correction.affected.get("actions_held", []))
    applied = corrections_selectors.applied_impact(workspace=workspace, correction_id=correction.id)
    return {
        "workspace": workspace,
        "can_open": True,
        "correction": correction,
        "old": old,
        "new": new,
        "cited": provenance_selectors.cited_view(workspace=workspace, claim=new),
        "decisions": {key: [by_id[i] for i in ids if i in by_id] for key, ids in affected.items()},
        "actions": actions,
        "unsupported": claims_selectors.claims_by_ids(
            workspace=workspace, claim_ids=correction.affected.get("claims_unsupported", [])
        ),
        "picture": old and pictures_selectors.impact_picture(
            workspace=workspace, claim=old, affected=correction.affected, correction=correction,
        ),
        "applied": applied,
        "accepted": suggestions_selectors.suggestion_of_correction(workspace=workspace, correction_id=correction.id),
        "action_urls": {
            a["id"]: event_selectors.action_url(workspace_id=workspace.id, action_id=a["id"])
            for key in ("actions_held", "actions_already_done")
            for a in (applied or {}).get(key, [])
        }
        | {a.id: event_selectors.action_url(workspace_id=workspace.id, action_id=a.id) for a in actions},
    }  # fmt: skip


@dataclass(frozen=True)
class ClaimLine:
    """A claim as the correction's page names it to staff who may not read its workspace: what it says (the
    correction's from or to) and its status; nothing of its evidence."""

    id: str
    statement: str
    status: str


def correction_outline_detail(*, workspace: Workspace, correction_id: str) -> dict[str, Any]:
    """A correction's page for staff who may not read its workspace, built from what they may read alone
    (workspaces/disclosure.py), and nothing else is read: from, to, why, by whom and when, the statuses of both
    claims; what it touched, by title (the decisions it sent to review, the actions it held, the derived claims it
    left unsupported); how many decisions it left standing and supports restated it; and, in words, that the claim
    quoted a source and the correction cited a passage. What this context does not name is not on the page."""
    outline = found(
        corrections_selectors.correction_outline(workspace=workspace, correction_id=correction_id),
        Http404("No such correction in this workspace."),
    )
    applied = corrections_selectors.applied_impact_outline(workspace=workspace, correction_id=outline.id)
    replacement = outline.replacement_status
    context = {
        "workspace": workspace,
        "auditing": True,
        "restricted": True,
        "correction": outline,
        "old": ClaimLine(outline.claim_id, outline.old_statement, outline.old_status),
        "old_quote_withheld": outline.old_quoted,
        "new": replacement and ClaimLine(outline.replacement_claim_id, outline.statement, replacement),
        "cited_withheld": outline.cites_passage,
        "applied": applied,
        "still_supported": len(outline.affected.get("decisions_still_supported", [])),
    }
    return context if applied else context | _touched_today(workspace, outline.affected)


def _touched_today(workspace: Workspace, affected: dict[str, list[str]]) -> dict[str, Any]:
    """How what a correction touched stands today, for one applied before its impact was kept as it was."""
    return {
        "decisions": {
            "decisions_needing_review": agents_selectors.decisions_get(
                workspace=workspace, decision_ids=affected.get("decisions_needing_review", [])
            )
        },
        "actions": agents_selectors.actions_get(workspace=workspace, action_ids=affected.get("actions_held", [])),
        "unsupported": claims_selectors.claims_by_ids(
            workspace=workspace, claim_ids=affected.get("claims_unsupported", [])
        ),
    }
