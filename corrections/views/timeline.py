"""The timeline of changes of belief, and the diff between two moments (docs/history.md)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from uuid import UUID

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from afterhack.clock import BadMoment, moment_iso, now_iso
from afterhack.htmx import HtmxRequest
from afterhack.lists.spec import render_listing
from corrections.lists import TIMELINE
from corrections.selectors import timeline as timeline_selectors
from workspaces.access import get_membership


@require_GET
@login_required
def timeline(request: HtmxRequest, ws_id: UUID) -> HttpResponse:
    """Every recorded change of belief of the workspace: paged, newest first, filtered by kind, cause, person, day
    and the words of what changed."""
    membership = get_membership(request.user, ws_id)
    workspace = membership.workspace
    listing = TIMELINE.read_page(
        request.GET, path=request.path, read=timeline_selectors.timeline_page, count=timeline_selectors.timeline_count,
        workspace=workspace,
    )  # fmt: skip
    rows = [timeline_selectors.change_row(workspace.id, step) for step in listing.items]
    context = {"workspace": workspace, "membership": membership, "listing": listing.with_items(rows)}
    return render_listing(request, "corrections/timeline.html", context, listing=listing)


# The diff's default window: the last seven days, up to the next whole minute (what the date-time fields show).
DIFF_DAYS = 7
FIELD_FORMAT = "%Y-%m-%dT%H:%M"


def _field_value(moment: str) -> str:
    """A graph time as a date-time field shows it (UTC, to the minute)."""
    return datetime.fromisoformat(moment).astimezone(UTC).strftime(FIELD_FORMAT)


@require_GET
@login_required
def diff(request: HtmxRequest, ws_id: UUID) -> HttpResponse:
    """What changed in the workspace's beliefs between two moments (`from`, `to`: ISO 8601, UTC when no offset is
    given; by default the last seven days). A moment that cannot be read, or `from` after `to`, is said in a
    sentence on the page (422), with the fields to fix it."""
    membership = get_membership(request.user, ws_id)
    workspace = membership.workspace
    end_default = (datetime.now(UTC) + timedelta(minutes=1)).replace(second=0, microsecond=0)
    defaults = {
        "from": (end_default - timedelta(days=DIFF_DAYS)).isoformat(timespec="microseconds"),
        "to": end_default.isoformat(timespec="microseconds"),
    }
    moments: dict[str, str] = {}
    problems: list[str] = []
    for name in ("from", "to"):
        raw = request.GET.get(name, "")
        try:
            moments[name] = moment_iso(raw, name=name, day_starts=name == "from") if raw.strip() else defaults[name]
        except BadMoment as error:
            problems.append(str(error))
            moments[name] = ""
    start, end = moments["from"], moments["to"]
    if not problems and start > end:
        problems.append(
            f"“from” ({_field_value(start).replace('T', ' ')} UTC) is after “to” "
            f"({_field_value(end).replace('T', ' ')} UTC): give the earlier moment first."
        )
    result = None if problems else timeline_selectors.beliefs_diff(workspace=workspace, start=start, end=end)
    context = {
        "workspace": workspace,
        "membership": membership,
        "diff": result,
        # The dashboard shows a moment that has come; the default window ends at the next whole minute.
        "end_has_come": bool(result) and end <= now_iso(),
        "kinds": [timeline_selectors.kind_rows(workspace.id, kind) for kind in result.kinds] if result else [],
        "problems": problems,
        "fields": {
            name: _field_value(moments[name]) if moments[name] else request.GET.get(name, "")[:40]
            for name in ("from", "to")
        },
    }
    return render(request, "corrections/diff.html", context, status=422 if problems else 200)
