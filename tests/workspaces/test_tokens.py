"""API tokens expire and can be revoked by their holder; a refused token is told why."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client, override_settings
from django.utils import timezone

from tests.conftest import PASSWORD, ApiClient, MakeUser, api_for, client_for
from workspaces.models import ApiToken, AuditEvent
from workspaces.services import tokens as token_services

pytestmark = pytest.mark.django_db

GENERIC_401 = {"error": "unauthorized", "detail": "Send a valid API token as 'Authorization: Bearer <token>'."}


def revoke(token: str | None, client: Client | None = None, **headers: str) -> Any:
    auth = {"Authorization": f"Bearer {token}"} if token else {}
    return (client or Client()).delete("/api/v1/auth/token", headers={**auth, **headers})


def issued(response: Any) -> tuple[str, datetime]:
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == {"token", "expires_at"}
    return body["token"], datetime.fromisoformat(body["expires_at"])


class TokenExpiryTests:
    def test_it_answers_a_new_token_with_its_expiry_thirty_days_ahead(self, make_user: MakeUser) -> None:
        make_user("ada")
        token, expires_at = issued(ApiClient(None).post("/auth/token", {"username": "ada", "password": PASSWORD}))
        assert abs(expires_at - (timezone.now() + timedelta(days=30))) < timedelta(minutes=1)
        assert ApiToken.objects.get(user__username="ada").expires_at == expires_at
        assert ApiClient(token).get("/workspaces").status_code == 200

    @override_settings(AFTERHACK_TOKEN_TTL_DAYS=2)
    def test_the_lifetime_follows_the_setting(self, make_user: MakeUser) -> None:
        make_user("ada")
        _, expires_at = issued(ApiClient(None).post("/auth/token", {"username": "ada", "password": PASSWORD}))
        assert abs(expires_at - (timezone.now() + timedelta(days=2))) < timedelta(minutes=1)

    def test_it_refuses_a_token_past_its_expiry_and_says_so(self, make_user: MakeUser) -> None:
        user = make_user("ada")
        token, raw = token_services.token_issue(user=user)
        assert ApiClient(raw).get("/workspaces").status_code == 200
        ApiToken.objects.filter(pk=token.pk).update(expires_at=datetime(2026, 1, 2, 3, 4, tzinfo=UTC))
        response = ApiClient(raw).get("/workspaces")
        assert response.status_code == 401
        assert response.json() == {
            "error": "unauthorized",
            "detail": "This API token expired on 2026-01-02 03:04 UTC. Get a new one with POST /api/v1/auth/token.",
        }

    def test_a_token_is_refused_from_the_moment_it_expires(self, make_user: MakeUser) -> None:
        user = make_user("ada")
        token, raw = token_services.token_issue(user=user)
        ApiToken.objects.filter(pk=token.pk).update(expires_at=timezone.now())
        assert "expired" in ApiClient(raw).get("/workspaces").json()["detail"]

    def test_an_unknown_token_is_told_nothing_more(self) -> None:
        assert ApiClient("ah_never-issued").get("/workspaces").json() == GENERIC_401

    def test_a_deactivated_users_token_is_told_nothing_more(self, make_user: MakeUser) -> None:
        user = make_user("ada")
        client = api_for(user)
        user.is_active = False
        user.save()
        assert client.get("/workspaces").json() == GENERIC_401

    def test_the_openapi_document_types_the_answer(self) -> None:
        document = Client().get("/api/v1/openapi.json").json()
        operation = document["paths"]["/api/v1/auth/token"]["post"]
        assert {"200", "401", "422", "429", "503"} <= set(operation["responses"])
        schema = document["components"]["schemas"]["TokenOut"]
        assert schema["required"] == ["token", "expires_at"]
        assert schema["properties"]["expires_at"]["format"] == "date-time"


class TokenRevokeTests:
    def test_the_holder_revokes_the_token_it_calls_with_and_it_is_refused_at_once(self, make_user: MakeUser) -> None:
        user = make_user("ada")
        _, other = token_services.token_issue(user=user, name="laptop")
        token, raw = token_services.token_issue(user=user, name="script")
        response = revoke(raw)
        assert response.status_code == 204 and response.content == b""
        refused = ApiClient(raw).get("/workspaces")
        assert refused.status_code == 401
        assert refused.json()["detail"] == "This API token was revoked. Get a new one with POST /api/v1/auth/token."
        # Only the token the request was made with: the holder's other tokens keep working.
        assert ApiClient(other).get("/workspaces").status_code == 200
        token.refresh_from_db()
        assert token.revoked_at is not None

    def test_it_is_audited_like_other_token_events(self, make_user: MakeUser) -> None:
        user = make_user("ada")
        token, raw = token_services.token_issue(user=user)
        revoke(raw)
        event = AuditEvent.objects.get(verb="token.revoked")
        assert event.actor == user and event.target == f"{token.hint}… for ada"
        assert event.summary == f"revoked the API token {token.hint}… for ada"

    def test_revoking_again_is_refused_as_revoked(self, make_user: MakeUser) -> None:
        _, raw = token_services.token_issue(user=make_user("ada"))
        revoke(raw)
        again = revoke(raw)
        assert again.status_code == 401 and "was revoked" in again.json()["detail"]
        assert AuditEvent.objects.filter(verb="token.revoked").count() == 1

    def test_without_credentials_it_is_401(self) -> None:
        response = revoke(None)
        assert response.status_code == 401 and response.json() == GENERIC_401

    def test_a_browser_session_has_no_token_to_revoke_and_is_told_so(self, make_user: MakeUser) -> None:
        user = make_user("ada")
        browser = client_for(user)
        browser.get("/w/")
        _, raw = token_services.token_issue(user=user)
        response = revoke(None, browser, **{"X-CSRFToken": browser.cookies["csrftoken"].value})
        assert response.status_code == 422
        assert response.json()["error"] == "invalid_input"
        assert "browser session, not an API token" in response.json()["detail"]
        assert ApiClient(raw).get("/workspaces").status_code == 200

    def test_the_openapi_document_lists_its_answers(self) -> None:
        operation = Client().get("/api/v1/openapi.json").json()["paths"]["/api/v1/auth/token"]["delete"]
        assert {"204", "401", "422", "503"} <= set(operation["responses"])


class AdminTokenExpiryTests:
    def test_the_admin_issues_a_token_with_the_chosen_expiry_and_shows_it(self, make_user: MakeUser) -> None:
        root, agent = make_user("root", is_staff=True, is_superuser=True), make_user("agent")
        response = client_for(root).post(
            "/admin/workspaces/apitoken/add/",
            {"user": agent.pk, "name": "nightly", "expires_at_0": "2099-05-06", "expires_at_1": "07:08:00"},
        )
        assert "expires on 6 May 2099 at 07:08 UTC, in " in response.content.decode()
        token = ApiToken.objects.get(name="nightly")
        assert token.expires_at == datetime(2099, 5, 6, 7, 8, tzinfo=UTC)
        listing = client_for(root).get("/admin/workspaces/apitoken/").content.decode()
        assert (
            'Active until <time datetime="2099-05-06T07:08:00+00:00" title="6 May 2099 at 07:08 UTC">6 May 2099</time>'
            in listing
        )

    def test_the_admin_defaults_to_the_configured_lifetime(self, make_user: MakeUser) -> None:
        root, agent = make_user("root", is_staff=True, is_superuser=True), make_user("agent")
        client_for(root).post("/admin/workspaces/apitoken/add/", {"user": agent.pk, "name": "nightly"})
        expires_at = ApiToken.objects.get(name="nightly").expires_at
        assert abs(expires_at - (timezone.now() + timedelta(days=30))) < timedelta(minutes=1)

    def test_the_admin_refuses_an_expiry_in_the_past(self, make_user: MakeUser) -> None:
        root, agent = make_user("root", is_staff=True, is_superuser=True), make_user("agent")
        response = client_for(root).post(
            "/admin/workspaces/apitoken/add/",
            {"user": agent.pk, "name": "nightly", "expires_at_0": "2001-01-01", "expires_at_1": "00:00:00"},
        )
        assert "Choose a moment in the future" in response.content.decode()
        assert not ApiToken.objects.exists()


@pytest.mark.django_db(transaction=True)
class TokenMigrationTests:
    def test_tokens_from_before_expiry_get_a_full_lifetime_from_the_upgrade(self, make_user: MakeUser) -> None:
        user = make_user("ada")
        executor = MigrationExecutor(connection)
        executor.migrate([("workspaces", "0003_apitoken_verbose_name")])
        try:
            with connection.cursor() as cursor:
                cursor.execute(
                    "INSERT INTO workspaces_apitoken (user_id, name, key_hash, hint, created_at)"
                    " VALUES (%s, 'old', 'abc', 'ah_old', %s)",
                    [user.pk, timezone.now() - timedelta(days=400)],
                )
        finally:
            forward = MigrationExecutor(connection)
            forward.migrate(forward.loader.graph.leaf_nodes("workspaces"))
        token = ApiToken.objects.get(name="old")
        assert abs(token.expires_at - (timezone.now() + timedelta(days=30))) < timedelta(minutes=1)
