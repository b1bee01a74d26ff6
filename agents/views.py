"""Pages: ask a question, the run and its trajectory (live over HTMX), decisions, actions."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode
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
from afterhack.errors import UserError, found
from afterhack.htmx import HtmxRequest
from afterhack.ids import parse_id
from afterhack.picker import Picker, cannot_support, chosen_ids, is_step, picker_request, picker_response, query_in
from afterhack.text import MAX_QUESTION_CHARS, MAX_TITLE_CHARS
from agents import selectors, services
from agents.statuses import ActionStatus, DecisionStatus
from claims import selectors as claims_selectors
from workspaces import selectors as workspace_selectors
from workspaces.access import get_membership, get_rw_workspace_for_user
from workspaces.models import Workspace

# The status filters of the decision and action lists: "" is every status, then each by its name in words.
DECISION_STATUSES = [("", "All")] + [(status, status.replace("_", " ").capitalize()) for status in DecisionStatus]
ACTION_STATUSES = [("", "All")] + [(status, status.capitalize()) for status in ActionStatus]


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
                claims_selectors.claim_picker(
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


# -- decisions ------------------------------------------------------------------------------------


@require_GET
@login_required
def decision_list(request: HtmxRequest, ws_id: UUID) -> HttpResponse:
    membership = get_membership(request.user, ws_id)
    # Only the table over HTMX (a status filter): the form and its pickers are not read for it.
    form = {} if request.htmx or not membership.can_write else _form_context(membership.workspace, DecisionForm())
    return _status_list(
        request, ws_id, template="agents/decision_list.html", table="decision-table", statuses=DECISION_STATUSES,
        items="decisions", read=selectors.newest_decisions, **form,
    )  # fmt: skip


def _form_context(workspace: Workspace, form: DecisionForm, data: QueryDict | None = None) -> dict[str, Any]:
    """The new decision form with its pickers as `data` left them; a refusal names what cannot support it."""
    data = data if data is not None else QueryDict()
    justifications = justification_pickers(workspace, data, range(1, justification_count(data) + 1))
    chosen = [item for j in justifications for picker in (j.claims, j.decisions) for item in picker.chosen]
    if form.errors.get("justifications") and (weak := cannot_support(chosen)):
        form.errors["justifications"] = form.error_class([f"Nothing was saved: {weak}"])
    return {"form": form, "justifications": justifications}


def _status_list(
    request: HtmxRequest,
    ws_id: UUID,
    *,
    template: str,
    table: str,
    statuses: list[tuple[str, str]],
    items: str,
    read: Callable[..., Any],
    **extra: Any,
) -> HttpResponse:
    """A list page filtered by ?status= (one of `statuses`; anything else shows all), newest first;
    over HTMX only its table (the `table` partial), so the filter swaps the rows in place."""
    membership = get_membership(request.user, ws_id)
    status = request.GET.get("status", "")
    status = status if status in dict(statuses) else ""
    context = {
        "workspace": membership.workspace, "membership": membership, "status": status, "statuses": statuses,
        items: read(workspace=membership.workspace, status=status), **extra,
    }  # fmt: skip
    return render(request, f"{template}#{table}" if request.htmx else template, context)


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
    context = {
        "workspace": workspace, "membership": membership, "status": "", "statuses": DECISION_STATUSES,
        "decisions": selectors.newest_decisions(workspace=workspace), **_form_context(workspace, form, data),
    }  # fmt: skip
    return render(request, "agents/decision_list.html", context, status=422 if form.errors else 200)


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
    """The actions, filtered by ?status= and by ?decision= (the decision they depend on, chosen with its picker)."""
    membership = get_membership(request.user, ws_id)
    picked = chosen_ids(request.GET, field="decision", single=True)
    decision_id = picked[0] if picked and parse_id(picked[0]) else ""
    # Over HTMX only the table changes (a status filter): the picker is not read for it.
    picker = None if request.htmx else selectors.decision_picker(
        workspace=membership.workspace, field="decision", query=query_in(request.GET, "decision"), chosen=picked,
        single=True, needs_support=False, label="Decision they depend on",
        empty_words="Any decision: find one to see only its actions.",
    )  # fmt: skip
    return _status_list(
        request, ws_id, template="agents/action_list.html", table="action-table", statuses=ACTION_STATUSES,
        items="actions", read=lambda **asked: selectors.newest_actions(**asked, decision_id=decision_id),
        decision_picker=picker, keep=urlencode({"decision": decision_id}) if decision_id else "",
    )  # fmt: skip


@require_GET
@login_required
def action_detail(request: HtmxRequest, ws_id: UUID, action_id: str) -> HttpResponse:
    """One action: where it stands and why, the decisions it depends on, what can be done with it, its history."""
    membership = get_membership(request.user, ws_id)
    view = found(selectors.action_view(workspace=membership.workspace, action_id=action_id), services.ActionNotFound())
    context = {
        "workspace": membership.workspace, "membership": membership, "action_view": view,
        "history": workspace_selectors.action_events(workspace=membership.workspace, action_id=view.action.id),
    }  # fmt: skip
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
ACTION_ROW_COLUMNS = 4


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
