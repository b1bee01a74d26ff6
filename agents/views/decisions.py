"""Pages of decisions: the decisions list with the new decision form (each justification chosen with a claim
picker and a decision picker), a decision (as it is, or as it was), and the decision picker's results."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods

from afterhack.as_of import not_yet
from afterhack.errors import UserError
from afterhack.htmx import HtmxRequest
from afterhack.lists.spec import render_listing
from afterhack.picker import (
    Picker,
    cannot_support,
    chosen_ids,
    is_step,
    picker_request,
    picker_response,
    query_in,
)
from afterhack.text import MAX_TITLE_CHARS
from agents.lists import DECISION_KIND_WORDS, DECISION_STATUS_WORDS, DECISIONS
from agents.selectors import decisions as decision_selectors
from agents.selectors import lists as list_selectors
from agents.selectors import picker as picker_selectors
from agents.services import decisions as decision_services
from claims.selectors import picker as claim_picker_selectors
from workspaces.access import get_membership, get_rw_workspace_for_user, member_page_at
from workspaces.models import Membership, Workspace
from workspaces.selectors import events as event_selectors


class DecisionForm(forms.Form):
    title = forms.CharField(max_length=MAX_TITLE_CHARS, strip=True)
    rationale = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3}))
    # Ids typed by hand, the fallback behind the pickers: one justification per line.
    justifications = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text="One justification per line: the ids of claims or decisions that together suffice, separated by spaces or commas.",
    )

    def clean_justifications(self) -> list[list[str]]:
        lines = self.cleaned_data["justifications"].splitlines()
        return [ids for line in lines if (ids := [i for i in line.replace(",", " ").split() if i])]


# The new decision form shows at most this many justifications (each a claim picker and a decision picker).
MAX_JUSTIFICATIONS = 12


@dataclass(frozen=True)
class JustificationPickers:
    """One justification of the new decision form: the claims and the decisions that together suffice."""

    number: int
    claims: Picker
    decisions: Picker


def justification_count(data: QueryDict) -> int:
    """How many justifications the form shows: as many as it sent (`groups`, or the highest numbered field),
    one more after “Add another”."""
    sent = str(data.get("groups") or "")
    numbers = [int(match[1]) for name in data if (match := JUSTIFICATION_FIELD.fullmatch(name))]
    count = max(int(sent) if sent.isdecimal() and len(sent) < 4 else 1, *numbers, 1)
    return max(1, min(count + (1 if data.get("more") else 0), MAX_JUSTIFICATIONS))


JUSTIFICATION_FIELD = re.compile(r"j(\d{1,3})_(claims|decisions)")


def _fields(number: int) -> tuple[str, str]:
    return f"j{number}_claims", f"j{number}_decisions"


def picked_justifications(data: QueryDict) -> list[list[str]]:
    """Each justification the pickers sent: the chosen claims and decisions of one, when any are chosen."""
    groups = []
    for number in range(1, justification_count(data) + 1):
        ids = [i for name in _fields(number) for i in chosen_ids(data, field=name)]
        if ids:
            groups.append(list(dict.fromkeys(ids)))
    return groups


def justification_pickers(workspace: Workspace, data: QueryDict, numbers: range) -> list[JustificationPickers]:
    """The pickers of these justifications, as the form sent them (nothing chosen for a new one)."""
    pickers = []
    for number in numbers:
        claims, decisions = _fields(number)
        pickers.append(
            JustificationPickers(
                number,
                claim_picker_selectors.claim_picker(
                    workspace=workspace, field=claims, query=query_in(data, claims),
                    chosen=chosen_ids(data, field=claims), label="Find claims", empty_words="No claim chosen yet.",
                ),
                picker_selectors.decision_picker(
                    workspace=workspace, field=decisions, query=query_in(data, decisions),
                    chosen=chosen_ids(data, field=decisions), label="Find decisions",
                    empty_words="No decision chosen.",
                ),
            )
        )  # fmt: skip
    return pickers


@require_GET
@login_required
def decision_list(request: HtmxRequest, ws_id: UUID) -> HttpResponse:
    membership = get_membership(request.user, ws_id)
    return _decision_page(request, membership, form=DecisionForm())


def _form_context(workspace: Workspace, form: DecisionForm, data: QueryDict | None = None) -> dict[str, Any]:
    """The new decision form with its pickers as `data` left them; a refusal names what cannot support it."""
    data = data if data is not None else QueryDict()
    justifications = justification_pickers(workspace, data, range(1, justification_count(data) + 1))
    chosen = [item for j in justifications for picker in (j.claims, j.decisions) for item in picker.chosen]
    if form.errors.get("justifications") and (weak := cannot_support(chosen)):
        form.errors["justifications"] = form.error_class([f"Nothing was saved: {weak}"])
    return {"form": form, "justifications": justifications}


def _decision_page(
    request: HtmxRequest,
    membership: Membership,
    *,
    form: DecisionForm,
    data: QueryDict | None = None,
    status: int = 200,
) -> HttpResponse:
    """The decisions list, and for a member who writes the new decision form with its pickers (not read when
    htmx asks for the list alone)."""
    path = reverse("agents:decisions", kwargs={"ws_id": membership.workspace.id})
    # A form sent back with its errors shows the list as it is first seen.
    params = request.GET if request.method == "GET" else {}
    listing = DECISIONS.read_page(
        params, path=path, read=list_selectors.decision_rows, count=list_selectors.decision_rows_count,
        workspace=membership.workspace,
    )  # fmt: skip
    asks_list_only = request.htmx and request.htmx.target == listing.target
    form_context = (
        _form_context(membership.workspace, form, data) if membership.can_write and not asks_list_only else {}
    )
    context = {
        "workspace": membership.workspace, "membership": membership, "listing": listing, "form": form,
        "status_words": dict(DECISION_STATUS_WORDS), "kind_words": dict(DECISION_KIND_WORDS), **form_context,
    }  # fmt: skip
    return render_listing(request, "agents/decision_list.html", context, listing=listing, status=status)


@require_http_methods(["GET", "POST"])
@login_required
def decision_create(request: HtmxRequest, ws_id: UUID) -> HttpResponse:
    """Create a decision from its justifications, each chosen with pickers. A GET shows the form (over HTMX with
    `more`, one more justification); a POST from a picker's own button comes back changed, and saves nothing."""
    membership = get_membership(request.user, ws_id)
    if request.method == "GET" and not membership.can_write:
        return redirect("agents:decisions", ws_id=ws_id)
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    if request.method == "GET" and request.htmx and request.GET.get("more"):
        number = justification_count(request.GET)
        if number >= MAX_JUSTIFICATIONS and str(request.GET.get("groups")) == str(MAX_JUSTIFICATIONS):
            # Already at the most a form takes: nothing to add (204: htmx swaps nothing).
            return HttpResponse(status=204)
        context = {
            "workspace": workspace,
            "count": number,
            "j": justification_pickers(workspace, request.GET, range(number, number + 1))[0],
        }
        return render(request, "agents/decision_list.html#justification-more", context)
    data = request.POST if request.method == "POST" else QueryDict()
    if request.method == "GET" or is_step(data):
        # Nothing to save yet: the form as it was sent, without errors for what is still to be filled in.
        form = DecisionForm(initial={name: data.get(name, "") for name in ("title", "rationale", "justifications")})
    else:
        form = DecisionForm(data)
        decision = _create(request, workspace, form) if form.is_valid() else None
        if decision is not None:
            messages.success(request, f"Decision “{decision.title}” created.")
            return redirect("agents:decision", ws_id=workspace.id, decision_id=decision.id)
    return _decision_page(request, membership, form=form, data=data, status=422 if form.errors else 200)


def _create(request: HtmxRequest, workspace: Workspace, form: DecisionForm) -> decision_selectors.Decision | None:
    """The decision the valid form describes, or None with the refusal on the form."""
    groups = picked_justifications(request.POST) + form.cleaned_data["justifications"]
    try:
        if not groups:
            raise UserError(NOTHING_CHOSEN)
        return decision_services.decision_add(
            workspace=workspace, actor=request.user, title=form.cleaned_data["title"],
            rationale=form.cleaned_data["rationale"], justifications=groups,
        )  # fmt: skip
    except UserError as error:
        form.add_error("justifications", str(error))
        return None


NOTHING_CHOSEN = "Choose what it rests on: find the claims (or decisions) of at least one justification and add them."


@require_GET
@login_required
def decision_pick(request: HtmxRequest, ws_id: UUID) -> HttpResponse:
    """The decision picker's results for what was typed (the newest decisions before that): a fragment over HTMX."""
    membership = get_membership(request.user, ws_id)
    picker = picker_selectors.decision_picker(workspace=membership.workspace, **picker_request(request.GET))
    return picker_response(request, picker, workspace=membership.workspace, membership=membership, section="decisions")


@require_GET
@login_required
def decision_detail(request: HtmxRequest, ws_id: UUID, decision_id: str) -> HttpResponse:
    """The decision, its justifications and actions; with `?as_of=`, as it was then (read-only)."""
    context = member_page_at(request, ws_id)
    workspace, as_of = context["workspace"], context["as_of"]
    view = decision_selectors.decision_view(workspace=workspace, decision_id=decision_id, as_of=as_of.at or None)
    if view is None:
        present = as_of.past and decision_selectors.decision_get(workspace=workspace, decision_id=decision_id)
        return not_yet(
            request, context, present=present, thing="decision", missing=decision_services.DecisionNotFound()
        )
    context["decision_view"] = view
    context["changes"] = event_selectors.changes_of(workspace=workspace, node_id=decision_id)
    return render(request, "agents/decision.html", context)
