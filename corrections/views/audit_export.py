"""The staff audit's CSV export: the filtered events, every page, streamed; no cell a spreadsheet runs as a formula."""

from __future__ import annotations

import csv
from datetime import UTC, datetime
from itertools import batched, chain
from typing import Any

from django.http import StreamingHttpResponse
from django.views.decorators.http import require_GET

from afterhack.htmx import HtmxRequest
from corrections.selectors import audit as audit_selectors
from corrections.views.staff import staff_only
from workspaces.selectors import events as event_selectors
from workspaces.selectors import memberships as membership_selectors
from workspaces.selectors.events import EventRow

CSV_COLUMNS = ["time (UTC)", "workspace", "person", "kind", "summary", "target ids"]
# A spreadsheet runs a cell that starts with one of these as a formula (CSV injection); a leading quote keeps it text.
# What a spreadsheet reads as the start of a formula, also in full-width forms and after leading spaces.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "＝", "＋", "－", "＠")
# A byte-order mark first: spreadsheets then read the file as UTF-8 (the summaries' curly quotes intact).
CSV_BOM = "\ufeff"
# Events read, and their corrections asked about, this many at a time.
CSV_CHUNK = 500


def _cell(value: str) -> str:
    return "'" + value if value.lstrip(" ").startswith(FORMULA_STARTS) else value


def _target_ids(payload: dict[str, Any]) -> str:
    """The ids an event's payload names (`claim_id=…`, lists joined), in one cell."""
    named = []
    for key, value in sorted(payload.items()):
        if key.endswith("_id") and isinstance(value, str):
            named.append(f"{key}={value}")
        elif (key.endswith("_ids") or key in ("retracted", "cancelled", "moved")) and isinstance(value, list):
            named.append(f"{key}={' '.join(str(i) for i in value)}")
    return "; ".join(named)


def _csv_row(row: EventRow) -> list[str]:
    event = row.event
    when = event.created_at.astimezone(UTC).isoformat()
    workspace = event.workspace.name if event.workspace else ""
    cells = [when, workspace, event.actor_name, event.kind, row.summary, _target_ids(row.recorded)]
    return [_cell(cell) for cell in cells]


class _Echo:
    """A file that hands back what is written to it, so csv.writer can feed a streaming response line by line."""

    def write(self, line: str) -> str:
        return line


@require_GET
@staff_only
def audit_export(request: HtmxRequest) -> StreamingHttpResponse:
    """The audit's filtered events as CSV: every page, streamed, in the list's order, each as the auditor may read
    it (workspaces/disclosure.py)."""
    spec = audit_selectors.audit_spec()
    criteria, _ = spec.criteria(request.GET)
    memberships = membership_selectors.memberships_by_workspace(user=request.user)
    readable = membership_selectors.readable_in(memberships)
    events = event_selectors.audit_events(spec, criteria=criteria, readable=readable).iterator(chunk_size=CSV_CHUNK)
    rows = (row for chunk in batched(events, CSV_CHUNK) for row in audit_selectors.audit_rows(list(chunk), memberships))
    writer = csv.writer(_Echo())
    lines = chain([CSV_BOM], (writer.writerow(row) for row in chain([CSV_COLUMNS], map(_csv_row, rows))))
    response = StreamingHttpResponse(lines, content_type="text/csv; charset=utf-8")
    filename = f"afterhack-audit-{datetime.now(UTC):%Y-%m-%d}.csv"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
