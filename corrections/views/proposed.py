"""A reviewer's answer to claims proposed by agents, from the review queue's section "Claims proposed by agents"
(templates/corrections/partials/proposed_claims.html): approve or reject one (a rejection with an optional reason),
the selected ones, or all listed. Back to the queue with what was done, in words; a refusal (nothing selected, a
malformed form, a reason too long) stores nothing."""

from __future__ import annotations

from uuid import UUID

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from afterhack.errors import UserError
from afterhack.htmx import HtmxRequest
from corrections.services import agent_claims as agent_claims_services
from corrections.services.agent_claims import Decided, Outcome
from workspaces.access import get_rw_workspace_for_user


def _chosen(request: HtmxRequest) -> tuple[bool, list[str]]:
    """(approving, the suggestion ids) the form asks about: one row's button, the selected rows, or every row."""
    post = request.POST
    if post.get("approve_one"):
        return True, [post["approve_one"]]
    if post.get("reject_one"):
        return False, [post["reject_one"]]
    action = post.get("action", "")
    if action == "approve_all":
        return True, post.getlist("listed")
    if action not in ("approve", "reject"):
        raise UserError("Choose approve or reject.")
    return action == "approve", post.getlist("ids")


def _said(results: list[Decided], approving: bool) -> str:
    done = sum(1 for r in results if r.outcome in (Outcome.APPROVED, Outcome.REJECTED))
    verb = "approved" if approving else "rejected"
    words = f"{done} claim{'s' if done != 1 else ''} {verb}."
    left = [r.detail for r in results if r.outcome not in (Outcome.APPROVED, Outcome.REJECTED)]
    if left:
        words += f" {len(left)} left as they were: " + " ".join(dict.fromkeys(left))
    return words


@require_POST
@login_required
def proposed_decide(request: HtmxRequest, ws_id: UUID) -> HttpResponse:
    """Approves or rejects agents' proposed claims (reviewers and admins: 403 for viewers)."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    back = reverse("corrections:review", args=[workspace.id]) + "#proposed"
    try:
        approving, ids = _chosen(request)
        if not ids:
            raise UserError("Select at least one claim first.")
        decide = (
            agent_claims_services.agent_claims_approve if approving else agent_claims_services.suggestions_reject_many
        )
        # A reason is recorded (and audited) with what is decided: a row's "Reject…" asks for one.
        reason = request.POST.get("reason") or None
        results = decide(workspace=workspace, ids=ids, actor=request.user, reason=reason)
    except UserError as refused:
        messages.error(request, str(refused))
        return redirect(back)
    messages.success(request, _said(results, approving))
    return redirect(back)
