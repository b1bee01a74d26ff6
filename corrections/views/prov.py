"""The W3C PROV export for members (`/w/<ws>/prov`) and for staff auditors (`/audit/prov`), as a download."""

from __future__ import annotations

from uuid import UUID

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from afterhack.errors import UserError
from afterhack.htmx import HtmxRequest
from corrections.selectors import prov as prov_selectors
from corrections.views.staff import staff_only
from workspaces.access import get_membership
from workspaces.models import Workspace


@require_GET
@login_required
def prov_export(request: HtmxRequest, ws_id: UUID) -> HttpResponse:
    """The because-chain of `root` (or the whole workspace) as W3C PROV, downloaded with the page's session: the
    same export as the API's (docs/prov.md), for any member; a bad root or format is said on a page, 422."""
    membership = get_membership(request.user, ws_id)
    return _prov_answer(request, membership.workspace)


def _prov_answer(request: HtmxRequest, workspace: Workspace) -> HttpResponse:
    """The export `root` and `format` ask for, as a download; a bad one said on a page, 422."""
    try:
        form = prov_selectors.ProvFormat(request.GET.get("format") or prov_selectors.ProvFormat.JSON)
    except ValueError:
        detail = "The format of a W3C PROV export must be json, ttl or provn."
        return render(request, "400.html", {"detail": detail}, status=422)
    try:
        export = prov_selectors.prov_export(workspace=workspace, root=request.GET.get("root") or None, form=form)
    except UserError as error:
        return render(request, "400.html", {"detail": str(error)}, status=422)
    response = HttpResponse(export.text, content_type=export.content_type)
    response["Content-Disposition"] = f'attachment; filename="{export.filename}"'
    return response


@require_GET
@staff_only
def audit_prov(request: HtmxRequest) -> HttpResponse:
    """Staff auditors: a workspace's W3C PROV export (whole, or a `root`'s chain). It is the workspace's content, so
    exactly as the API's `GET …/prov`: for its members and auditors of every workspace; 404 for anyone else, as
    if there were no such workspace. Like the audit's CSV export, downloading it is not itself an audited event."""
    raw = request.GET.get("workspace", "")
    if not raw:
        detail = "Choose a workspace to export: “workspace” must be the id of one."
        return render(request, "400.html", {"detail": detail}, status=422)
    try:
        membership = get_membership(request.user, raw)
    except Http404:
        return render(request, "400.html", {"detail": "No such workspace."}, status=404)
    return _prov_answer(request, membership.workspace)
