"""Pages of runs: ask a question, the run and its trajectory (live over HTMX), every run of the workspace."""

from __future__ import annotations

from uuid import UUID

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from afterhack import llm
from afterhack.errors import UserError, found
from afterhack.htmx import HtmxRequest
from afterhack.lists.spec import render_listing
from afterhack.text import MAX_QUESTION_CHARS
from agents.lists import RUN_STATUS_WORDS, RUNS
from agents.selectors import lists as list_selectors
from agents.selectors import runs as run_selectors
from agents.services import runs as run_services
from workspaces.access import get_membership, get_rw_workspace_for_user


class AskForm(forms.Form):
    question = forms.CharField(max_length=MAX_QUESTION_CHARS, strip=True)


def agent_label() -> str:
    if llm.is_configured():
        return f"Analyst and Coordinator through {llm.model_name()}"
    return "Offline rule-based agent (no model configured): it searches, retrieves the top claims and decides on those"


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
                run_id = run_services.ask(
                    workspace=workspace, question=form.cleaned_data["question"], actor=request.user
                )
            except UserError as error:
                form.add_error("question", str(error))
            else:
                return redirect("agents:run", ws_id=workspace.id, run_id=run_id)
    context = {
        "workspace": membership.workspace, "membership": membership, "form": form, "agent_label": agent_label(),
        "runs": run_selectors.newest_runs(workspace=membership.workspace, limit=20),
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
        run_selectors.run_view(workspace=membership.workspace, run_id=run_id, steps_before=steps_before),
        run_services.RunNotFound(),
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
        request.GET, path=request.path, read=list_selectors.run_rows, count=list_selectors.run_rows_count,
        workspace=membership.workspace,
    )  # fmt: skip
    context = {
        "workspace": membership.workspace, "membership": membership, "listing": listing,
        "status_words": dict(RUN_STATUS_WORDS),
    }  # fmt: skip
    return render_listing(request, "agents/run_list.html", context, listing=listing)
