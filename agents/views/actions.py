"""Pages of actions: the actions list, an action, adding one to a decision, and marking one done, cancelled or
reopened (done and cancel ask first)."""

from __future__ import annotations

from uuid import UUID

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_POST

from afterhack import confirm
from afterhack.as_of import not_yet
from afterhack.errors import UserError, found
from afterhack.htmx import HtmxRequest
from afterhack.lists.spec import render_listing
from afterhack.picker import filter_params, query_in
from afterhack.text import MAX_TITLE_CHARS
from agents.lists import ACTION_STATUS_WORDS, ACTIONS
from agents.selectors import decisions as decision_selectors
from agents.selectors import lists as list_selectors
from agents.selectors import picker as picker_selectors
from agents.services import decisions as decision_services
from agents.statuses import ActionStatus
from workspaces.access import get_membership, get_rw_workspace_for_user, member_page_at
from workspaces.selectors import events as event_selectors


class ActionForm(forms.Form):
    title = forms.CharField(max_length=MAX_TITLE_CHARS, strip=True)


@require_POST
@login_required
def action_create(request: HtmxRequest, ws_id: UUID, decision_id: str) -> HttpResponse:
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    form = ActionForm(request.POST)
    if form.is_valid():
        try:
            action = decision_services.action_add(
                workspace=workspace, title=form.cleaned_data["title"], decision_ids=[decision_id], actor=request.user
            )
        except UserError as error:
            messages.error(request, str(error))
        else:
            messages.success(request, f"Action “{action.title}” added ({action.status}).")
    else:
        messages.error(request, "An action needs a title.")
    return redirect("agents:decision", ws_id=workspace.id, decision_id=decision_id)


@require_GET
@login_required
def action_list(request: HtmxRequest, ws_id: UUID) -> HttpResponse:
    """The actions, paged, sorted and filtered; ?decision= (the decision they depend on) is chosen with its picker."""
    membership = get_membership(request.user, ws_id)
    workspace = membership.workspace
    listing = ACTIONS.read_page(
        filter_params(request.GET, field="decision"), path=request.path, read=list_selectors.action_rows, count=list_selectors.action_rows_count,
        workspace=workspace,
    )  # fmt: skip
    decision = listing.criteria.get("decision")
    picker = picker_selectors.decision_picker(
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
    view = decision_selectors.action_view(workspace=workspace, action_id=action_id, as_of=as_of.at or None)
    if view is None:
        present = as_of.past and decision_selectors.action_get(workspace=workspace, action_id=action_id)
        return not_yet(request, context, present=present, thing="action", missing=decision_services.ActionNotFound())
    context["action_view"] = view
    context["history"] = event_selectors.action_events(workspace=workspace, action_id=action_id, until=as_of.at)
    context["changes"] = event_selectors.changes_of(workspace=workspace, node_id=action_id)
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
    action = found(
        decision_selectors.action_get(workspace=workspace, action_id=action_id), decision_services.ActionNotFound()
    )
    # Only a move that can happen is asked about; any other is refused at once, in words.
    movable = (
        status in decision_services.ACTION_MOVES
        and action.status in decision_services.ACTION_MOVES[ActionStatus(status)]
    )
    if movable and status in ACTION_QUESTIONS and not confirm.is_confirmed(request):
        question, consequence, yes = ACTION_QUESTIONS[ActionStatus(status)]
        return confirm.ask(
            request, question=question.format(title=action.title), consequence=consequence, yes=yes,
            action=request.path, fields={"status": status, "next": back}, back=back,
            target=f"#action-{action.id}", columns=ACTION_ROW_COLUMNS,
        )  # fmt: skip
    try:
        marked = decision_services.action_mark(
            workspace=workspace, action_id=action_id, status=status, actor=request.user
        )
        messages.success(request, ACTION_MARKED[ActionStatus(marked.status)].format(title=marked.title))
    except UserError as error:
        messages.error(request, str(error))
    if not request.htmx:
        return HttpResponseRedirect(back)
    action = decision_selectors.action_get(workspace=workspace, action_id=action_id) or action
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
