"""Pages: ask a question, the run and its trajectory (live over HTMX), decisions, actions."""

from __future__ import annotations

from uuid import UUID

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from afterhack import confirm, llm
from afterhack.errors import UserError, found
from afterhack.htmx import HtmxRequest
from afterhack.listing import Filter, ListSpec, render_listing
from afterhack.text import MAX_QUESTION_CHARS, MAX_TITLE_CHARS
from agents import selectors, services
from agents.statuses import ActionStatus, DecisionKind, DecisionStatus, RunOrigin
from claims.statuses import JobStatus
from workspaces.access import get_membership, get_rw_workspace_for_user

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
    justifications = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text="One justification per line: the ids of claims or decisions that together suffice, separated by spaces or commas.",
    )

    def clean_justifications(self) -> list[list[str]]:
        lines = self.cleaned_data["justifications"].splitlines()
        return [ids for line in lines if (ids := [i for i in line.replace(",", " ").split() if i])]


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
    return _decision_page(request, ws_id, form=DecisionForm())


def _decision_page(request: HtmxRequest, ws_id: UUID, *, form: DecisionForm, status: int = 200) -> HttpResponse:
    membership = get_membership(request.user, ws_id)
    path = reverse("agents:decisions", kwargs={"ws_id": membership.workspace.id})
    # A form sent back with its errors shows the list as it is first seen.
    params = request.GET if request.method == "GET" else {}
    listing = DECISIONS.read_page(
        params, path=path, read=selectors.decision_rows, count=selectors.decision_rows_count,
        workspace=membership.workspace,
    )  # fmt: skip
    context = {
        "workspace": membership.workspace, "membership": membership, "listing": listing, "form": form,
        "status_words": dict(DECISION_STATUS_WORDS), "kind_words": dict(DECISION_KIND_WORDS),
    }  # fmt: skip
    return render_listing(request, "agents/decision_list.html", context, listing=listing, status=status)


@require_POST
@login_required
def decision_create(request: HtmxRequest, ws_id: UUID) -> HttpResponse:
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    form = DecisionForm(request.POST)
    if form.is_valid():
        try:
            decision = services.decision_add(workspace=workspace, actor=request.user, **form.cleaned_data)
        except UserError as error:
            form.add_error("justifications", str(error))
        else:
            messages.success(request, f"Decision “{decision.title}” created.")
            return redirect("agents:decision", ws_id=workspace.id, decision_id=decision.id)
    return _decision_page(request, ws_id, form=form, status=422)


@require_GET
@login_required
def decision_detail(request: HtmxRequest, ws_id: UUID, decision_id: str) -> HttpResponse:
    membership = get_membership(request.user, ws_id)
    view = found(
        selectors.decision_view(workspace=membership.workspace, decision_id=decision_id),
        services.DecisionNotFound(),
    )
    context = {
        "workspace": membership.workspace,
        "membership": membership,
        "decision_view": view,
        "action_form": ActionForm(),
    }
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
    membership = get_membership(request.user, ws_id)
    workspace = membership.workspace
    listing = ACTIONS.read_page(
        request.GET, path=request.path, read=selectors.action_rows, count=selectors.action_rows_count,
        workspace=workspace,
    )  # fmt: skip
    decision = listing.criteria.get("decision")
    if decision and (named := selectors.decision_get(workspace=workspace, decision_id=decision)) is not None:
        listing = listing.with_shown(decision=f"“{named.title}”")
    context = {
        "workspace": workspace, "membership": membership, "listing": listing,
        "status_words": dict(ACTION_STATUS_WORDS),
    }  # fmt: skip
    return render_listing(request, "agents/action_list.html", context, listing=listing)


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
    context = {"workspace": workspace, "membership": membership, "action": action, "next": back}
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
