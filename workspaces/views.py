"""Pages: my workspaces, a workspace's dashboard, its members (HTMX) and the settings its admins change there."""

from __future__ import annotations

from uuid import UUID

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect, reswap, retarget

from afterhack import confirm
from afterhack.as_of import Moment, moment_of
from afterhack.errors import GraphError
from afterhack.htmx import HtmxRequest
from workspaces.access import CHANGE_SETTINGS, get_admin_workspace_for_user, get_membership
from workspaces.forms import MemberAddForm, RoleForm, WorkspaceForm
from workspaces.models import Membership, Role, Workspace
from workspaces.selectors import dashboard as dashboard_selectors
from workspaces.selectors import events as event_selectors
from workspaces.selectors import memberships as membership_selectors
from workspaces.services import admins as admin_services
from workspaces.services import memberships as membership_services
from workspaces.services import workspaces as workspace_services
from workspaces.services.memberships import NoSuchUser
from workspaces.services.workspaces import InvalidInput


@require_GET
@login_required
def workspace_list(request: HtmxRequest) -> HttpResponse:
    memberships = membership_selectors.memberships_for_user(user=request.user)
    return render(request, "workspaces/workspace_list.html", {"memberships": memberships, "form": WorkspaceForm()})


@require_POST
@login_required
def workspace_create(request: HtmxRequest) -> HttpResponse:
    if not request.user.has_perm("workspaces.add_workspace"):
        raise PermissionDenied("You are not allowed to create workspaces; ask an administrator.")
    form = WorkspaceForm(request.POST)
    if form.is_valid():
        try:
            workspace = workspace_services.workspace_create(name=form.cleaned_data["name"], creator=request.user)
        except (InvalidInput, GraphError) as error:
            form.add_error("name", str(error))
        else:
            messages.success(request, f"Workspace “{workspace.name}” created.")
            return redirect("workspaces:dashboard", ws_id=workspace.id)
    memberships = membership_selectors.memberships_for_user(user=request.user)
    context = {"memberships": memberships, "form": form}
    return render(request, "workspaces/workspace_list.html", context, status=422)


@require_GET
@login_required
def dashboard(request: HtmxRequest, ws_id: UUID) -> HttpResponse:
    membership = get_membership(request.user, ws_id)
    as_of = moment_of(request.GET)
    if as_of.past:
        return _dashboard_then(request, membership, as_of)
    summary = dashboard_selectors.dashboard(workspace=membership.workspace)
    context = {
        "workspace": membership.workspace,
        "membership": membership,
        "summary": summary,
        # The menu's badges count the same things: it reads them from here instead of asking the graph again.
        "attention": summary.attention,
        "events": event_selectors.event_rows(
            list(event_selectors.recent_events(workspace=membership.workspace, limit=10)),
            memberships={membership.workspace_id: membership},
        ),
        "as_of": as_of,
    }
    return render(request, "workspaces/dashboard.html", context)


def _dashboard_then(request: HtmxRequest, membership: Membership, as_of: Moment) -> HttpResponse:
    """The dashboard as of a moment: its counts then, as plain numbers (the lists they would link to show the
    present), and the activity up to then. The menu's badges are not given these counts: they stay the present's."""
    workspace = membership.workspace
    then = dashboard_selectors.dashboard_as_of(workspace=workspace, as_of=as_of.at)
    if then.attention is not None:  # the one graph query read when the history began too
        as_of = as_of.before_history(then.attention.history_since, created=then.attention.created_at)
    context = {
        "workspace": workspace, "membership": membership, "then": then, "as_of": as_of,
        "events": event_selectors.event_rows(
            list(event_selectors.events_until(workspace=workspace, as_of=as_of.at)),
            memberships={membership.workspace_id: membership}, as_of_query=as_of.query,
        ),
    }  # fmt: skip
    return render(request, "workspaces/dashboard.html", context)


@require_GET
@login_required
def activity(request: HtmxRequest, ws_id: UUID) -> HttpResponse:
    """Everything audited in the workspace, newest first: paged, filtered by person, kind and day, searchable."""
    membership = get_membership(request.user, ws_id)
    # Made for each request: its kinds are the verbs the apps registered (workspaces/registry.py).
    listing = event_selectors.event_listing(
        event_selectors.event_spec("activity"), request.GET, path=request.path, workspace=membership.workspace
    )
    rows = event_selectors.event_rows(listing.items, memberships={membership.workspace_id: membership})
    context = {"workspace": membership.workspace, "membership": membership, "listing": listing.with_items(rows)}
    template = "workspaces/activity.html#events" if request.htmx else "workspaces/activity.html"
    return render(request, template, context)


def _members_context(
    request: HtmxRequest, workspace: Workspace, form: MemberAddForm | None = None, unknown_user: bool = False
) -> dict[str, object]:
    members = list(membership_selectors.members_of(workspace=workspace))
    return {
        "workspace": workspace,
        "membership": get_membership(request.user, workspace.id),
        "members": members,
        # Marked in the table, and said once under it what that means.
        "deactivated": any(not member.user.is_active for member in members),
        "form": form or MemberAddForm(),
        "roles": Role.choices,
        # Where accounts come from, so the page can say it: the portal's sign-on, or the Django admin.
        "portal": bool(settings.REMOTE_USER_HEADER),
        "unknown_user": unknown_user,
    }


def _members_response(
    request: HtmxRequest, workspace: Workspace, form: MemberAddForm | None = None, status: int = 200
) -> HttpResponse:
    """The member section for HTMX, or the page again after a plain form post."""
    if not request.htmx:
        return redirect("workspaces:members", ws_id=workspace.id)
    context = _members_context(request, workspace, form)
    response = render(request, "workspaces/members.html#member-section", context, status=status)
    # A confirmed change was asked about in a row of the table; its answer is the whole section again.
    return reswap(retarget(response, "#member-section"), "outerHTML")


def _leave(request: HtmxRequest, target: str) -> HttpResponse:
    """To `target` (the admin gave up managing this workspace, or left it): a page load, over HTMX too."""
    return HttpResponseClientRedirect(target) if request.htmx else redirect(target)


@require_GET
@login_required
def members(request: HtmxRequest, ws_id: UUID) -> HttpResponse:
    workspace = get_admin_workspace_for_user(request.user, ws_id)
    return render(request, "workspaces/members.html", _members_context(request, workspace))


@require_POST
@login_required
def workspace_settings(request: HtmxRequest, ws_id: UUID) -> HttpResponse:
    """The settings form of the members page (admins only: 403 for other members): each setting a checkbox, so one
    left out is off. Audited as a change of the workspace settings, like the Django admin's."""
    workspace = get_admin_workspace_for_user(request.user, ws_id, to=CHANGE_SETTINGS)
    changes = {name: request.POST.get(name) == "on" for name in workspace_services.ADMIN_SETTINGS}
    workspace_services.workspace_settings_change(workspace=workspace, actor=request.user, **changes)
    messages.success(request, "Settings saved.")
    return redirect("workspaces:members", ws_id=workspace.id)


@require_POST
@login_required
def member_add(request: HtmxRequest, ws_id: UUID) -> HttpResponse:
    workspace = get_admin_workspace_for_user(request.user, ws_id)
    form = MemberAddForm(request.POST)
    unknown_user = False
    if form.is_valid():
        try:
            membership_services.member_add(workspace=workspace, actor=request.user, **form.cleaned_data)
        except InvalidInput as error:
            form.add_error("username", str(error))
            unknown_user = isinstance(error, NoSuchUser)
        else:
            messages.success(request, f"{form.cleaned_data['username']} added as {form.cleaned_data['role']}.")
            return _members_response(request, workspace)
    context = _members_context(request, workspace, form, unknown_user=unknown_user)
    if not request.htmx:
        return render(request, "workspaces/members.html", context, status=422)
    return render(request, "workspaces/members.html#member-section", context, status=422)


# The columns of a member's row (members.html): a question asked in place takes the whole row.
MEMBER_ROW_COLUMNS = 3


def _role_question(request: HtmxRequest, workspace: Workspace, member: Membership, role: str) -> HttpResponse:
    """Asks before a change to or from admin (who may manage members), in words."""
    name, yourself = member.user.get_username(), member.user == request.user
    if role == Role.ADMIN:
        question = f"Make {name} an admin of {workspace.name}?"
        consequence = "Admins also manage members: they add and remove people and change anyone's role, yours too."
        yes = f"Make {name} admin"
    elif yourself:
        question = f"Give up being an admin of {workspace.name}?"
        consequence = f"You will be a {role} and no longer manage its members; another admin can make you admin again."
        yes = f"Make me {role}"
    else:
        question = f"Make {name} a {role} instead of an admin?"
        consequence = f"{name} will no longer manage the members of {workspace.name}."
        yes = f"Make {name} {role}"
    back = reverse("workspaces:members", kwargs={"ws_id": workspace.id})
    return confirm.ask(
        request, question=question, consequence=consequence, yes=yes, action=request.path, fields={"role": role},
        back=back, target=f"#member-{member.pk}", columns=MEMBER_ROW_COLUMNS,
    )  # fmt: skip


@require_POST
@login_required
def member_role(request: HtmxRequest, ws_id: UUID, membership_id: int) -> HttpResponse:
    """A change to or from admin asks first (confirm.ask) and acts on the confirmed second POST."""
    workspace = get_admin_workspace_for_user(request.user, ws_id)
    form = RoleForm(request.POST)
    try:
        if not form.is_valid():
            raise InvalidInput("Unknown role: choose viewer, reviewer or admin.")
        role = form.cleaned_data["role"]
        member = membership_selectors.member(workspace=workspace, membership_id=membership_id)
        if member is None:
            raise InvalidInput("That person is not a member of this workspace.")
        if member.role != role and Role.ADMIN in (member.role, role) and not confirm.is_confirmed(request):
            admin_services.member_keeps_an_admin(member, role=role)
            return _role_question(request, workspace, member, role)
        membership = membership_services.member_change_role(
            workspace=workspace, membership_id=membership_id, role=role, actor=request.user
        )
    except InvalidInput as error:
        messages.error(request, str(error))
        return _members_response(request, workspace, status=422)
    messages.success(request, f"{membership.user.get_username()} is now {membership.role}.")
    if membership.user == request.user and membership.role != Role.ADMIN:
        return _leave(request, reverse("workspaces:dashboard", kwargs={"ws_id": workspace.id}))
    return _members_response(request, workspace)


@require_POST
@login_required
def member_remove(request: HtmxRequest, ws_id: UUID, membership_id: int) -> HttpResponse:
    """Asks first (confirm.ask), then removes the member on the confirmed second POST."""
    workspace = get_admin_workspace_for_user(request.user, ws_id)
    member = membership_selectors.member(workspace=workspace, membership_id=membership_id)
    try:
        if member is not None and not confirm.is_confirmed(request):
            admin_services.member_keeps_an_admin(member, role=None)
            return _remove_question(request, workspace, member)
        username = membership_services.member_remove(
            workspace=workspace, membership_id=membership_id, actor=request.user
        )
    except InvalidInput as error:
        messages.error(request, str(error))
        return _members_response(request, workspace, status=422)
    messages.success(request, f"{username} removed from {workspace.name}.")
    if member is not None and member.user == request.user:
        return _leave(request, reverse("workspaces:list"))
    return _members_response(request, workspace)


def _remove_question(request: HtmxRequest, workspace: Workspace, member: Membership) -> HttpResponse:
    name = member.user.get_username()
    if member.user == request.user:
        question, yes = f"Leave {workspace.name}?", "Leave it"
        consequence = "You will no longer see anything in it; an admin can add you again."
    else:
        question, yes = f"Remove {name} from {workspace.name}?", f"Remove {name}"
        consequence = f"{name} will no longer see anything in it. What they did stays, with their name."
    return confirm.ask(
        request, question=question, consequence=consequence, yes=yes, action=request.path, fields={},
        back=reverse("workspaces:members", kwargs={"ws_id": workspace.id}),
        target=f"#member-{member.pk}", columns=MEMBER_ROW_COLUMNS,
    )  # fmt: skip
