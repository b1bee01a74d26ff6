"""Every change of who may do what is audited on every path that saves through the models — the admin
(test_admin_audited.py), commands, the portal, the API, code — and an auditor finds it on the audit page and in its
CSV, by the person affected."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import MD5PasswordHasher, make_password
from django.contrib.auth.management.commands import changepassword
from django.contrib.auth.models import Group, Permission
from django.core.management import call_command
from django.test import Client

from tests.conftest import PASSWORD, MakeUser, Trio, api_for, client_for
from workspaces import signals
from workspaces.models import AUDIT_EVERY_WORKSPACE, EVENT_KINDS, EVENT_WORDS, AuditEvent

pytestmark = pytest.mark.django_db


def events(**filters: Any) -> list[AuditEvent]:
    return list(AuditEvent.objects.filter(**filters).order_by("id"))


def text(response: Any) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", response.content.decode()).replace("&#x27;", "'").split())


def auditor_permission() -> Permission:
    return Permission.objects.get(codename=AUDIT_EVERY_WORKSPACE)


class AccountEventTests:
    def test_a_command_creating_a_superuser_is_audited_as_the_system(self, monkeypatch: Any) -> None:
        monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", "A long pass 1906")
        call_command("createsuperuser", "--noinput", username="boss", email="boss@example.com", verbosity=0)
        [event] = events(verb="user.created", target="boss")
        assert event.actor is None and event.actor_name == "system" and event.workspace is None
        assert event.payload["to"] == "active, staff, superuser, with a password"
        assert event.payload["via"] == "a command or background task"

    def test_changepassword_is_audited_and_a_login_is_not(self, make_user: MakeUser, monkeypatch: Any) -> None:
        ada = make_user("ada")
        monkeypatch.setattr(changepassword.Command, "_get_pass", lambda self, prompt="": "A long pass 1906")
        call_command("changepassword", "ada", verbosity=0)
        [event] = events(verb="user.password_set")
        assert (event.actor_name, event.target, event.payload["from"], event.payload["to"]) == (
            "system", "ada", "old password", "new password"
        )  # fmt: skip
        # A login saves the last-login time, and upgrades a weak hash (same password, stored stronger): neither is
        # a change of who may do what.
        ada.password = MD5PasswordHasher().encode(PASSWORD, "ab")  # a salt too short: upgraded at the next login
        ada.save(update_fields=["password"])
        count = AuditEvent.objects.count()
        assert Client().post("/accounts/login/", {"username": "ada", "password": PASSWORD}).status_code == 302
        ada.refresh_from_db()
        assert ada.last_login is not None and not ada.password.endswith("$ab$")
        assert AuditEvent.objects.count() == count

    def test_a_password_hash_written_directly_is_audited_as_a_password_set(self, make_user: MakeUser) -> None:
        ada = make_user("ada")
        # Not through set_password: a hash made elsewhere and written into the account.
        ada.password = make_password("Another long pass 1906")
        ada.save()
        [event] = events(verb="user.password_set")
        assert (event.target, event.payload["from"], event.payload["to"]) == ("ada", "old password", "new password")
        newcomer = get_user_model().objects.create(username="newcomer")
        newcomer.password = make_password("A first pass 1906")
        newcomer.save(update_fields=["password"])
        assert events(verb="user.password_set", target="newcomer")[0].payload["from"] == "no password"

    def test_a_password_made_unusable_is_audited_but_a_portal_account_starting_without_one_is_not(
        self, make_user: MakeUser
    ) -> None:
        ada = make_user("ada")
        ada.set_unusable_password()
        ada.save()
        assert [e.summary for e in events(verb="user.password_removed")] == ["made the password of ada unusable"]
        portal = get_user_model().objects.create(username="newcomer")  # as the portal's backend makes it
        portal.set_unusable_password()
        portal.save(update_fields=["password"])
        assert not events(verb="user.password_removed", target="newcomer")

    def test_flags_changed_in_code_are_audited_with_before_and_after(self, make_user: MakeUser) -> None:
        ada = make_user("ada")
        ada.is_staff = ada.is_superuser = True
        ada.save()
        ada.is_staff = ada.is_superuser = False
        ada.save()
        ada.is_active = False
        ada.save()
        ada.is_active = True
        ada.save()
        assert [(e.verb, e.payload["from"], e.payload["to"]) for e in events(target="ada", verb__startswith="user.")][
            1:
        ] == [
            ("user.staff_granted", "not staff", "staff"),
            ("user.superuser_granted", "not a superuser", "superuser"),
            ("user.staff_revoked", "staff", "not staff"),
            ("user.superuser_revoked", "superuser", "not a superuser"),
            ("user.deactivated", "active", "deactivated"),
            ("user.reactivated", "deactivated", "active"),
        ]

    def test_saving_an_account_without_changing_access_records_nothing(self, make_user: MakeUser) -> None:
        ada = make_user("ada")
        count = AuditEvent.objects.count()
        ada.first_name = "Ada"
        ada.save()
        ada.save(update_fields=["last_login"])
        # A save of some fields writes only those: a flag changed in memory is not changed in the database.
        ada.is_staff = True
        ada.save(update_fields=["first_name"])
        assert AuditEvent.objects.count() == count
        ada.refresh_from_db()
        assert not ada.is_staff

    def test_deleting_an_account_is_audited_with_its_memberships(self, trio: Trio, make_user: MakeUser) -> None:
        ghost = make_user("ghost")
        ghost.groups.add(Group.objects.get(name="Auditors"))
        from workspaces.services import memberships as membership_services

        membership_services.member_add(workspace=trio.workspace, username="ghost", role="reviewer", actor=trio.owner)
        ghost.delete()
        [deleted] = events(verb="user.deleted")
        assert deleted.target == "ghost" and deleted.payload["memberships"] == {"Launch planning": "reviewer"}
        assert deleted.payload["groups"] == ["Auditors"] and deleted.payload["to"] == "deleted"
        assert deleted.payload["tokens_deleted"] == 0
        assert deleted.summary == (
            "deleted the account ghost (was active, with a password); ghost no longer reads every workspace"
        )
        removed = events(verb="member.removed", target="ghost")
        assert len(removed) == 1 and removed[0].workspace == trio.workspace
        assert removed[0].payload["why"] == "account deleted"


class GrantEventTests:
    def test_a_group_given_from_either_side_is_audited_with_its_effect(self, make_user: MakeUser) -> None:
        ada, bo = make_user("ada"), make_user("bo")
        auditors = Group.objects.get(name="Auditors")
        ada.groups.add(auditors)
        auditors.user_set.add(bo)
        auditors.user_set.clear()
        summaries = [e.summary for e in events(verb__in=["user.group_added", "user.group_removed"])]
        assert summaries == [
            "added ada to the group “Auditors”; ada now reads every workspace",
            "added bo to the group “Auditors”; bo now reads every workspace",
            "removed ada from the group “Auditors”; ada no longer reads every workspace",
            "removed bo from the group “Auditors”; bo no longer reads every workspace",
        ]
        assert events(verb="user.group_added")[0].payload["from"] == []
        assert events(verb="user.group_added")[0].payload["to"] == ["Auditors"]

    def test_a_permission_given_to_a_group_names_its_members_who_gain_reading_every_workspace(
        self, make_user: MakeUser
    ) -> None:
        ada, bo = make_user("ada"), make_user("bo", is_active=False)
        readers = Group.objects.create(name="Readers")
        readers.user_set.add(ada, bo)
        readers.permissions.add(auditor_permission())
        [event] = events(verb="group.permission_added")
        assert event.target == "Readers" and event.payload["members"] == ["ada", "bo"]
        # bo is deactivated: the permission gives them nothing until they are reactivated.
        assert event.summary == (
            "gave the group “Readers” the permission “Can read every workspace as a viewer, to audit it”; "
            "now read every workspace: ada"
        )
        auditor_permission().group_set.remove(readers)
        [taken] = events(verb="group.permission_removed")
        assert taken.payload["from"] == ["workspaces.audit_every_workspace"] and taken.payload["to"] == []
        assert taken.summary.endswith("; no longer read every workspace: ada")

    def test_a_person_given_a_permission_directly_and_a_group_deleted_are_audited(self, make_user: MakeUser) -> None:
        ada = make_user("ada")
        ada.user_permissions.add(auditor_permission())
        ada.user_permissions.clear()
        readers = Group.objects.create(name="Readers")
        readers.permissions.add(auditor_permission())
        readers.user_set.add(ada)
        readers.delete()
        verbs = [e.verb for e in events(verb__startswith="user.permission")]
        assert verbs == ["user.permission_added", "user.permission_removed"]
        [deleted] = events(verb="group.deleted")
        assert deleted.payload["members"] == ["ada"]
        assert deleted.summary == "deleted the group “Readers”; no longer read every workspace: ada"
        assert [e.verb for e in events(verb__startswith="group.", target="Readers")] == [
            "group.created", "group.permission_added", "group.deleted"
        ]  # fmt: skip

    def test_a_change_made_through_a_request_names_its_person(self, trio: Trio, make_user: MakeUser) -> None:
        api = api_for(trio.reviewer)
        revoked = api.client.delete("/api/v1/auth/token", headers=api.headers)
        assert revoked.status_code == 204
        [event] = events(verb="token.revoked")
        assert event.actor == trio.reviewer and event.target.endswith("for rita")
        assert (event.payload["from"], event.payload["to"]) == ("valid", "revoked")
        issued = Client().post(
            "/api/v1/auth/token", {"username": "rita", "password": PASSWORD}, content_type="application/json"
        )
        assert issued.status_code == 200
        assert events(verb="token.issued")[-1].actor == trio.reviewer


class AccessWordsTests:
    def test_every_access_verb_has_words_and_a_kind(self) -> None:
        verbs = {verb for values in signals.FLAGS.values() for verb, _, _ in values.values()}
        verbs |= {verb for relation in signals.RELATIONS.values() for verb in (relation.added, relation.removed)}
        verbs |= set(re.findall(r'verb="([a-z_]+\.[a-z_]+)"', Path(signals.__file__).read_text()))
        assert len(verbs) >= 19
        assert verbs <= EVENT_WORDS.keys() and verbs <= EVENT_KINDS.keys(), verbs - EVENT_WORDS.keys()


@pytest.fixture
def gave_ada_auditors(make_user: MakeUser) -> Any:
    """root, in the Django admin, ticked "Auditors" on ada's page; an auditor (staff) then reads the audit."""
    root = make_user("root", is_staff=True, is_superuser=True)
    ada = make_user("ada", first_name="Ada", last_name="Byron")
    ada.groups.add(Group.objects.get(name="Workspace creators"))
    client = client_for(root)
    page = client.get(f"/admin/auth/user/{ada.pk}/change/").content.decode()
    assert "Auditors — Can view audit event; Can read every workspace as a viewer, to audit it" in page
    auditors, creators = Group.objects.get(name="Auditors"), Group.objects.get(name="Workspace creators")
    form = {
        "username": "ada", "first_name": "Ada", "last_name": "Byron", "is_active": "on", "is_staff": "on",
        "groups": [str(auditors.pk), str(creators.pk)], "date_joined_0": "2026-01-01", "date_joined_1": "00:00:00",
    }  # fmt: skip
    assert client.post(f"/admin/auth/user/{ada.pk}/change/", form).status_code == 302
    return make_user("audrey", is_staff=True)


class AuditPageTests:
    def test_an_auditor_finds_who_gave_a_person_every_workspace_and_when(self, gave_ada_auditors: Any) -> None:
        page = text(client_for(gave_ada_auditors).get("/audit/?affected=byron"))
        # Who (root), when (the row's time), and what it did to ada's access, in one row.
        row = re.search(
            r"(\d{4}-\d\d-\d\d \d\d:\d\d) none \(an account\) root Added to a group ([^;]+); ada (.+?) ", page
        )
        assert row is not None, page
        assert row.group(2) == "added ada to the group “Auditors”" and row.group(3) == "now"
        assert "made ada staff" in page and "created the account ada" in page
        # Only what changed ada's access: not the other accounts' events.
        assert "created the account root" not in page and "created the account audrey" not in page
        assert "events match person affected “byron”" in page

    def test_the_kind_filter_and_the_csv_carry_access_events(self, gave_ada_auditors: Any) -> None:
        auditor = client_for(gave_ada_auditors)
        assert "1 event matches kind Made staff." in text(auditor.get("/audit/?kind=user.staff_granted"))
        answer: Any = auditor.get("/audit/export.csv?affected=ada&kind=user.group_added")
        rows = list(csv.reader(io.StringIO(b"".join(answer.streaming_content).decode("utf-8-sig"))))
        assert rows[0][:5] == ["time (UTC)", "workspace", "person", "kind", "summary"]
        newest, first = rows[1:]
        assert newest[1:5] == [
            "",
            "root",
            "Added to a group",
            "added ada to the group “Auditors”; ada now reads every workspace",
        ]
        assert first[2:5] == ["system", "Added to a group", "added ada to the group “Workspace creators”"]

    def test_the_person_affected_filter_finds_group_events_through_their_members(self, make_user: MakeUser) -> None:
        ada = make_user("ada")
        readers = Group.objects.create(name="Readers")
        readers.user_set.add(ada)
        readers.permissions.add(auditor_permission())
        page = text(client_for(make_user("audrey", is_staff=True)).get("/audit/?affected=ada"))
        assert "gave the group “Readers” the permission" in page and "now read every workspace: ada" in page

    def test_a_workspace_creator_is_found_as_affected_by_creating_it(self, trio: Trio, make_user: MakeUser) -> None:
        page = text(client_for(make_user("audrey", is_staff=True)).get("/audit/?affected=olivia"))
        assert "created the workspace “Launch planning”" in page and "added rita" not in page
