"""Every workspace page and endpoint: allowed for members, 403 for a viewer's writes, 404 for outsiders."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from tests.conftest import MakeUser, Trio, api_for, client_for
from workspaces.models import AuditEvent, Membership, Workspace

pytestmark = pytest.mark.django_db


class PageAccessTests:
    @pytest.mark.parametrize("page", ["dashboard", "members"])
    def test_it_hides_every_workspace_page_from_outsiders(self, trio: Trio, page: str) -> None:
        url = f"/w/{trio.workspace.id}/" + ("" if page == "dashboard" else "members/")
        response = client_for(trio.outsider).get(url)
        assert response.status_code == 404
        assert b"Launch planning" not in response.content

    def test_it_shows_the_dashboard_to_every_member(self, trio: Trio) -> None:
        for user in (trio.owner, trio.reviewer, trio.viewer):
            response = client_for(user).get(f"/w/{trio.workspace.id}/")
            assert response.status_code == 200
            assert b"Launch planning" in response.content

    def test_it_lets_only_admins_manage_members(self, trio: Trio) -> None:
        assert client_for(trio.owner).get(f"/w/{trio.workspace.id}/members/").status_code == 200
        assert client_for(trio.reviewer).get(f"/w/{trio.workspace.id}/members/").status_code == 403
        assert client_for(trio.viewer).get(f"/w/{trio.workspace.id}/members/").status_code == 403

    def test_it_refuses_member_writes_from_viewers_and_outsiders_without_writing(self, trio: Trio) -> None:
        url = f"/w/{trio.workspace.id}/members/add"
        before = (Membership.objects.count(), AuditEvent.objects.count())
        assert client_for(trio.viewer).post(url, {"username": "oscar", "role": "admin"}).status_code == 403
        assert client_for(trio.outsider).post(url, {"username": "oscar", "role": "admin"}).status_code == 404
        assert (Membership.objects.count(), AuditEvent.objects.count()) == before

    def test_it_answers_404_for_a_workspace_that_does_not_exist(self, trio: Trio) -> None:
        assert client_for(trio.owner).get(f"/w/{uuid.uuid4()}/").status_code == 404

    def test_it_sends_anonymous_visitors_to_the_login_page(self, trio: Trio) -> None:
        from django.test import Client

        response = Client().get(f"/w/{trio.workspace.id}/")
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/")


class ApiAccessTests:
    def test_it_lists_only_the_callers_workspaces(self, trio: Trio, make_user: MakeUser) -> None:
        response = api_for(trio.viewer).get("/workspaces")
        assert response.status_code == 200
        assert response.json()["results"] == [
            {"id": str(trio.workspace.id), "name": "Launch planning", "role": "viewer"}
        ]
        assert api_for(trio.outsider).get("/workspaces").json()["results"] == []

    def test_it_answers_404_to_outsiders_exactly_as_for_a_missing_workspace(self, trio: Trio) -> None:
        outsider = api_for(trio.outsider)
        real = outsider.post(f"/workspaces/{trio.workspace.id}/members", {"username": "oscar", "role": "admin"})
        missing = outsider.post(f"/workspaces/{uuid.uuid4()}/members", {"username": "oscar", "role": "admin"})
        assert real.status_code == missing.status_code == 404
        assert real.json() == missing.json()
        assert real.json()["error"] == "not_found"

    def test_it_forbids_viewers_and_reviewers_from_adding_members(self, trio: Trio) -> None:
        for user in (trio.viewer, trio.reviewer):
            response = api_for(user).post(
                f"/workspaces/{trio.workspace.id}/members", {"username": "oscar", "role": "viewer"}
            )
            assert response.status_code == 403
            assert response.json()["error"] == "forbidden"
            assert response.json()["detail"]
        assert not Membership.objects.filter(user=trio.outsider).exists()

    def test_it_answers_404_to_outsiders_and_403_to_viewers_even_for_a_broken_body(self, trio: Trio) -> None:
        url = f"/workspaces/{trio.workspace.id}/members"
        assert api_for(trio.outsider).post(url, raw='{"username": ').status_code == 404
        assert api_for(trio.outsider).post(url, raw='{"username": 5}').status_code == 404
        assert api_for(trio.viewer).post(url, raw='{"username": ').status_code == 403
        broken = api_for(trio.owner).post(url, raw='{"username": ')
        assert broken.status_code == 422 and broken.json()["detail"] == "The request body is not valid JSON."

    def test_it_lists_members_only_for_admins(self, trio: Trio) -> None:
        url = f"/workspaces/{trio.workspace.id}/members"
        assert api_for(trio.owner).get(url).status_code == 200
        assert api_for(trio.reviewer).get(url).status_code == 403
        assert api_for(trio.viewer).get(url).status_code == 403
        assert api_for(trio.outsider).get(url).status_code == 404

    def test_it_refuses_settings_to_everyone_but_admins_in_words_about_settings(self, trio: Trio) -> None:
        def patch(user: Any) -> Any:
            api = api_for(user)
            body = json.dumps({"agent_claims_need_approval": True})
            return api.client.patch(
                f"/api/v1/workspaces/{trio.workspace.id}", data=body, content_type="application/json",
                headers=api.headers,
            )  # fmt: skip

        for user in (trio.reviewer, trio.viewer):
            refused = patch(user)
            assert refused.status_code == 403
            assert refused.json()["detail"] == "Only this workspace's admins can change its settings."
            page = client_for(user).post(f"/w/{trio.workspace.id}/settings", {"agent_claims_need_approval": "on"})
            assert page.status_code == 403 and "admins can change its settings" in page.content.decode()
        assert patch(trio.outsider).status_code == 404
        assert Workspace.objects.get(pk=trio.workspace.pk).agent_claims_need_approval is False
        assert not AuditEvent.objects.filter(verb="workspace.changed").exists()
        changed = patch(trio.owner)
        assert changed.status_code == 200 and changed.json()["role"] == "admin"
        assert changed.json()["agent_claims_need_approval"] is True
        # The members page's own refusal still speaks of members.
        members = api_for(trio.reviewer).get(f"/workspaces/{trio.workspace.id}/members")
        assert members.json()["detail"] == "Only this workspace's admins can manage its members."

    def test_it_lets_the_admin_add_a_member(self, trio: Trio) -> None:
        response = api_for(trio.owner).post(
            f"/workspaces/{trio.workspace.id}/members", {"username": "oscar", "role": "reviewer"}
        )
        assert response.status_code == 201
        assert response.json() == {"username": "oscar", "role": "reviewer"}
        assert Membership.objects.get(user=trio.outsider).role == "reviewer"
        assert AuditEvent.objects.filter(verb="member.added", target="oscar", actor=trio.owner).exists()


def workspace_routes(trio: Trio) -> list[tuple[str, str, dict[str, str], str]]:
    """Every workspace-scoped page: (method, url, form, the least role that may use it)."""
    ws = trio.workspace.id
    victor = Membership.objects.get(user=trio.viewer).pk
    return [
        ("get", f"/w/{ws}/", {}, "viewer"),
        ("get", f"/w/{ws}/members/", {}, "admin"),
        ("post", f"/w/{ws}/members/add", {"username": "oscar", "role": "viewer"}, "admin"),
        ("post", f"/w/{ws}/members/{victor}/role", {"role": "reviewer"}, "admin"),
        ("post", f"/w/{ws}/members/{victor}/remove", {"confirmed": "yes"}, "admin"),
        ("post", f"/w/{ws}/settings", {"agent_claims_need_approval": "on"}, "admin"),
    ]


RANK = {"viewer": 0, "reviewer": 1, "admin": 2}


class AccessMatrixTests:
    def test_it_applies_the_same_rule_to_every_workspace_page(self, trio: Trio) -> None:
        people = {"admin": trio.owner, "reviewer": trio.reviewer, "viewer": trio.viewer}
        for method, url, form, least in workspace_routes(trio):
            outsider = getattr(client_for(trio.outsider), method)(url, form)
            assert outsider.status_code == 404, (url, "outsider")
            for role, user in people.items():
                if RANK[role] < RANK[least]:
                    response = getattr(client_for(user), method)(url, form)
                    assert response.status_code == 403, (url, role)
        # Nothing the refused requests asked for happened.
        assert Membership.objects.get(user=trio.viewer).role == "viewer"
        assert not Membership.objects.filter(user=trio.outsider).exists()
        assert Workspace.objects.get(pk=trio.workspace.pk).agent_claims_need_approval is False
        # And the admin may use every one of them: pages answer 200, form posts redirect back.
        for method, url, form, _ in workspace_routes(trio):
            response = getattr(client_for(trio.owner), method)(url, form)
            assert response.status_code == (200 if method == "get" else 302), url
        assert not Membership.objects.filter(user=trio.viewer).exists()
        assert Membership.objects.get(user=trio.outsider).role == "viewer"
