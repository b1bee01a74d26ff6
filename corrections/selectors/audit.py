"""The staff audit's reads: its list of events (every workspace), each as the auditor may read it
(workspaces/disclosure.py), a correction's with what it corrected."""

from __future__ import annotations

import logging
from uuid import UUID

from afterhack.errors import GraphError
from afterhack.lists.spec import ListSpec
from corrections.disclosure import CORRECTION
from corrections.selectors import corrections as corrections_selectors
from workspaces.models import AuditEvent, Membership, Workspace
from workspaces.selectors import events as event_selectors
from workspaces.selectors import memberships as membership_selectors
from workspaces.selectors.events import EventRow

logger = logging.getLogger("corrections")


def audit_spec() -> ListSpec:
    """The staff audit's list: the activity list's filters (each declared once, workspaces/selectors/events.py
    `event_filters`), with a choice of every workspace."""
    return event_selectors.event_spec("audit", workspaces=list(membership_selectors.workspaces_by_name()))


def corrected_from(events: list[AuditEvent]) -> dict[str, str]:
    """What each correction among the events corrected (its old statement, which its event does not keep), read
    from the corrections themselves: one graph read per workspace. A workspace whose graph does not answer is left
    out: its corrections then say only what they corrected to."""
    asked: dict[UUID, tuple[Workspace, list[str]]] = {}
    for event in events:
        correction_id = event.payload.get("correction_id")
        if event.verb == CORRECTION and event.workspace is not None and isinstance(correction_id, str):
            asked.setdefault(event.workspace.id, (event.workspace, []))[1].append(correction_id)
    before: dict[str, str] = {}
    for workspace, correction_ids in asked.values():
        try:
            corrections = corrections_selectors.corrections_get(workspace=workspace, correction_ids=correction_ids)
        except GraphError:
            logger.warning("audit: the corrections of %s could not be read", workspace.id, exc_info=True)
            continue
        before |= {c.id: c.old_statement for c in corrections if c.old_statement}
    return before


def audit_rows(events: list[AuditEvent], memberships: dict[UUID, Membership]) -> list[EventRow]:
    """The events as this auditor may read them (workspaces/disclosure.py), each correction with what it corrected."""
    return event_selectors.event_rows(events, memberships=memberships, corrected_from=corrected_from(events))
