"""The claims' pages: the list (every claim, or what THE search finds), a claim's because-chain, deriving a claim
from others, and what a highlight or the claim picker asks for.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any
from uuid import UUID

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from afterhack import llm
from afterhack.as_of import not_yet
from afterhack.errors import UserError
from afterhack.htmx import HtmxRequest
from afterhack.lists.filters import Filter, FilterKind, tidy
from afterhack.lists.spec import ListSpec, render_listing
from afterhack.picker import cannot_support, chosen_ids, is_step, picker_request, picker_response, query_in
from afterhack.text import MAX_STATEMENT_CHARS
from claims.lists import CLAIM_STATUS_WORDS, CLAIMS
from claims.selectors import claims as claims_selectors
from claims.selectors import picker as picker_selectors
from claims.selectors import provenance as provenance_selectors
from claims.selectors import search as search_selectors
from claims.selectors import sources as sources_selectors
from claims.services import claims as claims_services
from claims.statuses import SearchMode
from workspaces.access import get_membership, get_rw_workspace_for_user, member_page_at
from workspaces.models import Membership
from workspaces.selectors import events as event_selectors


class DerivedClaimForm(forms.Form):
    # The claims it follows from come from the claim picker (the `derived_from` fields).
    statement = forms.CharField(max_length=MAX_STATEMENT_CHARS, strip=True)


# The modes the claims page offers, in words (only with an embeddings model: without one, search is by words).
# No mode is the default, words and meaning fused.
SEARCH_MODES = ((SearchMode.SEMANTIC, "Meaning only"), (SearchMode.LEXICAL, "Words only"))

# With a search: the same list, ranked by the search (best first) unless another sort is chosen.
CLAIM_RESULTS = replace(CLAIMS, sorts={"relevance": "Best match", **CLAIMS.sorts}, default_sort="relevance")
MODE_FILTER = Filter("Match by", kind=FilterKind.CHOICE, choices=SEARCH_MODES, blank="Words and meaning")


def claims_spec(*, searching: bool) -> ListSpec:
    """The claims list's spec: ranked by relevance while searching; with the search modes when there are any."""
    spec = CLAIM_RESULTS if searching else CLAIMS
    if llm.embedding_configured():
        spec = replace(spec, filters={**spec.filters, "mode": MODE_FILTER})
    return spec


@require_GET
@login_required
def claim_search(request: HtmxRequest, ws_id: UUID) -> HttpResponse:
    """Every claim, newest first, or what a search finds, best first; filtered, sorted and paged from the address."""
    membership = get_membership(request.user, ws_id)
    return _claims_page(request, membership, params=request.GET.copy())


def _claims_page(
    request: HtmxRequest,
    membership: Membership,
    *,
    params: QueryDict,
    derived: dict[str, Any] | None = None,
    status: int = 200,
) -> HttpResponse:
    """The claims list (or a search's results) from `params`, and for a member who writes the derive form with
    its claim picker (as the form sent it back in `derived`: statement, chosen, query, error)."""
    workspace = membership.workspace
    params = request.GET.copy()
    # The default mode is no mode (hybrid, spelled out by an older address, is the default).
    if params.get("mode") == SearchMode.HYBRID:
        params.pop("mode")
    spec = claims_spec(searching=bool(tidy(params.get("q", ""))))
    criteria, _ = spec.criteria(params)
    mode = SearchMode(criteria.get("mode")) if criteria.get("mode") else None
    result = search_selectors.claim_search(
        workspace=workspace, query=criteria.q, mode=mode, limit=search_selectors.MAX_SEARCH_RESULTS
    )
    ranked = [hit.id for hit in result.hits] if criteria.q else None
    listing = spec.read_page(
        params, path=request.path, read=claims_selectors.claim_rows, count=claims_selectors.claim_rows_count,
        workspace=workspace, ranked=ranked,
    )  # fmt: skip
    source = listing.criteria.get("source")
    if source and (named := sources_selectors.source_get(workspace=workspace, source_id=source)) is not None:
        listing = listing.with_shown(source=f"“{named.title}”")
    context = {
        "workspace": workspace, "membership": membership, "listing": listing, "result": result,
        "matches": {hit.id: hit.match for hit in result.hits}, "modes": bool(llm.embedding_configured()),
        "status_words": dict(CLAIM_STATUS_WORDS),
    }  # fmt: skip
    if membership.can_write and not (request.htmx and request.htmx.target == listing.target):
        context["derive"] = _derive_context(membership, derived)
    return render_listing(request, "claims/claim_search.html", context, listing=listing, status=status)


def _derive_context(membership: Membership, derived: dict[str, Any] | None) -> dict[str, Any]:
    """The derive form: the statement, the claim picker, and the refusal, as the form sent them back."""
    derived = derived or {}
    picker = picker_selectors.claim_picker(
        workspace=membership.workspace, field="derived_from", query=derived.get("query", ""),
        chosen=derived.get("chosen", []), label="Find the claims it follows from",
        empty_words="No claim chosen yet: find the claims it follows from and add them.",
    )  # fmt: skip
    error = derived.get("error", "")
    # A refusal names the chosen claim that cannot support it by its statement, not by its id.
    if error and (weak := cannot_support(picker.chosen, only="current claims")):
        error = f"Nothing was derived: {weak}"
    return {"statement": derived.get("statement", ""), "error": error, "open": bool(derived), "picker": picker}


@require_GET
@login_required
def claim_cards(request: HtmxRequest, ws_id: UUID) -> HttpResponse:
    """The claims behind a clicked highlight (several where spans overlap)."""
    membership = get_membership(request.user, ws_id)
    ids = [value for value in request.GET.get("ids", "").split() if value][:20]
    claims = claims_selectors.claims_by_ids(workspace=membership.workspace, claim_ids=ids[:20])
    return render(request, "claims/partials/claim_cards.html", {"workspace": membership.workspace, "claims": claims})


@require_GET
@login_required
def claim_pick(request: HtmxRequest, ws_id: UUID) -> HttpResponse:
    """The claim picker's results for what was typed (the newest claims before that): a fragment over HTMX."""
    membership = get_membership(request.user, ws_id)
    picker = picker_selectors.claim_picker(workspace=membership.workspace, **picker_request(request.GET))
    return picker_response(request, picker, workspace=membership.workspace, membership=membership, section="claims")


@require_GET
@login_required
def claim_detail(request: HtmxRequest, ws_id: UUID, claim_id: str) -> HttpResponse:
    """The claim's because-chain and history; with `?as_of=`, as it was then (read-only: no form that writes)."""
    context = member_page_at(request, ws_id)
    workspace, as_of = context["workspace"], context["as_of"]
    provenance = provenance_selectors.claim_provenance(workspace=workspace, claim_id=claim_id, as_of=as_of.at or None)
    if provenance is None:
        present = as_of.past and claims_selectors.claim_get(workspace=workspace, claim_id=claim_id)
        return not_yet(request, context, present=present, thing="claim", missing=claims_services.ClaimNotFound())
    context["provenance"] = provenance
    context["history"] = event_selectors.claim_events(workspace=workspace, claim_id=claim_id, until=as_of.at)
    context["changes"] = event_selectors.changes_of(workspace=workspace, node_id=claim_id)
    return render(request, "claims/claim_detail.html", context)


@require_POST
@login_required
def claim_derive(request: HtmxRequest, ws_id: UUID) -> HttpResponse:
    """Derive a claim from the claims chosen in the picker. A button of the picker (no JavaScript) or a refusal
    shows the claims page again with the statement and the chosen claims kept."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    data = request.POST
    derived: dict[str, Any] = {
        "statement": str(data.get("statement", ""))[:MAX_STATEMENT_CHARS],
        "query": query_in(data, "derived_from"),
        "chosen": chosen_ids(data, field="derived_from"),
    }
    if not is_step(data):
        form = DerivedClaimForm(data)
        try:
            if not form.is_valid():
                raise UserError("Write the statement of the derived claim.")
            if not derived["chosen"]:
                raise UserError("Choose the claims the new one follows from: find them, then add them.")
            claim = claims_services.derived_claim_add(
                workspace=workspace, statement=form.cleaned_data["statement"], derived_from=derived["chosen"],
                actor=request.user,
            )  # fmt: skip
        except UserError as error:
            derived["error"] = f"Nothing was derived: {error}"
        else:
            messages.success(request, f"Derived claim added: “{claim.statement}”")
            return redirect("claims:claim", ws_id=workspace.id, claim_id=claim.id)
    membership = get_membership(request.user, ws_id)
    return _claims_page(
        request, membership, params=QueryDict(), derived=derived, status=422 if derived.get("error") else 200
    )
