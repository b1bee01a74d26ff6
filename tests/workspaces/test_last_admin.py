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
from django.contrib.auth.models import Group, Permission
from django.db import connection, transaction
from django.db.migrations.loader import MigrationLoader
from django.db.models.signals import pre_save

from tests.conftest import MakeUser, Trio, api_for, client_for
from workspaces.models import AUDIT_EVERY_WORKSPACE, AuditEvent, Membership, Role, Workspace
from workspaces.services import admins as admin_services
from workspaces.services import memberships as membership_services

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


def workspace_form(trio: Trio, roles: dict[Any, str], *, added: Any = (), removed: Any = ()) -> dict[str, Any]:
    """The Django admin's form of the trio's workspace with its members' rows: each member's role as in `roles` (else
    as stored), `removed` people's rows ticked for deletion, and a new row per (person, role) in `added`."""
    rows = list(Membership.objects.filter(workspace=trio.workspace).order_by("pk"))
    form: dict[str, Any] = {
        "name": trio.workspace.name, "memberships-TOTAL_FORMS": str(len(rows) + len(added)),
        "memberships-INITIAL_FORMS": str(len(rows)),
    }  # fmt: skip
    for index, row in enumerate(rows):
        form |= {
            f"memberships-{index}-id": str(row.pk), f"memberships-{index}-workspace": str(trio.workspace.id),
            f"memberships-{index}-user": str(row.user_id), f"memberships-{index}-role": roles.get(row.user, row.role),
        }  # fmt: skip
        if row.user in removed:
            form[f"memberships-{index}-DELETE"] = "on"
    for index, (person, role) in enumerate(added, start=len(rows)):
        form |= {f"memberships-{index}-user": str(person.pk), f"memberships-{index}-role": role}
    return form


def roles_of(trio: Trio) -> dict[str, str]:
    return dict(Membership.objects.filter(workspace=trio.workspace).values_list("user__username", "role"))


def deactivated_admin(trio: Trio) -> Any:
    """victor, made a second admin and then deactivated: an admin who does not count."""
    victor = Membership.objects.get(user=trio.viewer)
    membership_services.member_change_role(
        workspace=trio.workspace, membership_id=victor.pk, role=Role.ADMIN, actor=trio.owner
    )
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
        membership_services.member_change_role(
            workspace=trio.workspace, membership_id=rita.pk, role=Role.ADMIN, actor=trio.owner
        )
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
        membership_services.member_change_role(
            workspace=trio.workspace, membership_id=rita.pk, role=Role.ADMIN, actor=trio.owner
        )
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
        with pytest.raises(admin_services.NoAdminLeft, match=f"Deactivating olivia {REFUSED}"):
            trio.owner.save()
        trio.owner.refresh_from_db()
        assert trio.owner.is_active

    def test_a_refused_deactivation_leaves_no_event_behind_for_a_later_save(self, trio: Trio) -> None:
        trio.owner.is_active = False
        with pytest.raises(admin_services.NoAdminLeft):
            trio.owner.save()
        # The same object saved again for another field (as a login saves its time): nothing about access changed.
        trio.owner.save(update_fields=["last_login"])
        trio.owner.refresh_from_db()
        assert trio.owner.is_active
        assert not AuditEvent.objects.filter(verb="user.deactivated").exists()


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
        refused = pytest.raises(
            admin_services.NoAdminLeft, match="“Side project” needs at least one admin whose account is"
        )
        with refused, transaction.atomic():
            people.delete()
        assert people.count() == 2 and Membership.objects.filter(workspace=side).count() == 2
        ann.delete()
        refused = pytest.raises(
            admin_services.NoAdminLeft, match="Deleting ben would leave “Side project” without an active"
        )
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


class HandOverTests:
    """Handing over admin in one save of the workspace's page: whatever order the rows come in, the successor is
    made admin before the one leaving stops being one."""

    def test_the_admin_demoted_and_a_newcomer_added_as_admin_in_one_save(self, trio: Trio, root: Any) -> None:
        nina = type(trio.owner).objects.create_user("nina")
        form = workspace_form(trio, {trio.owner: "viewer"}, added=[(nina, "admin")])
        response = client_for(root).post(f"/admin/workspaces/workspace/{trio.workspace.id}/change/", form)
        assert response.status_code == 302
        assert roles_of(trio) == {"olivia": "viewer", "rita": "reviewer", "victor": "viewer", "nina": "admin"}
        verbs = AuditEvent.objects.filter(workspace=trio.workspace, verb__startswith="member.").order_by("id")
        assert [(e.verb, e.target) for e in verbs][-2:] == [("member.added", "nina"), ("member.role_changed", "olivia")]

    def test_the_admin_demoted_and_a_member_promoted_in_one_save(self, trio: Trio, root: Any) -> None:
        form = workspace_form(trio, {trio.owner: "viewer", trio.reviewer: "admin"})
        response = client_for(root).post(f"/admin/workspaces/workspace/{trio.workspace.id}/change/", form)
        assert response.status_code == 302
        assert roles_of(trio) == {"olivia": "viewer", "rita": "admin", "victor": "viewer"}

    def test_the_admin_removed_and_a_member_promoted_in_one_save(self, trio: Trio, root: Any) -> None:
        form = workspace_form(trio, {trio.reviewer: "admin"}, removed=[trio.owner])
        response = client_for(root).post(f"/admin/workspaces/workspace/{trio.workspace.id}/change/", form)
        assert response.status_code == 302
        assert roles_of(trio) == {"rita": "admin", "victor": "viewer"}

    def test_a_refusal_while_saving_comes_back_in_words_and_nothing_is_saved(self, trio: Trio, root: Any) -> None:
        # rita, the successor, is deactivated by someone else between the form's checks and the writes.
        def meanwhile(sender: Any, instance: Workspace, **kwargs: Any) -> None:
            type(trio.owner).objects.filter(pk=trio.reviewer.pk).update(is_active=False)

        pre_save.connect(meanwhile, sender=Workspace, dispatch_uid="test_meanwhile")
        try:
            form = workspace_form(trio, {trio.owner: "viewer", trio.reviewer: "admin"})
            response = client_for(root).post(f"/admin/workspaces/workspace/{trio.workspace.id}/change/", form)
        finally:
            pre_save.disconnect(sender=Workspace, dispatch_uid="test_meanwhile")
        assert response.status_code == 200
        assert f"Making olivia viewer {REFUSED}" in words(response)
        # rita's promotion, written before the refusal, is rolled back with everything else.
        assert roles_of(trio) == {"olivia": "admin", "rita": "reviewer", "victor": "viewer"}


DEACTIVATED = "gone's account is deactivated, so they cannot sign in"


class AddingDeactivatedTests:
    def test_the_workspaces_inline_refuses_a_deactivated_person_in_words(
        self, trio: Trio, root: Any, make_user: MakeUser
    ) -> None:
        gone = make_user("gone", is_active=False)
        form = workspace_form(trio, {}, added=[(gone, "viewer")])
        response = client_for(root).post(f"/admin/workspaces/workspace/{trio.workspace.id}/change/", form)
        assert response.status_code == 200 and DEACTIVATED in words(response)
        assert not Membership.objects.filter(user=gone).exists()

    def test_the_membership_add_form_refuses_a_deactivated_person_in_words(
        self, trio: Trio, root: Any, make_user: MakeUser
    ) -> None:
        gone = make_user("gone", is_active=False)
        response = client_for(root).post(
            "/admin/workspaces/membership/add/",
            {"user": str(gone.pk), "workspace": str(trio.workspace.id), "role": "viewer"},
        )
        assert response.status_code == 200 and DEACTIVATED in words(response)
        assert not Membership.objects.filter(user=gone).exists()
        # An active person is added as before.
        added = client_for(root).post(
            "/admin/workspaces/membership/add/",
            {"user": str(trio.outsider.pk), "workspace": str(trio.workspace.id), "role": "viewer"},
        )
        assert added.status_code == 302 and Membership.objects.filter(user=trio.outsider).exists()


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


def migration_apps() -> Any:
    """The models as migration 0006 sees them (historical models: no model signal reaches this app's handlers)."""
    return MigrationLoader(connection).project_state(("workspaces", "0006_ready_groups")).apps


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

    def test_it_is_idempotent_and_reversible_and_never_changes_what_a_person_may_do(
        self, make_user: MakeUser, capsys: Any
    ) -> None:
        ada = make_user("ada")
        ada.groups.add(Group.objects.get(name="Auditors"))
        READY.make_groups(migration_apps(), None)
        assert ready_groups()["Auditors"] == {AUDIT_EVERY_WORKSPACE, "view_auditevent"}
        assert list(ada.groups.values_list("name", flat=True)) == ["Auditors"]
        # Reversed, a ready group someone was given stays (its members keep what it gives); an unused one goes.
        READY.remove_groups(migration_apps(), None)
        assert ready_groups() == {"Auditors": {AUDIT_EVERY_WORKSPACE, "view_auditevent"}}
        assert "“Auditors” is left as it is: ada" in capsys.readouterr().out
        ada.groups.clear()
        READY.remove_groups(migration_apps(), None)
        assert ready_groups() == {}
        READY.make_groups(migration_apps(), None)
        assert ready_groups() == {
            "Auditors": {AUDIT_EVERY_WORKSPACE, "view_auditevent"}, "Workspace creators": {"add_workspace"}
        }  # fmt: skip

    def test_a_group_of_that_name_made_before_is_left_alone_and_the_migration_says_so(
        self, make_user: MakeUser, capsys: Any
    ) -> None:
        READY.remove_groups(migration_apps(), None)
        # A group someone made for something else, under the same name, with people in it.
        theirs = Group.objects.create(name="Auditors")
        theirs.permissions.add(Permission.objects.get(codename="view_workspace"))
        ada = make_user("ada")
        ada.groups.add(theirs)
        count = AuditEvent.objects.count()
        READY.make_groups(migration_apps(), None)
        assert ready_groups() == {"Auditors": {"view_workspace"}, "Workspace creators": {"add_workspace"}}
        ada = type(ada).objects.get(pk=ada.pk)
        assert not ada.has_perm(f"workspaces.{AUDIT_EVERY_WORKSPACE}")
        said = capsys.readouterr().out
        assert "A group “Auditors” exists already: it is left as it is" in said
        assert "“Can read every workspace as a viewer, to audit it”" in said
        # Nobody gained anything, so nothing happened to audit.
        assert AuditEvent.objects.count() == count

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
