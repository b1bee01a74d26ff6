"""A staff auditor given the permission to read every workspace (workspaces.models.AUDIT_EVERY_WORKSPACE) reads each
as its viewers do — its pages, its past and the API — and changes nothing; without the grant, a workspace they do
not belong to stays a 404, superusers included (workspaces stay apart)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Group, Permission

from tests.conftest import MakeUser, Trio, api_for, client_for
from workspaces.models import AUDIT_EVERY_WORKSPACE, Membership

pytestmark = pytest.mark.django_db


def grant(user: Any) -> None:
    user.user_permissions.add(Permission.objects.get(codename=AUDIT_EVERY_WORKSPACE))


class AuditorTests:
    def test_an_auditor_reads_every_workspace_its_past_and_the_api(self, trio: Trio, make_user: MakeUser) -> None:
        auditor = make_user("ada", is_staff=True)
        grant(auditor)
        ws = trio.workspace.id
        page = client_for(auditor)
        for path in ("/", "/timeline/", "/diff/", "/corrections/", "/claims/", "/?as_of=2026-01-01"):
            assert page.get(f"/w/{ws}{path}").status_code == 200, path
        api = api_for(auditor)
        assert api.get(f"/workspaces/{ws}/changes").status_code == 200
        assert api.get(f"/workspaces/{ws}/decisions").status_code == 200
        # Nothing is saved: they are no member, and the workspace list is of their memberships.
        assert not Membership.objects.filter(user=auditor).exists()
        assert api.get("/workspaces").json()["results"] == []

    def test_an_auditor_changes_nothing(self, trio: Trio, make_user: MakeUser) -> None:
        auditor = make_user("ada", is_staff=True)
        grant(auditor)
        ws = trio.workspace.id
        answer = api_for(auditor).post(f"/workspaces/{ws}/sources", {"title": "T", "text": "Some text."})
        assert answer.status_code == 403 and answer.json()["error"] == "forbidden"
        assert client_for(auditor).get(f"/w/{ws}/members/").status_code == 403

    def test_a_group_can_carry_the_grant(self, trio: Trio, make_user: MakeUser) -> None:
        auditor = make_user("ada", is_staff=True)
        auditors = Group.objects.create(name="Readers")
        auditors.permissions.add(Permission.objects.get(codename=AUDIT_EVERY_WORKSPACE))
        auditor.groups.add(auditors)
        assert client_for(auditor).get(f"/w/{trio.workspace.id}/timeline/").status_code == 200

    def test_without_the_grant_it_stays_a_404_superusers_included(self, trio: Trio, make_user: MakeUser) -> None:
        ws = trio.workspace.id
        for user in (make_user("sam", is_staff=True), make_user("root", is_staff=True, is_superuser=True)):
            assert client_for(user).get(f"/w/{ws}/").status_code == 404
            assert api_for(user).get(f"/workspaces/{ws}/changes").status_code == 404

    def test_an_inactive_auditor_reads_nothing(self, trio: Trio, make_user: MakeUser) -> None:
        auditor = make_user("ada", is_staff=True)
        grant(auditor)
        auditor.is_active = False
        auditor.save()
        assert api_for(auditor).get(f"/workspaces/{trio.workspace.id}/changes").status_code in (401, 404)

    def test_the_audit_pages_link_an_auditors_events_to_their_pages(self, trio: Trio, make_user: MakeUser) -> None:
        auditor = make_user("ada", is_staff=True)
        audit = client_for(auditor).get("/audit/").content.decode()
        assert f'href="/w/{trio.workspace.id}/"' not in audit
        grant(auditor)
        assert f'href="/w/{trio.workspace.id}/"' in client_for(auditor).get("/audit/").content.decode()
