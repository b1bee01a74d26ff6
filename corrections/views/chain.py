"""A claim's chain: where it comes from, what rests on it, how it was corrected."""

from __future__ import annotations

from uuid import UUID

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from afterhack.htmx import HtmxRequest
from claims.selectors import claims as claims_selectors
from claims.selectors import provenance as provenance_selectors
from claims.services import claims as claims_services
from corrections.selectors import corrections as corrections_selectors
from corrections.selectors import pictures as pictures_selectors
from workspaces.access import get_membership


@require_GET
@login_required
def claim_chain(request: HtmxRequest, ws_id: UUID, claim_id: str) -> HttpResponse:
    """The product view of one claim: where it comes from, what rests on it, how it was corrected."""
    membership = get_membership(request.user, ws_id)
    claim = claims_selectors.claim_get(workspace=membership.workspace, claim_id=claim_id)
    chain = corrections_selectors.claim_chain(workspace=membership.workspace, claim_id=claim_id)
    if claim is None or chain is None:
        raise claims_services.ClaimNotFound()
    context = {
        "workspace": membership.workspace,
        "membership": membership,
        "claim": claim,
        "source": chain.source,
        "cited": provenance_selectors.cited_view(workspace=membership.workspace, claim=claim),
        "decisions": chain.decisions,
        "derived": chain.derived,
        "premises": claims_selectors.claims_by_ids(
            workspace=membership.workspace, claim_ids=[i for group in claim.derived_from for i in group]
        ),
        "corrections": chain.corrections,
        "picture": pictures_selectors.chain_picture(
            workspace=membership.workspace, claim=claim, source=chain.source, corrections=chain.corrections
        ),
    }
    return render(request, "corrections/claim_chain.html", context)
