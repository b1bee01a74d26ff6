"""The workspace API: tokens, creating workspaces, members, and the error format for bad input."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Permission

from afterhack import graph
from tests.conftest import PASSWORD, ApiClient, MakeUser, Trio, api_for
from workspaces import graph as workspace_graph
from workspaces.models import ApiToken, AuditEvent, Membership, Workspace

pytestmark = pytest.mark.django_db


class TokenTests:
    def test_it_issues_a_token_for_good_credentials_and_stores_only_its_hash(self, make_user: MakeUser) -> None:
        make_user("ada")
        response = ApiClient(None).post("/auth/token", {"username": "ada", "password": PASSWORD})
        assert response.status_code == 200
        token = response.json()["token"]
        stored = ApiToken.objects.get(user__username="ada")
        assert stored.key_hash != token and token not in stored.key_hash
        assert ApiClient(token).get("/workspaces").status_code == 200

    def test_it_refuses_bad_credentials_with_401(self, make_user: MakeUser) -> None:
        make_user("ada")
        response = ApiClient(None).post("/auth/token", {"username": "ada", "password": "wrong"})
        assert response.status_code == 401
        assert response.json()["error"] == "unauthorized"
        assert not ApiToken.objects.exists()

    @pytest.mark.parametrize("token", [None, "", "ah_not-a-real-token"])
    def test_it_refuses_missing_or_bad_tokens_with_401(self, token: str | None) -> None:
        response = ApiClient(token).get("/workspaces")
        assert response.status_code == 401
        assert response.json() == {
            "error": "unauthorized",
            "detail": "Send a valid API token as 'Authorization: Bearer <token>'.",
        }

    def test_it_refuses_a_revoked_token(self, make_user: MakeUser) -> None:
        from django.utils import timezone

        user = make_user("ada")
        client = api_for(user)
        ApiToken.objects.filter(user=user).update(revoked_at=timezone.now())
        assert client.get("/workspaces").status_code == 401


class WorkspaceCreateTests:
    def test_it_creates_a_workspace_with_its_graph_and_indexes(self, make_user: MakeUser) -> None:
        user = make_user("ada", is_superuser=True)
        response = api_for(user).post("/workspaces", {"name": "  Research  "})
        assert response.status_code == 201
        body = response.json()
        assert body["name"] == "Research" and body["role"] == "admin"
        workspace = Workspace.objects.get(id=body["id"])
        assert workspace.graph_name == "ws_" + workspace.id.hex
        assert workspace.graph_name in graph.list_graph_names()
        assert workspace_graph.graph_revision(workspace=workspace, workspace_id=str(workspace.id)) == 0
        kinds = workspace_graph.index_kinds(workspace=workspace)
        assert ("Claim", "id", "RANGE") in kinds and ("Claim", "statement", "FULLTEXT") in kinds
        assert AuditEvent.objects.filter(verb="workspace.created", workspace=workspace).count() == 1

    def test_it_needs_the_add_workspace_permission(self, make_user: MakeUser) -> None:
        user = make_user("ada")
        response = api_for(user).post("/workspaces", {"name": "Research"})
        assert response.status_code == 403
        assert response.json()["error"] == "forbidden"
        user.user_permissions.add(Permission.objects.get(codename="add_workspace"))
        assert api_for(user).post("/workspaces", {"name": "Research"}).status_code == 201

    @pytest.mark.parametrize(
        ("body", "words"),
        [
            ({"name": ""}, "needs a name"),
            ({"name": "   "}, "needs a name"),
            ({"name": "x" * 201}, "at most 200"),
            ({}, "'name' is required"),
            ({"name": 12}, "name"),
        ],
    )
    def test_it_refuses_bad_names_in_words_and_writes_nothing(
        self, make_user: MakeUser, body: dict[str, Any], words: str
    ) -> None:
        user = make_user("ada", is_superuser=True)
        graphs = set(graph.list_graph_names())
        response = api_for(user).post("/workspaces", body)
        assert response.status_code == 422
        assert response.json()["error"] == "invalid_input"
        assert words in response.json()["detail"]
        assert not Workspace.objects.exists() and not AuditEvent.objects.filter(verb="workspace.created").exists()
        assert set(graph.list_graph_names()) == graphs

    def test_it_refuses_broken_json_with_422(self, make_user: MakeUser) -> None:
        user = make_user("ada", is_superuser=True)
        response = api_for(user).post("/workspaces", raw='{"name": ')
        assert response.status_code == 422
        assert response.json()["error"] == "invalid_input"
        assert not Workspace.objects.exists()


class MemberApiTests:
    @pytest.mark.parametrize(
        ("body", "words"),
        [
            ({"username": "nobody", "role": "viewer"}, "no user called"),
            ({"username": "oscar", "role": "owner"}, "Unknown role"),
            ({"username": "", "role": "viewer"}, "Give the username"),
            ({"username": "rita", "role": "viewer"}, "already a member"),
        ],
    )
    def test_it_refuses_bad_members_in_words_and_writes_nothing(
        self, trio: Trio, body: dict[str, Any], words: str
    ) -> None:
        client = api_for(trio.owner)
        before = list(Membership.objects.values_list("user__username", "role").order_by("pk"))
        events = AuditEvent.objects.count()
        response = client.post(f"/workspaces/{trio.workspace.id}/members", body)
        assert response.status_code == 422
        assert response.json()["error"] == "invalid_input"
        assert words in response.json()["detail"]
        assert list(Membership.objects.values_list("user__username", "role").order_by("pk")) == before
        assert AuditEvent.objects.count() == events

    def test_it_lists_members_for_the_admin(self, trio: Trio) -> None:
        response = api_for(trio.owner).get(f"/workspaces/{trio.workspace.id}/members")
        assert response.status_code == 200
        assert {(m["username"], m["role"]) for m in response.json()["results"]} == {
            ("olivia", "admin"), ("rita", "reviewer"), ("victor", "viewer"),
        }  # fmt: skip

    def test_it_serves_the_openapi_document(self) -> None:
        response = ApiClient(None).get("/openapi.json")
        assert response.status_code == 200
        paths = response.json()["paths"]
        assert "/api/v1/auth/token" in paths and "/api/v1/workspaces/{ws_id}/members" in paths


class ErrorFormatTests:
    def test_it_answers_unknown_endpoints_and_methods_in_the_error_format(self, make_user: MakeUser) -> None:
        client = api_for(make_user("ada"))
        missing = client.get("/no-such-thing")
        assert missing.status_code == 404 and missing.json()["error"] == "not_found"
        wrong_method = client.client.delete("/api/v1/workspaces", headers=client.headers)
        assert wrong_method.status_code == 405 and wrong_method.json()["error"] == "method_not_allowed"

    def test_it_refuses_nul_characters_in_words(self, make_user: MakeUser) -> None:
        user = make_user("ada", is_superuser=True)
        response = api_for(user).post("/workspaces", raw='{"name": "bad\\u0000name"}')
        assert response.status_code == 422
        assert "NUL" in response.json()["detail"]
        login = ApiClient(None).post("/auth/token", raw='{"username": "ada\\u0000", "password": "x"}')
        assert login.status_code == 422 and login.json()["error"] == "invalid_input"
        assert not Workspace.objects.exists()

    def test_it_accepts_a_browser_session_but_checks_its_csrf_token(self, make_user: MakeUser) -> None:
        from django.test import Client

        user = make_user("ada", is_superuser=True)
        browser = Client(enforce_csrf_checks=True)
        browser.force_login(user)
        assert browser.get("/api/v1/workspaces").status_code == 200
        refused = browser.post("/api/v1/workspaces", {"name": "Research"}, content_type="application/json")
        assert refused.status_code == 403 and "X-CSRFToken" in refused.json()["detail"]
        assert not Workspace.objects.exists()
        browser.get("/w/")
        token = browser.cookies["csrftoken"].value
        accepted = browser.post(
            "/api/v1/workspaces", {"name": "Research"}, content_type="application/json", headers={"X-CSRFToken": token}
        )
        assert accepted.status_code == 201


class UnexpectedErrorTests:
    def test_it_answers_an_unexpected_api_error_as_json_500_and_leaves_pages_alone(self) -> None:
        from django.test import RequestFactory

        from config.middleware import ApiErrorFormatMiddleware

        middleware = ApiErrorFormatMiddleware(lambda request: None)  # type: ignore[arg-type,return-value]
        answer = middleware.process_exception(RequestFactory().get("/api/v1/workspaces"), RuntimeError("boom"))
        assert answer is not None and answer.status_code == 500
        import json

        body = json.loads(answer.content)
        assert body["error"] == "internal_error" and "boom" not in body["detail"]
        assert middleware.process_exception(RequestFactory().get("/w/"), RuntimeError("boom")) is None


class MemberChangeApiTests:
    def test_it_changes_a_role_and_removes_a_member(self, trio: Trio) -> None:
        client = api_for(trio.owner)
        changed = client.client.patch(
            f"/api/v1/workspaces/{trio.workspace.id}/members/victor", {"role": "reviewer"},
            content_type="application/json", headers=client.headers,
        )  # fmt: skip
        assert changed.status_code == 200 and changed.json() == {"username": "victor", "role": "reviewer"}
        removed = client.client.delete(f"/api/v1/workspaces/{trio.workspace.id}/members/rita", headers=client.headers)
        assert removed.status_code == 204
        assert set(Membership.objects.values_list("user__username", flat=True)) == {"olivia", "victor"}
        assert [
            e.summary
            for e in AuditEvent.objects.filter(verb__in=["member.role_changed", "member.removed"]).order_by("id")
        ] == [
            "made victor reviewer (was viewer)",
            "removed rita",
        ]

    def test_it_keeps_the_last_admin_and_refuses_non_members(self, trio: Trio) -> None:
        client = api_for(trio.owner)
        last = client.client.delete(f"/api/v1/workspaces/{trio.workspace.id}/members/olivia", headers=client.headers)
        assert last.status_code == 422 and "at least one admin" in last.json()["detail"]
        stranger = client.client.delete(f"/api/v1/workspaces/{trio.workspace.id}/members/oscar", headers=client.headers)
        assert stranger.status_code == 422 and "not a member" in stranger.json()["detail"]
        viewer = api_for(trio.viewer)
        refused = viewer.client.delete(f"/api/v1/workspaces/{trio.workspace.id}/members/rita", headers=viewer.headers)
        assert refused.status_code == 403
        assert Membership.objects.count() == 3


class AnonymousWriteTests:
    def test_it_answers_401_not_a_csrf_403_to_a_write_without_credentials(self) -> None:
        response = ApiClient(None).post("/workspaces", {"name": "x"})
        assert response.status_code == 401 and response.json()["error"] == "unauthorized"

    def test_it_keeps_the_allow_header_on_405(self, make_user: MakeUser) -> None:
        client = api_for(make_user("ada"))
        response = client.client.put("/api/v1/workspaces", headers=client.headers)
        assert response.status_code == 405 and "GET" in response["Allow"]
