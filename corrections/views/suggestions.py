"""A reviewer turning a suggested correction down from the review queue: "Both hold" or "Not a contradiction", with
an optional reason (recorded and audited; that pair is never suggested again). Over HTMX the item is swapped for
what was recorded; without JavaScript the queue comes back with a message. Accepting one is a correction: the
queue's "Correct it" and "Correct the other one" open the correction page with the suggestion (views/correct.py)."""

from __future__ import annotations

from uuid import UUID

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from afterhack.errors import Conflict, UserError
from afterhack.htmx import HtmxRequest
from corrections.selectors import suggestions as suggestions_selectors
from corrections.services import suggestions as suggestions_services
from workspaces.access import get_membership, get_rw_workspace_for_user

VERDICTS = {"both_hold": True, "not_a_contradiction": False}


@require_POST
@login_required
def suggestion_reject(request: HtmxRequest, ws_id: UUID, suggestion_id: str) -> HttpResponse:
    """Turns the suggestion down as the button says (`verdict`: both_hold or not_a_contradiction)."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    membership = get_membership(request.user, ws_id)
    verdict = request.POST.get("verdict", "")
    try:
        if verdict not in VERDICTS:
            raise UserError("Choose “Both hold” or “Not a contradiction”.")
        rejected = suggestions_services.suggestion_reject(
            workspace=workspace, suggestion_id=suggestion_id, reason=request.POST.get("reason") or None,
            both_hold=VERDICTS[verdict], actor=request.user,
        )  # fmt: skip
    except (UserError, Conflict) as error:
        if not request.htmx:
            messages.error(request, str(error))
            return redirect("corrections:review", ws_id=workspace.id)
        suggestion = suggestions_selectors.suggestion_required(workspace=workspace, suggestion_id=suggestion_id)
        item = suggestions_selectors.suggestion_item(workspace=workspace, suggestion=suggestion)
        context = {"workspace": workspace, "membership": membership, "item": item, "error": str(error)}
        status = 409 if isinstance(error, Conflict) else 422
        return render(request, "corrections/partials/suggestion_item.html", context, status=status)
    said = "both claims hold" if rejected.both_hold else "it is not a contradiction"
    if not request.htmx:
        messages.success(request, f"Turned down “{rejected.statement}”: {said}. That pair will not be suggested again.")
        return redirect("corrections:review", ws_id=workspace.id)
    context = {"workspace": workspace, "suggestion": rejected, "said": said}
    return render(request, "corrections/partials/suggestion_decided.html", context)
