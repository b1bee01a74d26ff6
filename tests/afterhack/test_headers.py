"""The headers every answer carries beside the CSP: how to authenticate on the API's 401s, never storing what is
answered to someone signed in, and the browser features the app denies."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone

from tests.conftest import ApiClient, MakeUser, Trio, api_for, client_for
from workspaces.services import tokens as token_services

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


class WwwAuthenticateTests:
    def test_a_request_without_a_token_is_told_to_send_a_bearer_token(self, trio: Trio) -> None:
        for answer in (
            Client().get("/api/v1/workspaces"),
            Client().post(f"/api/v1/workspaces/{trio.workspace.id}/sources", {}, content_type="application/json"),
            Client().get("/api/v1/workspaces", headers={"Authorization": "Basic b2xpdmlhOnB3"}),
        ):
            assert answer.status_code == 401 and answer.json()["error"] == "unauthorized"
            assert answer["WWW-Authenticate"] == "Bearer"

    def test_a_token_sent_and_refused_is_an_invalid_token(self, make_user: MakeUser) -> None:
        ada = make_user("ada")
        revoked, revoked_raw = token_services.token_issue(user=ada)
        token_services.token_revoke(token=revoked, actor=ada)
        _, expired_raw = token_services.token_issue(user=ada, expires_at=timezone.now() - timedelta(seconds=1))
        for raw, words in (
            ("made-up", "Send a valid API token"),
            (revoked_raw, "This API token was revoked."),
            (expired_raw, "This API token expired on"),
        ):
            answer = ApiClient(raw).get("/workspaces")
            assert answer.status_code == 401 and answer.json()["detail"].startswith(words)
            assert answer["WWW-Authenticate"] == 'Bearer error="invalid_token"'

    def test_a_wrong_password_for_a_token_gets_the_plain_challenge(self, make_user: MakeUser) -> None:
        make_user("ada")
        answer = Client().post(
            "/api/v1/auth/token", {"username": "ada", "password": "wrong"}, content_type="application/json"
        )
        assert answer.status_code == 401 and answer.json()["detail"] == "Wrong username or password."
        assert answer["WWW-Authenticate"] == "Bearer"

    def test_answers_that_are_not_401_carry_no_challenge(self, make_user: MakeUser) -> None:
        assert not api_for(make_user("ada")).get("/workspaces").has_header("WWW-Authenticate")


def never_stored(response: Any) -> bool:
    directives = {part.strip() for part in response.get("Cache-Control", "").split(",")}
    return {"no-store", "private"} <= directives


@pytest.fixture
def static_file() -> Iterator[str]:
    """A file among the collected static files (WhiteNoise reads them when a client's middleware is loaded)."""
    path = Path(settings.STATIC_ROOT) / "afterhack-header-test.css"
    path.write_text("body { color: black; }\n")
    yield "/static/afterhack-header-test.css"
    path.unlink()


class NoStoreTests:
    def test_a_signed_in_persons_pages_fragments_and_errors_are_never_stored(self, trio: Trio) -> None:
        ws = trio.workspace.id
        owner = client_for(trio.owner)
        for path in ("/w/", f"/w/{ws}/", f"/w/{ws}/members/", f"/w/{ws}/sources/", f"/w/{ws}/claims/"):
            page = owner.get(path)
            assert page.status_code == 200 and never_stored(page), path
        fragment = owner.get(f"/w/{ws}/sources/", headers=HTMX)
        assert fragment.status_code == 200 and never_stored(fragment)
        not_found = client_for(trio.outsider).get(f"/w/{ws}/")
        assert not_found.status_code == 404 and never_stored(not_found)

    def test_api_answers_to_a_token_or_a_session_are_never_stored(self, trio: Trio) -> None:
        by_token = api_for(trio.viewer).get(f"/workspaces/{trio.workspace.id}/sources")
        by_session = client_for(trio.viewer).get(f"/api/v1/workspaces/{trio.workspace.id}/sources")
        refused_token = ApiClient("made-up").get("/workspaces")
        assert (by_token.status_code, by_session.status_code, refused_token.status_code) == (200, 200, 401)
        assert never_stored(by_token) and never_stored(by_session) and never_stored(refused_token)

    def test_the_csv_and_prov_downloads_are_never_stored(self, trio: Trio) -> None:
        trio.owner.is_staff = trio.owner.is_superuser = True
        trio.owner.save()
        owner = client_for(trio.owner)
        downloads = {
            "csv": owner.get("/audit/export.csv"),
            "audit prov": owner.get(f"/audit/prov?workspace={trio.workspace.id}&format=ttl"),
            "workspace prov": owner.get(f"/w/{trio.workspace.id}/prov"),
        }
        assert {name: answer.status_code for name, answer in downloads.items()} == dict.fromkeys(downloads, 200)
        assert all("attachment" in answer["Content-Disposition"] for answer in downloads.values())
        assert [name for name, answer in downloads.items() if not never_stored(answer)] == []

    def test_an_answer_to_the_portals_signed_in_user_is_never_stored(self, settings: Any) -> None:
        # The portal's first request carries no session cookie yet: its user header is the credential.
        settings.REMOTE_USER_HEADER = "X-Forwarded-User"
        assert never_stored(Client().get("/healthz", headers={"X-Forwarded-User": "ada"}))
        assert not never_stored(Client().get("/healthz"))

    def test_anonymous_answers_and_static_files_keep_their_own_caching(self, trio: Trio, static_file: str) -> None:
        assert "no-store" not in Client().get("/healthz").get("Cache-Control", "")
        # WhiteNoise answers static files before the rest, a signed-in person's too: its caching stays.
        asset = client_for(trio.owner).get(static_file)
        assert asset.status_code == 200 and "public" in asset["Cache-Control"]
        assert not never_stored(asset) and "max-age" in asset["Cache-Control"]


def features(response: Any) -> dict[str, str]:
    header = response["Permissions-Policy"]
    return dict(part.strip().split("=", 1) for part in header.split(","))


class PermissionsPolicyTests:
    def test_every_answer_denies_the_powerful_features_and_lets_only_the_app_write_the_clipboard(
        self, trio: Trio, static_file: str
    ) -> None:
        answers = {
            "page": client_for(trio.owner).get(f"/w/{trio.workspace.id}/"),
            "login page": Client().get("/accounts/login/"),
            "admin login": Client().get("/admin/login/"),
            "not found": Client().get("/nowhere"),
            "health": Client().get("/healthz"),
            "api": api_for(trio.owner).get("/workspaces"),
            "api 401": Client().get("/api/v1/workspaces"),
            "api docs": Client().get("/api/v1/docs"),
            "static": Client().get(static_file),
        }
        for name, answer in answers.items():
            policy = features(answer)
            denied = ("camera", "microphone", "geolocation", "payment", "usb", "serial", "hid", "clipboard-read")
            assert all(policy[feature] == "()" for feature in denied), name
            assert policy["clipboard-write"] == "(self)", name
            assert [f for f, allowed in policy.items() if allowed != "()"] == ["clipboard-write"], name
