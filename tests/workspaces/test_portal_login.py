"""Single sign-on: the portal's proxy names the user in a header; the user is created on first sight."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client, override_settings

from tests.conftest import Trio

pytestmark = pytest.mark.django_db

PORTAL = override_settings(
    REMOTE_USER_HEADER="X-Portal-User",
    MIDDLEWARE=[
        "django.contrib.sessions.middleware.SessionMiddleware",
        "django.middleware.csrf.CsrfViewMiddleware",
        "django.contrib.auth.middleware.AuthenticationMiddleware",
        "workspaces.auth.PortalRemoteUserMiddleware",
        "django.contrib.messages.middleware.MessageMiddleware",
        "django_htmx.middleware.HtmxMiddleware",
    ],
    AUTHENTICATION_BACKENDS=[
        "workspaces.auth.PortalRemoteUserBackend",
        "django.contrib.auth.backends.ModelBackend",
    ],
)


class PortalLoginTests:
    @PORTAL
    def test_it_creates_and_logs_in_a_user_the_portal_names(self) -> None:
        response = Client().get("/w/", headers={"X-Portal-User": "newcomer"})
        assert response.status_code == 200
        user = get_user_model().objects.get(username="newcomer")
        assert not user.has_usable_password()
        assert "newcomer" in response.content.decode()

    @PORTAL
    def test_it_logs_in_an_existing_member_who_sees_their_workspace(self, trio: Trio) -> None:
        response = Client().get(f"/w/{trio.workspace.id}/", headers={"X-Portal-User": "rita"})
        assert response.status_code == 200 and "Launch planning" in response.content.decode()
        assert get_user_model().objects.filter(username="rita").count() == 1

    @PORTAL
    def test_it_gives_a_portal_user_no_access_to_others_workspaces(self, trio: Trio) -> None:
        assert Client().get(f"/w/{trio.workspace.id}/", headers={"X-Portal-User": "stranger"}).status_code == 404

    def test_it_ignores_the_header_when_single_sign_on_is_off(self, trio: Trio) -> None:
        users = get_user_model().objects.count()
        response = Client().get("/w/", headers={"X-Portal-User": "newcomer"})
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
        assert get_user_model().objects.count() == users

    @PORTAL
    @pytest.mark.parametrize("name", ["   ", " rita", "x" * 151])
    def test_it_refuses_blank_padded_or_overlong_names_instead_of_merging_accounts(self, trio: Trio, name: str) -> None:
        users = get_user_model().objects.count()
        response = Client().get("/w/", headers={"X-Portal-User": name})
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
        assert get_user_model().objects.count() == users
