"""No workspace without an active admin, by any path; Members marks deactivated people; the ready groups.

The trio's workspace "Launch planning" has one admin, olivia. Deactivating or deleting her, demoting or removing
her is refused in words naming the workspace — in the Django admin (the person's form, the list's actions, the
delete page, memberships, the workspace's inline), on the Members page, through the API and in code — and a
deactivated admin never counts as the one it keeps.
"""

from __future__ import annotations

import html
import importlib
from typing import Any

import pytest
from django.apps import apps as installed_apps
from django.contrib.auth.models import Group, Permission
from django.db import transaction

from tests.conftest import MakeUser, Trio, api_for, client_for
from workspaces import services
from workspaces.models import AUDIT_EVERY_WORKSPACE, AuditEvent, Membership, Role, Workspace

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
REFUSED = "would leave “Launch planning” without an active admin"
NEEDS = "“Launch planning” needs at least one admin whose account is active"


@pytest.fixture
def root(make_user: MakeUser) -> Any:
    return make_user("root", is_staff=True, is_superuser=True)


def words(response: Any) -> str:
    return html.unescape(response.content.decode())


def user_form(user: Any, **changes: Any) -> dict[str, Any]:
    """The Django admin's form of a person as it stands, with `changes`."""
    form = {
        "username": user.username, "first_name": user.first_name, "last_name": user.last_name, "email": user.email,
        "date_joined_0": "2026-01-01", "date_joined_1": "00:00:00",
        "groups": [str(pk) for pk in user.groups.values_list("pk", flat=True)],
    }  # fmt: skip
    form |= {flag: "on" for flag in ("is_active", "is_staff", "is_superuser") if getattr(user, flag)}
    for flag, value in changes.items():
        if value is False:
            form.pop(flag, None)
        else:
            form[flag] = value
    return form


def deactivated_admin(trio: Trio) -> Any:
    """victor, made a second admin and then deactivated: an admin who does not count."""
    victor = Membership.objects.get(user=trio.viewer)
    services.member_change_role(workspace=trio.workspace, membership_id=victor.pk, role=Role.ADMIN, actor=trio.owner)
    trio.viewer.is_active = False
    trio.viewer.save()
    return victor


class DeactivatingTests:
    def test_the_admin_form_refuses_deactivating_the_last_admin_naming_the_workspace(
        self, trio: Trio, root: Any
    ) -> None:
        response = client_for(root).post(
            f"/admin/auth/user/{trio.owner.pk}/change/", user_form(trio.owner, is_active=False)
        )
        assert response.status_code == 200
        assert f"Deactivating olivia {REFUSED}" in words(response)
        trio.owner.refresh_from_db()
        assert trio.owner.is_active and not AuditEvent.objects.filter(verb="user.deactivated").exists()

    def test_a_deactivated_admin_does_not_count_as_the_one_kept(self, trio: Trio, root: Any) -> None:
        deactivated_admin(trio)
        response = client_for(root).post(
            f"/admin/auth/user/{trio.owner.pk}/change/", user_form(trio.owner, is_active=False)
        )
        assert response.status_code == 200 and REFUSED in words(response)

    def test_with_another_active_admin_deactivating_is_done_and_audited(self, trio: Trio, root: Any) -> None:
        rita = Membership.objects.get(user=trio.reviewer)
        services.member_change_role(workspace=trio.workspace, membership_id=rita.pk, role=Role.ADMIN, actor=trio.owner)
        response = client_for(root).post(
            f"/admin/auth/user/{trio.owner.pk}/change/", user_form(trio.owner, is_active=False)
        )
        assert response.status_code == 302
        event = AuditEvent.objects.get(verb="user.deactivated")
        assert (event.actor, event.target, event.payload["from"], event.payload["to"]) == (
            root,
            "olivia",
            "active",
            "deactivated",
        )

    def test_the_lists_action_refuses_all_when_one_would_leave_a_workspace_without_an_admin(
        self, trio: Trio, root: Any
    ) -> None:
        rita = Membership.objects.get(user=trio.reviewer)
        services.member_change_role(workspace=trio.workspace, membership_id=rita.pk, role=Role.ADMIN, actor=trio.owner)
        # Either alone could go; both together would leave the workspace with no active admin.
        chosen = [str(trio.owner.pk), str(trio.reviewer.pk), str(trio.outsider.pk)]
        response = client_for(root).post(
            "/admin/auth/user/", {"action": "deactivate", "_selected_action": chosen}, follow=True
        )
        page = words(response)
        assert "Deactivating olivia, oscar, rita would leave “Launch planning” without an active admin" in page
        assert "Nobody was deactivated." in page
        assert all(user.is_active for user in type(trio.owner).objects.filter(pk__in=chosen))
        done = client_for(root).post(
            "/admin/auth/user/", {"action": "deactivate", "_selected_action": chosen[1:]}, follow=True
        )
        assert "Deactivated: oscar, rita." in words(done)
        assert sorted(AuditEvent.objects.filter(verb="user.deactivated").values_list("target", flat=True)) == [
            "oscar", "rita"
        ]  # fmt: skip
        back = client_for(root).post(
            "/admin/auth/user/", {"action": "reactivate", "_selected_action": chosen}, follow=True
        )
        assert "Reactivated: oscar, rita." in words(back)

    def test_code_that_deactivates_the_last_admin_is_refused_and_nothing_is_saved(self, trio: Trio) -> None:
        trio.owner.is_active = False
        with pytest.raises(services.NoAdminLeft, match=f"Deactivating olivia {REFUSED}"):
            trio.owner.save()
        trio.owner.refresh_from_db()
        assert trio.owner.is_active


class DeletingTests:
    def test_the_delete_page_and_the_lists_action_refuse_the_last_admin(self, trio: Trio, root: Any) -> None:
        client = client_for(root)
        page = client.get(f"/admin/auth/user/{trio.owner.pk}/delete/", follow=True)
        assert f"Deleting olivia {REFUSED}" in words(page)
        assert page.redirect_chain[-1][0] == f"/admin/auth/user/{trio.owner.pk}/change/"
        client.post(f"/admin/auth/user/{trio.owner.pk}/delete/", {"post": "yes"})
        chosen = {"action": "delete_selected", "_selected_action": [str(trio.owner.pk)], "post": "yes"}
        listed = client.post("/admin/auth/user/", chosen, follow=True)
        assert REFUSED in words(listed) and "Nothing was deleted." in words(listed)
        assert type(trio.owner).objects.filter(pk=trio.owner.pk).exists()

    def test_deleting_another_person_still_works_and_is_audited(self, trio: Trio, root: Any) -> None:
        response = client_for(root).post(f"/admin/auth/user/{trio.outsider.pk}/delete/", {"post": "yes"})
        assert response.status_code == 302
        assert AuditEvent.objects.get(verb="user.deleted").target == "oscar"

    def test_code_deleting_admins_together_is_refused(self, make_user: MakeUser) -> None:
        # Two admins with no history (a person who acted cannot be deleted: the audit trail keeps them).
        side = Workspace.objects.create(name="Side project")
        ann, ben = make_user("ann"), make_user("ben")
        for admin in (ann, ben):
            Membership.objects.create(workspace=side, user=admin, role=Role.ADMIN)
        people = type(ann).objects.filter(pk__in=[ann.pk, ben.pk])
        # In a savepoint of its own: the refusal rolls back the deletion's transaction, as it would the shell's.
        refused = pytest.raises(services.NoAdminLeft, match="“Side project” needs at least one admin whose account is")
        with refused, transaction.atomic():
            people.delete()
        assert people.count() == 2 and Membership.objects.filter(workspace=side).count() == 2
        ann.delete()
        refused = pytest.raises(services.NoAdminLeft, match="Deleting ben would leave “Side project” without an active")
        with refused, transaction.atomic():
            ben.delete()
        assert AuditEvent.objects.get(verb="user.deleted").target == "ann"


class DemotingTests:
    """olivia is the one active admin; victor is an admin too, but deactivated."""

    def test_the_members_page_refuses_demoting_or_removing_her(self, trio: Trio) -> None:
        deactivated_admin(trio)
        olivia = Membership.objects.get(user=trio.owner)
        client, url = client_for(trio.owner), f"/w/{trio.workspace.id}/members/{olivia.pk}"
        for asked in (
            client.post(f"{url}/role", {"role": "viewer"}, headers=HTMX),
            client.post(f"{url}/role", {"role": "viewer", "confirmed": "yes"}, headers=HTMX),
            client.post(f"{url}/remove", headers=HTMX),
            client.post(f"{url}/remove", {"confirmed": "yes"}, headers=HTMX),
        ):
            assert asked.status_code == 422 and NEEDS in words(asked)
        olivia.refresh_from_db()
        assert olivia.role == Role.ADMIN

    def test_the_api_refuses_demoting_or_removing_her(self, trio: Trio) -> None:
        deactivated_admin(trio)
        api = api_for(trio.owner)
        path = f"/api/v1/workspaces/{trio.workspace.id}/members/olivia"
        demoted = api.client.patch(path, {"role": "viewer"}, content_type="application/json", headers=api.headers)
        removed = api.client.delete(path, headers=api.headers)
        for answer in (demoted, removed):
            assert answer.status_code == 422 and answer.json()["error"] == "invalid_input"
            assert NEEDS in answer.json()["detail"]
        assert Membership.objects.get(user=trio.owner).role == Role.ADMIN
        # Demoting the deactivated admin takes nothing away: it is allowed.
        victor = api.client.patch(
            f"/api/v1/workspaces/{trio.workspace.id}/members/victor", {"role": "viewer"},
            content_type="application/json", headers=api.headers,
        )  # fmt: skip
        assert victor.status_code == 200

    def test_the_membership_admin_refuses_demoting_or_deleting_her(self, trio: Trio, root: Any) -> None:
        deactivated_admin(trio)
        olivia = Membership.objects.get(user=trio.owner)
        client, url = client_for(root), f"/admin/workspaces/membership/{olivia.pk}"
        demoted = client.post(f"{url}/change/", {"role": "viewer"})
        assert demoted.status_code == 200 and NEEDS in words(demoted)
        deleted = client.post(f"{url}/delete/", {"post": "yes"}, follow=True)
        assert "Removing these members would leave “Launch planning” without an active admin" in words(deleted)
        chosen = {"action": "delete_selected", "_selected_action": [str(olivia.pk)], "post": "yes"}
        listed = client.post("/admin/workspaces/membership/", chosen, follow=True)
        assert "Nothing was deleted." in words(listed) and "Successfully deleted" not in words(listed)
        olivia.refresh_from_db()
        assert olivia.role == Role.ADMIN

    def test_the_workspaces_inline_refuses_leaving_only_a_deactivated_admin(self, trio: Trio, root: Any) -> None:
        deactivated_admin(trio)
        rows = Membership.objects.filter(workspace=trio.workspace).order_by("pk")
        form: dict[str, Any] = {
            "name": trio.workspace.name, "memberships-TOTAL_FORMS": str(len(rows)),
            "memberships-INITIAL_FORMS": str(len(rows)),
        }  # fmt: skip
        for index, row in enumerate(rows):
            role = "viewer" if row.user == trio.owner else row.role
            form |= {f"memberships-{index}-id": str(row.pk), f"memberships-{index}-role": role}
            form |= {
                f"memberships-{index}-workspace": str(trio.workspace.id),
                f"memberships-{index}-user": str(row.user_id),
            }
        response = client_for(root).post(f"/admin/workspaces/workspace/{trio.workspace.id}/change/", form)
        assert response.status_code == 200
        assert "needs at least one admin whose account is active" in words(response)
        assert Membership.objects.get(user=trio.owner).role == Role.ADMIN


class MembersPageTests:
    def test_it_marks_deactivated_people_and_says_what_that_means(self, trio: Trio) -> None:
        trio.viewer.is_active = False
        trio.viewer.save()
        page = words(client_for(trio.owner).get(f"/w/{trio.workspace.id}/members/"))
        row = page[
            page.index('<td class="nowrap">victor') : page.index("</td>", page.index('<td class="nowrap">victor'))
        ]
        assert ">deactivated</span>" in row
        assert page.count(">deactivated</span>") == 1
        assert "Deactivated people cannot sign in" in page

    def test_no_mark_and_no_note_when_everyone_is_active(self, trio: Trio) -> None:
        page = words(client_for(trio.owner).get(f"/w/{trio.workspace.id}/members/"))
        assert ">deactivated</span>" not in page and "Deactivated people cannot sign in" not in page

    def test_adding_a_deactivated_person_says_so_not_that_they_do_not_exist(
        self, trio: Trio, make_user: MakeUser
    ) -> None:
        make_user("gone", is_active=False)
        client = client_for(trio.owner)
        gone = words(client.post(f"/w/{trio.workspace.id}/members/add", {"username": "gone", "role": "viewer"}))
        assert "gone's account is deactivated, so they cannot sign in" in gone
        assert "does not exist" not in gone
        missing = words(client.post(f"/w/{trio.workspace.id}/members/add", {"username": "nobody", "role": "viewer"}))
        assert "There is no user called 'nobody'." in missing and "Their account does not exist yet" in missing
        assert "deactivated" not in missing.split("Add a member")[-1]
        assert not Membership.objects.filter(user__username="gone").exists()

    def test_the_api_tells_deactivated_from_missing(self, trio: Trio, make_user: MakeUser) -> None:
        make_user("gone", is_active=False)
        api = api_for(trio.owner)
        gone = api.post(f"/workspaces/{trio.workspace.id}/members", {"username": "gone", "role": "viewer"})
        missing = api.post(f"/workspaces/{trio.workspace.id}/members", {"username": "nobody", "role": "viewer"})
        assert gone.status_code == missing.status_code == 422
        assert "gone's account is deactivated" in gone.json()["detail"]
        assert missing.json()["detail"] == "There is no user called 'nobody'."


READY = importlib.import_module("workspaces.migrations.0006_ready_groups")


def ready_groups() -> dict[str, set[str]]:
    return {
        group.name: set(group.permissions.values_list("codename", flat=True))
        for group in Group.objects.filter(name__in=READY.READY_GROUPS)
    }


class ReadyGroupsTests:
    def test_the_migration_made_them_with_their_permissions(self) -> None:
        assert ready_groups() == {
            "Auditors": {AUDIT_EVERY_WORKSPACE, "view_auditevent"},
            "Workspace creators": {"add_workspace"},
        }

    def test_it_is_idempotent_and_reversible_and_keeps_a_groups_members(self, make_user: MakeUser) -> None:
        ada = make_user("ada")
        ada.groups.add(Group.objects.get(name="Auditors"))
        READY.make_groups(installed_apps, None)
        assert ready_groups()["Auditors"] == {AUDIT_EVERY_WORKSPACE, "view_auditevent"}
        assert list(ada.groups.values_list("name", flat=True)) == ["Auditors"]
        READY.remove_groups(installed_apps, None)
        assert ready_groups() == {} and not ada.groups.exists()
        # A group of that name made by hand keeps what it had besides.
        kept = Group.objects.create(name="Workspace creators")
        kept.permissions.add(Permission.objects.get(codename="change_workspace"))
        READY.make_groups(installed_apps, None)
        assert ready_groups()["Workspace creators"] == {"add_workspace", "change_workspace"}
        READY.remove_groups(installed_apps, None)
        assert ready_groups() == {"Workspace creators": {"change_workspace"}}

    def test_a_person_given_the_auditors_group_reads_every_workspace(self, trio: Trio, make_user: MakeUser) -> None:
        auditor = make_user("audrey", is_staff=True)
        auditor.groups.add(Group.objects.get(name="Auditors"))
        assert client_for(auditor).get(f"/w/{trio.workspace.id}/").status_code == 200
        creator = make_user("cleo")
        creator.groups.add(Group.objects.get(name="Workspace creators"))
        assert client_for(creator).post("/w/new", {"name": "Research"}).status_code == 302


class PersonPageTests:
    def test_it_says_what_a_person_may_do_and_through_what(self, trio: Trio, root: Any) -> None:
        trio.viewer.groups.add(Group.objects.get(name="Auditors"))
        trio.viewer.user_permissions.add(Permission.objects.get(codename=AUDIT_EVERY_WORKSPACE))
        page = words(client_for(root).get(f"/admin/auth/user/{trio.viewer.pk}/change/"))
        assert "Reads every workspace as a viewer, given directly and through the group “Auditors”." in page
        assert "Not staff: no Django admin, no audit pages." in page
        assert "Member of “Launch planning” (viewer)." in page
        owner = words(client_for(root).get(f"/admin/auth/user/{trio.owner.pk}/change/"))
        assert "Reads only the workspaces they are a member of." in owner
        assert "Member of “Launch planning” (admin)." in owner
        superuser = words(client_for(root).get(f"/admin/auth/user/{root.pk}/change/"))
        assert (
            "Superuser: every permission of the Django admin; workspaces still only as a member or auditor."
            in superuser
        )
        assert "Member of no workspace." in superuser
