"""Evidence that goes away: a new version of a source (its claims re-validated), or the source retracted."""

from __future__ import annotations

from uuid import UUID

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from afterhack.errors import Conflict, UserError, found
from afterhack.htmx import HtmxRequest
from claims.selectors import sources as sources_selectors
from claims.services import extraction as extraction_services
from claims.services import sources as sources_services
from corrections.services import evidence as evidence_services
from corrections.views.words import counted
from workspaces.access import get_rw_workspace_for_user


class VersionForm(forms.Form):
    text = forms.CharField(widget=forms.Textarea(attrs={"rows": 12}), strip=False)
    # Checked on the empty form, as when adding a source: the new text's claims are wanted (and then watched for
    # contradictions); a claim whose quote is still there keeps its claim and is not extracted again.
    extract = forms.BooleanField(required=False, initial=True)


@require_http_methods(["GET", "POST"])
@login_required
def source_revise(request: HtmxRequest, ws_id: UUID, source_id: str) -> HttpResponse:
    """Add a new version of a source (its claims re-validated, and its new claims extracted when asked: the box is
    checked to begin with) or retract it (its claims retracted)."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    version = found(
        sources_selectors.source_get(workspace=workspace, source_id=source_id),
        sources_services.SourceNotFound(),
    )
    form = VersionForm(request.POST or None, initial={"text": version.text})
    if request.method == "POST":
        try:
            if request.POST.get("retract"):
                change = evidence_services.source_retract(workspace=workspace, source_id=source_id, actor=request.user)
                messages.success(
                    request,
                    f"Source retracted: {counted(len(change.retracted), 'claim')} retracted, "
                    f"{counted(len(change.affected['decisions_needing_review']), 'decision')} to review.",
                )
                return redirect("claims:source", ws_id=workspace.id, source_id=source_id)
            if form.is_valid():
                change = evidence_services.source_new_version(
                    workspace=workspace, source_id=source_id, text=form.cleaned_data["text"], actor=request.user
                )
                said = (
                    f"Version {change.version} added: {counted(change.moved, 'claim')} found again, "
                    f"{counted(len(change.retracted), 'claim')} retracted (their quote is gone), "
                    f"{counted(len(change.affected['decisions_needing_review']), 'decision')} to review."
                )
                if form.cleaned_data["extract"]:
                    extraction_services.extraction_request(workspace=workspace, source_id=source_id, actor=request.user)
                    said += (
                        " Its claims are being extracted; each new claim is compared with the claims already here, "
                        "and a contradiction waits for review."
                    )
                messages.success(request, said)
                return redirect("claims:source", ws_id=workspace.id, source_id=source_id)
        except (UserError, Conflict) as error:
            form.add_error(None, str(error))
    extractor = extraction_services.extractor_label()
    context = {"workspace": workspace, "version": version, "form": form, "extractor_label": extractor}
    return render(request, "corrections/source_revise.html", context, status=422 if form.errors else 200)
