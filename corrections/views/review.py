"""The review queue, one decision's review page, and a reviewer's answers: re-justify, revise or dismiss a decision;
plan a follow-up of a done action, or say none is needed."""

from __future__ import annotations

from dataclasses import replace
from uuid import UUID

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect

from afterhack import confirm
from afterhack.errors import Conflict, UserError, found
from afterhack.htmx import HtmxRequest
from afterhack.picker import ids_in, is_step
from agents.selectors import decisions as agents_selectors
from agents.services import decisions as agents_services
from agents.statuses import DecisionKind, RevisedActions
from corrections import review
from corrections.selectors import acted_on as acted_on_selectors
from corrections.selectors import review as review_selectors
from corrections.selectors import suggestions as suggestions_selectors
from corrections.services import follow_ups
from corrections.views.words import counted
from workspaces.access import get_membership, get_rw_workspace_for_user
from workspaces.models import Membership, Workspace


@require_GET
@login_required
def review_queue(request: HtmxRequest, ws_id: UUID) -> HttpResponse:
    """What waits for a reviewer, in four parts: suggested corrections, questions the agent could not answer,
    decisions that lost their support, and done actions that rested on one (already acted on)."""
    return _queue(request, get_membership(request.user, ws_id))


def _queue(
    request: HtmxRequest, membership: Membership, typed: dict[str, dict[str, str]] | None = None, status: int = 200
) -> HttpResponse:
    """The review queue's page; `typed` keeps a refused follow-up form as it was sent (by action id)."""
    workspace = membership.workspace
    queue = agents_selectors.review(workspace=workspace)
    state, here = review_selectors.PickerState.from_query(request.GET), request.path
    suggested, suggested_total = suggestions_selectors.review_suggestions(workspace=workspace)
    acted_on = acted_on_selectors.acted_on_items(workspace, queue.acted_on, state=typed)
    # A refusal about an action the section no longer lists (answered meanwhile) is said at the top of the page.
    for action_id, form in (typed or {}).items():
        if all(item.action.id != action_id for item in acted_on):
            messages.error(request, form["error"])
    context = {
        "suggested": suggested, "suggested_total": suggested_total,
        "workspace": workspace, "membership": membership, "limit": agents_selectors.REVIEW_LIMIT,
        "unanswered": review_selectors.review_items(workspace, queue.unanswered, state, here),
        "lost_support": review_selectors.review_items(workspace, queue.lost_support, state, here),
        "acted_on": acted_on,
    }  # fmt: skip
    return render(request, "corrections/review_queue.html", context, status=status)


@require_POST
@login_required
def action_follow_up(request: HtmxRequest, ws_id: UUID, action_id: str) -> HttpResponse:
    """A reviewer's answer to a done action whose decision lost its support: plan a follow-up action (on the chosen
    decisions), or say none is needed, with a reason. A refusal comes back on the review page, with what was typed."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    answer, title, reason = (request.POST.get(name, "") for name in ("answer", "title", "reason"))
    try:
        if answer == "not_needed":
            done = follow_ups.follow_up_not_needed(
                workspace=workspace, action_id=action_id, reason=reason, actor=request.user
            )
            messages.success(request, f"“{done.title}” needs no follow-up: noted, with your reason.")
        else:
            chosen = request.POST.getlist("decision_ids")
            planned = follow_ups.follow_up_plan(
                workspace=workspace, action_id=action_id, title=title, decision_ids=chosen or None, actor=request.user
            )
            messages.success(request, f"Follow-up planned: “{planned.title}”, pending.")
    except (UserError, Conflict) as error:
        typed = {action_id: {"title": title[:300], "reason": reason[:2000], "error": str(error)}}
        status = 409 if isinstance(error, Conflict) else 422
        return _queue(request, get_membership(request.user, ws_id), typed, status=status)
    back = reverse("corrections:review", args=[workspace.id]) + "#acted-on"
    return HttpResponseClientRedirect(back) if request.htmx else redirect(back)


@require_GET
@login_required
def review_decision(request: HtmxRequest, ws_id: UUID, decision_id: str) -> HttpResponse:
    """One decision's review on a page of its own: re-justify, revise or dismiss it, or why it cannot be."""
    membership = get_membership(request.user, ws_id)
    state = review_selectors.PickerState.from_query(request.GET)
    return _review_page(request, membership, decision_id, replace(state, decision_id=decision_id))


def _review_page(
    request: HtmxRequest,
    membership: Membership,
    decision_id: str,
    state: review_selectors.PickerState,
    status: int = 200,
) -> HttpResponse:
    decision = found(
        agents_selectors.decision_get(workspace=membership.workspace, decision_id=decision_id),
        agents_services.DecisionNotFound(),
    )
    here = reverse("corrections:review_decision", args=[membership.workspace.id, decision.id])
    context = {
        "workspace": membership.workspace, "membership": membership,
        "item": review_selectors.review_items(membership.workspace, [decision], state, here)[0],
    }  # fmt: skip
    return render(request, "corrections/review_decision.html", context, status=status)


@require_POST
@login_required
def decision_resolve(request: HtmxRequest, ws_id: UUID, decision_id: str) -> HttpResponse:
    """Re-justify a flagged decision with the chosen claims, revise it into a new decision, or dismiss it
    (after a confirm step). A refusal comes back on the decision's review page, with what was typed."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    resolution = request.POST.get("resolution", "")
    if resolution == "dismiss":
        return _dismiss(request, workspace, decision_id)
    if is_step(request.POST):
        # A button of the claim picker (no JavaScript): the page comes back with the picker changed.
        state = review_selectors.PickerState.from_form(request.POST, decision_id)
        return _review_page(request, get_membership(request.user, ws_id), decision_id, state)
    support_ids = ids_in(request.POST, review_selectors.SUPPORTS_FIELD)
    try:
        if not support_ids or resolution not in ("rejustify", "revise"):
            raise UserError("Choose the claims it rests on now: find them, then add them to the chosen list.")
        if resolution == "rejustify":
            decision = review.decision_rejustify(
                workspace=workspace, decision_id=decision_id, justifications=[support_ids], actor=request.user
            )
            messages.success(request, f"“{decision.title}” is supported again; its held actions are pending.")
        else:
            _revise(request, workspace, decision_id, support_ids)
    except (UserError, Conflict) as error:
        state = review_selectors.PickerState.from_form(request.POST, decision_id, error=str(error))
        status = 409 if isinstance(error, Conflict) else 422
        return _review_page(request, get_membership(request.user, ws_id), decision_id, state, status=status)
    return redirect("corrections:review", ws_id=workspace.id)


def _revise(request: HtmxRequest, workspace: Workspace, decision_id: str, support_ids: list[str]) -> None:
    new = review.decision_revise(
        workspace=workspace, decision_id=decision_id, title=request.POST.get("title"),
        rationale=request.POST.get("rationale"), justifications=[support_ids],
        actions=request.POST.get("actions"), actor=request.user,
    )  # fmt: skip
    if request.POST.get("actions") == RevisedActions.CANCEL:
        outcome = "its open actions are cancelled"
    elif new.action_ids:
        outcome = f"{counted(len(new.action_ids), 'open action')} moved to it"
    else:
        outcome = "it had no open actions to move"
    messages.success(request, f"Revised into “{new.title}”, now supported; {outcome}.")


def _dismiss(request: HtmxRequest, workspace: Workspace, decision_id: str) -> HttpResponse:
    """Dismisses after the confirm step: the first POST asks, naming the actions it would cancel."""
    decision = agents_services.decision_get(workspace=workspace, decision_id=decision_id)
    back = _back(request, reverse("corrections:review", args=[workspace.id]))
    refusal = review.review_refusal(workspace=workspace, decision=decision, done="dismissed")
    if refusal is None and not confirm.is_confirmed(request):
        return _ask_to_dismiss(request, workspace, decision, back)
    try:
        review.decision_dismiss(workspace=workspace, decision_id=decision_id, actor=request.user)
        messages.success(request, f"Dismissed {_named(decision)}; its open actions are cancelled.")
    except (UserError, Conflict) as error:
        messages.error(request, str(error))
    if request.htmx:
        return HttpResponseClientRedirect(back, status=204)
    return redirect(back)


def _ask_to_dismiss(
    request: HtmxRequest, workspace: Workspace, decision: agents_selectors.Decision, back: str
) -> HttpResponse:
    cancelled = agents_selectors.open_actions(agents_selectors.decision_actions(workspace=workspace, decision=decision))
    titles = ", ".join(f"“{a.title}”" for a in cancelled)
    return confirm.ask(
        request,
        question=f"Dismiss {_named(decision)}?",
        consequence="It leaves the review queue, as it is, and nothing replaces it. "
        + (f"This cancels {counted(len(cancelled), 'action')}: {titles}." if cancelled else "It has no open actions."),
        action=reverse("corrections:resolve", args=[workspace.id, decision.id]),
        fields={"resolution": "dismiss", "next": back},
        yes="Dismiss it",
        back=back,
        target=f"#dismiss-{decision.id}",
    )


def _named(decision: agents_selectors.Decision) -> str:
    """How the pages name a decision: an unanswered one by its question."""
    if decision.kind == DecisionKind.UNANSWERED and decision.question:
        return f"the question “{decision.question}”"
    return f"“{decision.title}”"


def _back(request: HtmxRequest, default: str) -> str:
    """The page of this site the form came from (its `next` field), or `default`."""
    back = request.POST.get("next", "")
    # Only a path on this site: anything else could send the reviewer elsewhere.
    if back.startswith("/") and url_has_allowed_host_and_scheme(
        back, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return back
    return default
