"""The staff audit: every audited event of every workspace (read-only, filtered, paged), one event, and a correction's
page for auditors; each as the auditor may read it (workspaces/disclosure.py)."""

from __future__ import annotations

import json
from dataclasses import replace
from urllib.parse import urlencode
from uuid import UUID

from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from afterhack.errors import found
from afterhack.htmx import HtmxRequest
from corrections.disclosure import CORRECTION
from corrections.selectors import audit as audit_selectors
from corrections.selectors import detail as detail_selectors
from corrections.views.staff import staff_only
from workspaces.models import AuditEvent
from workspaces.selectors import events as event_selectors
from workspaces.selectors import memberships as membership_selectors


@require_GET
@staff_only
def audit(request: HtmxRequest) -> HttpResponse:
    """Staff auditors: every audited event of every workspace, read-only, filtered and paged, and its CSV export;
    the content of a workspace they may not read is withheld (workspaces/disclosure.py)."""
    memberships = membership_selectors.memberships_by_workspace(user=request.user)
    listing = event_selectors.event_listing(
        audit_selectors.audit_spec(),
        request.GET,
        path=request.path,
        readable=membership_selectors.readable_in(memberships),
    )
    rows = [
        replace(row, detail_url=reverse("corrections:audit_event", args=[row.event.pk]))
        for row in audit_selectors.audit_rows(listing.items, memberships)
    ]
    # The export takes the same filters and sort, and every page.
    export = reverse("corrections:audit_export") + listing.href(page=1).removeprefix(listing.path)
    context = {
        "listing": listing.with_items(rows), "export_href": export.removesuffix("?"),
        # The W3C PROV export of each workspace the auditor may read, in the three formats.
        "prov_workspaces": [w for w in membership_selectors.workspaces_by_name() if w.id in memberships],
    }  # fmt: skip
    return render(request, "corrections/audit.html#events" if request.htmx else "corrections/audit.html", context)


@require_GET
@staff_only
def audit_event(request: HtmxRequest, event_id: int) -> HttpResponse:
    """One audited event for staff: who did what when, where, what it names, and what it recorded (its content
    withheld where they may not read its workspace); a correction's from, to and why."""
    event = found(event_selectors.audit_event_get(event_id=event_id), Http404("No such audited event."))
    memberships = membership_selectors.memberships_by_workspace(user=request.user)
    before = audit_selectors.corrected_from([event])
    row = event_selectors.event_rows([event], memberships=memberships, corrected_from=before)[0]
    reads = event.workspace_id is None or event.workspace_id in memberships
    context = {
        "row": row,
        "corrected": _corrected(event, before),
        "correction_url": _audit_detail_url(event),
        "prov_url": _audit_prov_url(event) if reads else "",
        "recorded": json.dumps(row.recorded, indent=2, ensure_ascii=False, sort_keys=True),
    }
    return render(request, "corrections/audit_event.html", context)


def _corrected(event: AuditEvent, before: dict[str, str]) -> dict[str, str] | None:
    """A correction's from, to and why (every auditor's to read); None for other events."""
    if event.verb != CORRECTION:
        return None
    words = {key: value for key in ("statement", "reason") if isinstance(value := event.payload.get(key), str)}
    return {"from": before.get(str(event.payload.get("correction_id")), ""), "to": words.get("statement", event.target),
            "why": words.get("reason", "")}  # fmt: skip


def _audit_detail_url(event: AuditEvent) -> str:
    """A correction's page for auditors (whether or not they belong to its workspace); '' for other events."""
    correction_id = event.payload.get("correction_id")
    if event.verb != CORRECTION or not isinstance(correction_id, str) or event.workspace_id is None:
        return ""
    return reverse("corrections:audit_detail", args=[event.workspace_id, correction_id])


def _audit_prov_url(event: AuditEvent) -> str:
    """The staff PROV export of the chain of a correction's claim (without its format); '' for other events."""
    claim_id = event.payload.get("claim_id")
    if not _audit_detail_url(event) or not isinstance(claim_id, str):
        return ""
    return reverse("corrections:audit_prov") + "?" + urlencode({"workspace": event.workspace_id, "root": claim_id})


@require_GET
@staff_only
def audit_detail(request: HtmxRequest, ws_id: UUID, correction_id: str) -> HttpResponse:
    """A correction's page for staff auditors. One who belongs to the workspace, or may read every workspace, reads
    it as members do and opens what it names; to others it says what the correction changed — from, to, why, by
    whom, and what lost support or was held — and reads nothing else (`correction_outline_detail`)."""
    workspace = found(membership_selectors.workspace_get(workspace_id=ws_id), Http404("No such workspace."))
    if workspace.id in membership_selectors.memberships_by_workspace(user=request.user):
        context = detail_selectors.correction_detail(workspace=workspace, correction_id=correction_id) | {
            "auditing": True
        }
    else:
        context = detail_selectors.correction_outline_detail(workspace=workspace, correction_id=correction_id)
    return render(request, "corrections/detail.html", context)
