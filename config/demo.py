"""The demo workspace a newcomer sees on first start; loaded once per database.

The story the product exists for: a plan says the launch is in June, and things rest on it, one of them already
done (the announcement went out): correcting June → July holds what is pending and marks the announcement as
needing a follow-up, while the decision the customer's email also justifies stays supported.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from afterhack import graph
from agents.services import decisions as agents_services
from claims.services import claims as claims_services
from claims.services import sources as sources_services
from workspaces.models import AuditEvent, Workspace
from workspaces.registry import AuditVerb, EventPage, register
from workspaces.services import audit as audit_services
from workspaces.services import workspaces as workspace_services

DEMO_NAME = "Demo: product launch"
DEMO_LOADED = "demo.loaded"
# Its audit verb (workspaces/registry.py): the demo's name is no workspace content; it links to the workspace.
DEMO_VERB = AuditVerb(
    DEMO_LOADED, "loaded the demo content", "Demo loaded", page=EventPage("workspaces:dashboard"), whole=True
)


def register_parts() -> None:
    """Registers the demo's audit verb with workspaces (from config/apps.py, once the apps are ready)."""
    register(DEMO_VERB)


LAUNCH_PLAN = """Launch plan — update from the March planning meeting

The product launch is in June. Ana Costa owns the launch checklist and reports to the board every two weeks.

Marketing starts the campaign in May, four weeks before the launch. The launch budget is 40,000 EUR, approved by the board on 3 March.

Risks: the payment provider's certification may slip; if it does, the launch moves to July.
"""

CUSTOMER_EMAIL = """From: Priya Shah, Northwind Logistics
Subject: Rollout planning

Hi team, we were told the launch is in June, so we plan our warehouse rollout for the first week of July.
Please let us know as soon as anything changes.
"""

# (source, statement, exact quote)
CLAIMS = [
    ("plan", "The product launch is in June.", "The product launch is in June"),
    ("plan", "Ana Costa owns the launch checklist.", "Ana Costa owns the launch checklist"),
    (
        "plan",
        "The marketing campaign starts in May.",
        "Marketing starts the campaign in May, four weeks before the launch",
    ),
    ("plan", "The launch budget is 40,000 EUR.", "The launch budget is 40,000 EUR, approved by the board on 3 March"),
    ("email", "Northwind expects the launch in June.", "we were told the launch is in June"),
]


def demo_load(*, owner: Any) -> Workspace | None:
    """Creates the demo workspace with `owner` as admin, unless it was loaded before; returns it."""
    with transaction.atomic():
        # The audit trail remembers that the demo was loaded, so deleting it is respected.
        if AuditEvent.objects.filter(verb=DEMO_LOADED).exists():
            return None
        workspace = workspace_services.workspace_create(name=DEMO_NAME, creator=owner)
        try:
            demo_fill(workspace, owner)
        except Exception:
            graph.graph_delete(workspace)
            raise
        audit_services.record_event(actor=owner, workspace=workspace, verb=DEMO_LOADED, target=DEMO_NAME)
    return workspace


def demo_fill(workspace: Workspace, owner: Any) -> None:
    """Puts the launch story into a workspace: sources, claims, a derived claim, decisions, actions (one done)."""
    sources = {
        "plan": sources_services.source_add(
            workspace=workspace, title="Launch plan (March update)", text=LAUNCH_PLAN, actor=owner
        ),
        "email": sources_services.source_add(
            workspace=workspace, title="Email from Northwind Logistics", text=CUSTOMER_EMAIL, actor=owner
        ),
    }
    claims = {}
    for source, statement, quote in CLAIMS:
        claim = claims_services.claim_add(
            workspace=workspace, source_id=sources[source].id, statement=statement, evidence_quote=quote, actor=owner
        )
        claims[statement] = claim.id
    campaign = claims_services.derived_claim_add(
        workspace=workspace,
        statement="The campaign must be ready in May because the launch is in June.",
        derived_from=[claims["The product launch is in June."], claims["The marketing campaign starts in May."]],
        actor=owner,
    )
    # Two independent justifications: the plan itself, and what the customer was told.
    launch = agents_services.decision_add(
        workspace=workspace,
        title="Launch in June",
        rationale="The March plan sets June, and Northwind has been told June.",
        justifications=[[claims["The product launch is in June."]], [claims["Northwind expects the launch in June."]]],
        actor=owner,
    )
    agents_services.action_add(
        workspace=workspace, title="Confirm the launch date with Northwind", decision_ids=[launch.id], actor=owner
    )
    # One justification only: the announcement went out on the plan's word alone, and is already done.
    announce = agents_services.decision_add(
        workspace=workspace,
        title="Announce the June launch",
        rationale="The March plan sets June; customers should hear it from us first.",
        justifications=[[claims["The product launch is in June."]]],
        actor=owner,
    )
    announcement = agents_services.action_add(
        workspace=workspace, title="Send the launch announcement", decision_ids=[announce.id], actor=owner
    )
    agents_services.action_mark(workspace=workspace, action_id=announcement.id, status="done", actor=owner)
    booking = agents_services.decision_add(
        workspace=workspace,
        title="Book the May campaign slots",
        rationale="The campaign has to be ready four weeks before the launch.",
        justifications=[[campaign.id]],
        actor=owner,
    )
    agents_services.action_add(
        workspace=workspace, title="Pay the ad agency deposit", decision_ids=[booking.id], actor=owner
    )
