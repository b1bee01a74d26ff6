"""Pages: ask a question, the run and its trajectory (live over HTMX), decisions, actions."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, HttpResponseRedirect, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from afterhack import confirm, llm
from afterhack.as_of import not_yet
from afterhack.errors import UserError, found
from afterhack.htmx import HtmxRequest
from afterhack.listing import Filter, ListSpec, render_listing
from afterhack.picker import (
    Picker,
    cannot_support,
    chosen_ids,
    filter_params,
    is_step,
    picker_request,
    picker_response,
    query_in,
)
from afterhack.text import MAX_QUESTION_CHARS, MAX_TITLE_CHARS
from agents import selectors, services
from agents.statuses import ActionStatus, DecisionKind, DecisionStatus, RunOrigin
from claims.selectors import picker as picker_selectors
from claims.statuses import JobStatus
from workspaces import selectors as workspace_selectors
from workspaces.access import get_membership, get_rw_workspace_for_user, member_page_at
from workspaces.models import Membership, Workspace

# Statuses, kinds and origins in words, for the lists' filters and badges.
DECISION_STATUS_WORDS = (
    (DecisionStatus.SUPPORTED, "Supported"),
    (DecisionStatus.NEEDS_REVIEW, "Needs review"),
    (DecisionStatus.SUPERSEDED, "Revised"),
)
DECISION_KIND_WORDS = (
    (DecisionKind.MANUAL, "Made by a person"),
    (DecisionKind.AGENT, "The agent's answer"),
    (DecisionKind.UNANSWERED, "A question the agent could not answer"),
)
ACTION_STATUS_WORDS = (
    (ActionStatus.PENDING, "Pending"),
    (ActionStatus.HELD, "Held"),
    (ActionStatus.DONE, "Done"),
    (ActionStatus.CANCELLED, "Cancelled"),
)
RUN_STATUS_WORDS = (
    (JobStatus.QUEUED, "Queued"),
    (JobStatus.RUNNING, "Running (or an open MCP session)"),
    (JobStatus.DONE, "Done"),
    (JobStatus.FAILED, "Failed"),
)
RUN_ORIGIN_WORDS = ((RunOrigin.AGENT, "This app (page or API)"), (RunOrigin.MCP, "An outside agent (MCP)"))
MADE = {"author": Filter("By"), "from": Filter("From", kind="day"), "to": Filter("To", kind="day")}

DECISIONS = ListSpec(
    name="decisions",
    noun=("decision", "decisions"),
    sorts={"title": "Decision", "status": "Status", "created": "When"},
    default_sort="-created",
    filters={
        "status": Filter("Status", kind="choice", choices=DECISION_STATUS_WORDS),
        "kind": Filter("Kind", kind="choice", choices=DECISION_KIND_WORDS),
        **MADE,
    },
    search="Title",
)
# `decision` filters by one decision's id: the actions that depend on it.
ACTIONS = ListSpec(
    name="actions",
    noun=("action", "actions"),
    sorts={"title": "Action", "status": "Status", "created": "When"},
    default_sort="-created",
    filters={
        "status": Filter("Status", kind="choice", choices=ACTION_STATUS_WORDS),
        "decision": Filter("Depends on decision"),
        **MADE,
    },
    search="Title",
)
RUNS = ListSpec(
    name="runs",
    noun=("run", "runs"),
    sorts={"question": "Question", "status": "Status", "created": "When"},
    default_sort="-created",
    filters={
        "origin": Filter("Origin", kind="choice", choices=RUN_ORIGIN_WORDS),
        "status": Filter("Status", kind="choice", choices=RUN_STATUS_WORDS),
        "person": Filter("Asked by"),
        "from": Filter("Asked from", kind="day"),
        "to": Filter("Asked to", kind="day"),
    },
    search="Question",
)


class AskForm(forms.Form):
    question = forms.CharField(max_length=MAX_QUESTION_CHARS, strip=True)


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
                picker_selectors.claim_picker(
                    workspace=workspace, field=claims, query=query_in(data, claims),
                    chosen=chosen_ids(data, field=claims), label="Find claims", empty_words="No claim chosen yet.",
                ),
                selectors.decision_picker(
                    workspace=workspace, field=decisions, query=query_in(data, decisions),
                    chosen=chosen_ids(data, field=decisions), label="Find decisions",
                    empty_words="No decision chosen.",
                ),
            )
        )  # fmt: skip
    return pickers


class ActionForm(forms.Form):
    title = forms.CharField(max_length=MAX_TITLE_CHARS, strip=True)


def agent_label() -> str:
    if llm.is_configured():
        return f"Analyst and Coordinator through {llm.model_name()}"
    return "Offline rule-based agent (no model configured): it searches, retrieves the top claims and decides on those"


# -- asking -------------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
@login_required
def ask(request: HtmxRequest, ws_id: UUID) -> HttpResponse:
    membership = get_membership(request.user, ws_id)
    # "Ask again" from the review page links here with the question filled in.
    form = AskForm(request.POST or None, initial={"question": request.GET.get("question", "")[:MAX_QUESTION_CHARS]})
    if request.method == "POST":
        workspace = get_rw_workspace_for_user(request.user, ws_id)
        if form.is_valid():
            try:
                run_id = services.ask(workspace=workspace, question=form.cleaned_data["question"], actor=request.user)
            except UserError as error:
                form.add_error("question", str(error))
            else:
                return redirect("agents:run", ws_id=workspace.id, run_id=run_id)
    context = {
        "workspace": membership.workspace, "membership": membership, "form": form, "agent_label": agent_label(),
        "runs": selectors.newest_runs(workspace=membership.workspace, limit=20),
    }  # fmt: skip
    return render(request, "agents/ask.html", context, status=422 if form.errors else 200)


@require_GET
@login_required
def run_detail(request: HtmxRequest, ws_id: UUID, run_id: str) -> HttpResponse:
    """The run page; while the run is going, its body is polled as a fragment."""
    membership = get_membership(request.user, ws_id)
    # ?before=N shows the steps before step N (an MCP session may have thousands; the page shows the newest).
    before = request.GET.get("before", "")
    steps_before = int(before) if before.isdecimal() and 0 < len(before) < 10 else None
    view = found(
        selectors.run_view(workspace=membership.workspace, run_id=run_id, steps_before=steps_before),
        services.RunNotFound(),
    )
    context = {"workspace": membership.workspace, "membership": membership, "run_view": view,
               "steps_before": steps_before}  # fmt: skip
    template = "agents/run.html#run-body" if request.htmx else "agents/run.html"
    return render(request, template, context)


@require_GET
@login_required
def run_list(request: HtmxRequest, ws_id: UUID) -> HttpResponse:
    """Every run of the workspace: the built-in agent's and outside agents' MCP sessions."""
    membership = get_membership(request.user, ws_id)
    listing = RUNS.read_page(
        request.GET, path=request.path, read=selectors.run_rows, count=selectors.run_rows_count,
        workspace=membership.workspace,
    )  # fmt: skip
    context = {
        "workspace": membership.workspace, "membership": membership, "listing": listing,
        "status_words": dict(RUN_STATUS_WORDS),
    }  # fmt: skip
    return render_listing(request, "agents/run_list.html", context, listing=listing)


# -- decisions ------------------------------------------------------------------------------------


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
        params, path=path, read=selectors.decision_rows, count=selectors.decision_rows_count,
        workspace=membership.workspace,
    )  # fmt: skip
    asks_list_only = request.htmx and request.headers.get("HX-Target") == listing.target
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


def _create(request: HtmxRequest, workspace: Workspace, form: DecisionForm) -> selectors.Decision | None:
    """The decision the valid form describes, or None with the refusal on the form."""
    groups = picked_justifications(request.POST) + form.cleaned_data["justifications"]
    try:
        if not groups:
            raise UserError(NOTHING_CHOSEN)
        return services.decision_add(
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
    picker = selectors.decision_picker(workspace=membership.workspace, **picker_request(request.GET))
    return picker_response(request, picker, workspace=membership.workspace, membership=membership, section="decisions")


@require_GET
@login_required
def decision_detail(request: HtmxRequest, ws_id: UUID, decision_id: str) -> HttpResponse:
    """The decision, its justifications and actions; with `?as_of=`, as it was then (read-only)."""
    context = member_page_at(request, ws_id)
    workspace, as_of = context["workspace"], context["as_of"]
    view = selectors.decision_view(workspace=workspace, decision_id=decision_id, as_of=as_of.at or None)
    if view is None:
        present = as_of.past and selectors.decision_get(workspace=workspace, decision_id=decision_id)
        return not_yet(request, context, present=present, thing="decision", missing=services.DecisionNotFound())
    context["decision_view"] = view
    context["changes"] = workspace_selectors.changes_of(workspace=workspace, node_id=decision_id)
    return render(request, "agents/decision.html", context)


@require_POST
@login_required
def action_create(request: HtmxRequest, ws_id: UUID, decision_id: str) -> HttpResponse:
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    form = ActionForm(request.POST)
    if form.is_valid():
        try:
            action = services.action_add(
                workspace=workspace, title=form.cleaned_data["title"], decision_ids=[decision_id], actor=request.user
            )
        except UserError as error:
            messages.error(request, str(error))
        else:
            messages.success(request, f"Action “{action.title}” added ({action.status}).")
    else:
        messages.error(request, "An action needs a title.")
    return redirect("agents:decision", ws_id=workspace.id, decision_id=decision_id)


# -- actions -------------------------------------------------------------------------------------


@require_GET
@login_required
def action_list(request: HtmxRequest, ws_id: UUID) -> HttpResponse:
    """The actions, paged, sorted and filtered; ?decision= (the decision they depend on) is chosen with its picker."""
    membership = get_membership(request.user, ws_id)
    workspace = membership.workspace
    listing = ACTIONS.read_page(
        filter_params(request.GET, field="decision"), path=request.path, read=selectors.action_rows, count=selectors.action_rows_count,
        workspace=workspace,
    )  # fmt: skip
    decision = listing.criteria.get("decision")
    picker = selectors.decision_picker(
        workspace=workspace, field="decision", query=query_in(request.GET, "decision"),
        chosen=[decision] if decision else [], single=True, needs_support=False, label="Depends on decision",
        empty_words="Any decision: find one to see only its actions.",
    )  # fmt: skip
    if picker.chosen:
        listing = listing.with_shown(decision=f"“{picker.chosen[0].text}”")
    context = {
        "workspace": workspace, "membership": membership, "listing": listing,
        "status_words": dict(ACTION_STATUS_WORDS), "decision_picker": picker,
    }  # fmt: skip
    return render_listing(request, "agents/action_list.html", context, listing=listing)


@require_GET
@login_required
def action_detail(request: HtmxRequest, ws_id: UUID, action_id: str) -> HttpResponse:
    """One action: where it stands and why, the decisions it depends on, what can be done with it, its history;
    with `?as_of=`, as it was then (read-only)."""
    context = member_page_at(request, ws_id)
    workspace, as_of = context["workspace"], context["as_of"]
    view = selectors.action_view(workspace=workspace, action_id=action_id, as_of=as_of.at or None)
    if view is None:
        present = as_of.past and selectors.action_get(workspace=workspace, action_id=action_id)
        return not_yet(request, context, present=present, thing="action", missing=services.ActionNotFound())
    context["action_view"] = view
    context["history"] = workspace_selectors.action_events(workspace=workspace, action_id=action_id, until=as_of.at)
    context["changes"] = workspace_selectors.changes_of(workspace=workspace, node_id=action_id)
    return render(request, "agents/action.html", context)


# The moves that ask first, with the question and what it means. A reopen does not ask: it is the undo.
ACTION_QUESTIONS = {
    ActionStatus.CANCELLED: (
        "Cancel “{title}”?",
        "It will not be done; you can reopen it while its decisions hold.",
        "Yes, cancel it",
    ),
    ActionStatus.DONE: ("Mark “{title}” done?", "This cannot be undone.", "Yes, mark it done"),
}
ACTION_MARKED = {
    ActionStatus.CANCELLED: "“{title}” is cancelled. Reopen it while its decisions hold.",
    ActionStatus.DONE: "“{title}” is done.",
    ActionStatus.PENDING: "“{title}” is reopened: it is pending again.",
}
# The columns of an action's row for a member who can write (agents/partials/action_table.html).
ACTION_ROW_COLUMNS = 5


@require_POST
@login_required
def action_mark(request: HtmxRequest, ws_id: UUID, action_id: str) -> HttpResponse:
    """Done and cancel ask first (confirm.ask) and act on the confirmed second POST; a reopen acts at once."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    status = request.POST.get("status", "")
    back = page_to_return_to(request, default=reverse("agents:actions", kwargs={"ws_id": workspace.id}))
    action = found(selectors.action_get(workspace=workspace, action_id=action_id), services.ActionNotFound())
    # Only a move that can happen is asked about; any other is refused at once, in words.
    movable = status in services.ACTION_MOVES and action.status in services.ACTION_MOVES[ActionStatus(status)]
    if movable and status in ACTION_QUESTIONS and not confirm.is_confirmed(request):
        question, consequence, yes = ACTION_QUESTIONS[ActionStatus(status)]
        return confirm.ask(
            request, question=question.format(title=action.title), consequence=consequence, yes=yes,
            action=request.path, fields={"status": status, "next": back}, back=back,
            target=f"#action-{action.id}", columns=ACTION_ROW_COLUMNS,
        )  # fmt: skip
    try:
        marked = services.action_mark(workspace=workspace, action_id=action_id, status=status, actor=request.user)
        messages.success(request, ACTION_MARKED[ActionStatus(marked.status)].format(title=marked.title))
    except UserError as error:
        messages.error(request, str(error))
    if not request.htmx:
        return HttpResponseRedirect(back)
    action = selectors.action_get(workspace=workspace, action_id=action_id) or action
    membership = get_membership(request.user, ws_id)
    # What happened is said in this row only (on a full page, the flash messages are the page's, not a row's).
    said = list(messages.get_messages(request))
    context = {"workspace": workspace, "membership": membership, "action": action, "next": back, "row_messages": said}
    return render(request, "agents/partials/action_row.html", context)


def page_to_return_to(request: HtmxRequest, *, default: str) -> str:
    """The `next` path of the form if it is a page of this site, else `default`."""
    back = request.POST.get("next", "")
    # Only a path on this site: an address elsewhere would make the form an open redirect.
    if back.startswith("/") and url_has_allowed_host_and_scheme(
        back, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return back
    return default
