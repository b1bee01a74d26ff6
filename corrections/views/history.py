"""The workspace's corrections (paged, sorted, filtered) and a correction's page."""

from __future__ import annotations

from uuid import UUID

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET
from django_htmx.http import push_url

from afterhack.htmx import HtmxRequest
from afterhack.picker import filter_params, query_in
from claims.selectors import picker as picker_selectors
from corrections.lists import HISTORY
from corrections.selectors import corrections as corrections_selectors
from corrections.selectors import detail as detail_selectors
from workspaces.access import get_membership


@require_GET
@login_required
def history(request: HtmxRequest, ws_id: UUID) -> HttpResponse:
    """The workspace's corrections: paged, sorted, filtered by person, claim, impact and day."""
    membership = get_membership(request.user, ws_id)
    workspace = membership.workspace
    listing = HISTORY.listing(
        filter_params(request.GET, field="claim"),
        read=lambda criteria, offset, limit: corrections_selectors.history_page(
            workspace=workspace, criteria=criteria, offset=offset, limit=limit
        ),
        count=lambda criteria: corrections_selectors.history_count(workspace=workspace, criteria=criteria),
        path=request.path,
    )
    claim = listing.criteria.get("claim")
    picker = picker_selectors.claim_picker(
        workspace=workspace, field="claim", query=query_in(request.GET, "claim"),
        chosen=[claim] if claim else [], single=True, needs_support=False, label="Claim",
        empty_words="Any claim: find one to see its corrections.",
    )  # fmt: skip
    # The filter sentence names the claim by its statement, not its id.
    listing = listing.with_shown(claim=f"“{picker.chosen[0].text}”") if picker.chosen else listing
    context = {"workspace": workspace, "membership": membership, "listing": listing, "claim_picker": picker}
    response = render(
        request, "corrections/history.html#corrections" if request.htmx else "corrections/history.html", context
    )
    if request.htmx:
        # The address kept in the history is the list's own, shortest one (a picked claim is its id there).
        push_url(response, listing.address)
    return response


@require_GET
@login_required
def detail(request: HtmxRequest, ws_id: UUID, correction_id: str) -> HttpResponse:
    membership = get_membership(request.user, ws_id)
    context = detail_selectors.correction_detail(workspace=membership.workspace, correction_id=correction_id) | {
        "membership": membership
    }
    return render(request, "corrections/detail.html", context)
