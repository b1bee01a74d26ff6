"""Pages: my workspaces, a workspace's dashboard, and its members (HTMX)."""

from __future__ import annotations

from uuid import UUID

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from afterhack.errors import GraphError
from afterhack.htmx import HtmxRequest
from workspaces import selectors, services
from workspaces.access import get_admin_workspace_for_user, get_membership
from workspaces.forms import MemberAddForm, RoleForm, WorkspaceForm
from workspaces.models import Role, Workspace
from workspaces.services import InvalidInput


@require_GET
@login_required
def workspace_list(request: HtmxRequest) -> HttpResponse:
    memberships = selectors.memberships_for_user(user=request.user)
    return render(request, "workspaces/workspace_list.html", {"memberships": memberships, "form": WorkspaceForm()})


@require_POST
@login_required
def workspace_create(request: HtmxRequest) -> HttpResponse:
    if not request.user.has_perm("workspaces.add_workspace"):
        raise PermissionDenied("You are not allowed to create workspaces; ask an administrator.")
    form = WorkspaceForm(request.POST)
    if form.is_valid():
        try:
            workspace = services.workspace_create(name=form.cleaned_data["name"], creator=request.user)
        except (InvalidInput, GraphError) as error:
            form.add_error("name", str(error))
        else:
            messages.success(request, f"Workspace “{workspace.name}” created.")
            return redirect("workspaces:dashboard", ws_id=workspace.id)
    memberships = selectors.memberships_for_user(user=request.user)
    context = {"memberships": memberships, "form": form}
    return render(request, "workspaces/workspace_list.html", context, status=422)


@require_GET
@login_required
def dashboard(request: HtmxRequest, ws_id: UUID) -> HttpResponse:
    membership = get_membership(request.user, ws_id)
    summary = selectors.dashboard(workspace=membership.workspace)
    context = {
        "workspace": membership.workspace,
        "membership": membership,
        "summary": summary,
        # The menu's badges count the same things: it reads them from here instead of asking the graph again.
        "attention": summary.attention,
        "events": selectors.event_rows(
            list(selectors.recent_events(workspace=membership.workspace, limit=10)),
            memberships={membership.workspace_id: membership},
        ),
    }
    return render(request, "workspaces/dashboard.html", context)


ACTIVITY = selectors.event_spec("activity")


@require_GET
@login_required
def activity(request: HtmxRequest, ws_id: UUID) -> HttpResponse:
    """Everything audited in the workspace, newest first: paged, filtered by person, kind and day, searchable."""
    membership = get_membership(request.user, ws_id)
    listing = selectors.event_listing(ACTIVITY, request.GET, path=request.path, workspace=membership.workspace)
    rows = selectors.event_rows(listing.items, memberships={membership.workspace_id: membership})
    context = {"workspace": membership.workspace, "membership": membership, "listing": listing.with_items(rows)}
    template = "workspaces/activity.html#events" if request.htmx else "workspaces/activity.html"
    return render(request, template, context)


def _members_context(
    request: HtmxRequest, workspace: Workspace, form: MemberAddForm | None = None
) -> dict[str, object]:
    return {
        "workspace": workspace,
        "membership": get_membership(request.user, workspace.id),
        "members": selectors.members_of(workspace=workspace),
        "form": form or MemberAddForm(),
        "roles": Role.choices,
    }


def _members_response(
    request: HtmxRequest, workspace: Workspace, form: MemberAddForm | None = None, status: int = 200
) -> HttpResponse:
    """The member section for HTMX, or the page again after a plain form post."""
    if request.htmx:
        context = _members_context(request, workspace, form)
        return render(request, "workspaces/members.html#member-section", context, status=status)
    return redirect("workspaces:members", ws_id=workspace.id)


@require_GET
@login_required
def members(request: HtmxRequest, ws_id: UUID) -> HttpResponse:
    workspace = get_admin_workspace_for_user(request.user, ws_id)
    return render(request, "workspaces/members.html", _members_context(request, workspace))


@require_POST
@login_required
def member_add(request: HtmxRequest, ws_id: UUID) -> HttpResponse:
    workspace = get_admin_workspace_for_user(request.user, ws_id)
    form = MemberAddForm(request.POST)
    if form.is_valid():
        try:
            services.member_add(workspace=workspace, actor=request.user, **form.cleaned_data)
        except InvalidInput as error:
            form.add_error("username", str(error))
        else:
            messages.success(request, f"{form.cleaned_data['username']} added as {form.cleaned_data['role']}.")
            return _members_response(request, workspace)
    if not request.htmx:
        return render(request, "workspaces/members.html", _members_context(request, workspace, form), status=422)
    return _members_response(request, workspace, form, status=422)


@require_POST
@login_required
def member_role(request: HtmxRequest, ws_id: UUID, membership_id: int) -> HttpResponse:
    workspace = get_admin_workspace_for_user(request.user, ws_id)
    form = RoleForm(request.POST)
    try:
        if not form.is_valid():
            raise InvalidInput("Unknown role: choose viewer, reviewer or admin.")
        membership = services.member_change_role(
            workspace=workspace, membership_id=membership_id, role=form.cleaned_data["role"], actor=request.user
        )
    except InvalidInput as error:
        messages.error(request, str(error))
        return _members_response(request, workspace, status=422)
    messages.success(request, f"{membership.user.get_username()} is now {membership.role}.")
    return _members_response(request, workspace)


@require_POST
@login_required
def member_remove(request: HtmxRequest, ws_id: UUID, membership_id: int) -> HttpResponse:
    workspace = get_admin_workspace_for_user(request.user, ws_id)
    try:
        username = services.member_remove(workspace=workspace, membership_id=membership_id, actor=request.user)
    except InvalidInput as error:
        messages.error(request, str(error))
        return _members_response(request, workspace, status=422)
    messages.success(request, f"{username} removed from {workspace.name}.")
    return _members_response(request, workspace)
