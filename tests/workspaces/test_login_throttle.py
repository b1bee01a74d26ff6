"""Failed password logins are throttled per username and client, in PostgreSQL, for the API and the pages."""

from __future__ import annotations

import json
import threading
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import Client, override_settings

from tests.conftest import PASSWORD, MakeUser
from workspaces.models import LoginFailures

pytestmark = pytest.mark.django_db

LIMIT = 5  # the default AFTERHACK_LOGIN_MAX_FAILURES
WINDOW = 900  # the default AFTERHACK_LOGIN_WINDOW_SECONDS


def login(username: str, password: str, *, address: str = "10.0.0.1", **headers: str) -> Any:
    return Client(REMOTE_ADDR=address).post(
        "/api/v1/auth/token",
        json.dumps({"username": username, "password": password}),
        content_type="application/json",
        headers=headers,
    )


def fail(times: int, username: str = "ada", **kwargs: Any) -> list[int]:
    return [login(username, "wrong", **kwargs).status_code for _ in range(times)]


def age_windows(seconds: int) -> None:
    """Moves the throttle's clock: every window started `seconds` earlier than it did."""
    for row in LoginFailures.objects.all():
        LoginFailures.objects.filter(pk=row.pk).update(
            window_started_at=row.window_started_at - timedelta(seconds=seconds)
        )


class ApiLoginThrottleTests:
    def test_after_the_limit_even_the_right_password_gets_429_with_retry_after(self, make_user: MakeUser) -> None:
        make_user("ada")
        assert fail(LIMIT) == [401] * LIMIT
        response = login("ada", PASSWORD)
        assert response.status_code == 429
        assert response.json() == {
            "error": "throttled",
            "detail": "Too many failed logins for this username from your address. Try again in 15 minutes.",
        }
        assert WINDOW - 5 <= int(response["Retry-After"]) <= WINDOW

    def test_a_success_clears_the_failures(self, make_user: MakeUser) -> None:
        make_user("ada")
        assert fail(LIMIT - 1) == [401] * (LIMIT - 1)
        assert login("ada", PASSWORD).status_code == 200
        assert fail(LIMIT - 1) == [401] * (LIMIT - 1)
        assert login("ada", PASSWORD).status_code == 200

    def test_the_window_passing_lets_the_user_in_again(self, make_user: MakeUser) -> None:
        make_user("ada")
        fail(LIMIT + 2)
        age_windows(WINDOW - 60)
        response = login("ada", PASSWORD)
        assert response.status_code == 429 and 55 <= int(response["Retry-After"]) <= 60
        assert "Try again in 1 minute." in response.json()["detail"]
        age_windows(60)
        assert login("ada", PASSWORD).status_code == 200
        assert not LoginFailures.objects.exists()

    def test_a_passed_window_starts_a_fresh_count(self, make_user: MakeUser) -> None:
        make_user("ada")
        fail(LIMIT - 1)
        age_windows(WINDOW)
        assert fail(LIMIT) == [401] * LIMIT
        assert login("ada", PASSWORD).status_code == 429

    def test_other_clients_and_other_usernames_are_counted_apart(self, make_user: MakeUser) -> None:
        make_user("ada")
        make_user("bob")
        fail(LIMIT, address="10.0.0.1")
        assert login("ada", PASSWORD, address="10.0.0.1").status_code == 429
        assert login("ada", PASSWORD, address="10.0.0.2").status_code == 200
        assert login("bob", PASSWORD, address="10.0.0.1").status_code == 200

    def test_unknown_usernames_are_answered_exactly_like_known_ones(self, make_user: MakeUser) -> None:
        make_user("ada")
        known = [(r.status_code, r.json()["detail"]) for r in (login("ada", "wrong") for _ in range(LIMIT + 1))]
        unknown = [(r.status_code, r.json()["detail"]) for r in (login("nobody", "wrong") for _ in range(LIMIT + 1))]
        assert known == unknown
        assert [status for status, _ in known] == [401] * LIMIT + [429]

    @override_settings(AFTERHACK_LOGIN_MAX_FAILURES=2, AFTERHACK_LOGIN_WINDOW_SECONDS=30)
    def test_the_limit_and_window_follow_the_settings(self, make_user: MakeUser) -> None:
        make_user("ada")
        assert fail(3) == [401, 401, 429]
        response = login("ada", PASSWORD)
        assert int(response["Retry-After"]) <= 30 and "Try again in 30 seconds." in response.json()["detail"]

    def test_x_forwarded_for_is_not_trusted_without_the_portal_proxy(self, make_user: MakeUser) -> None:
        make_user("ada")
        statuses = [login("ada", "wrong", **{"X-Forwarded-For": f"192.0.2.{n}"}).status_code for n in range(LIMIT + 1)]
        assert statuses == [401] * LIMIT + [429]

    @override_settings(REMOTE_USER_HEADER="X-Portal-User")
    def test_behind_the_portal_proxy_the_address_it_appended_counts(self, make_user: MakeUser) -> None:
        make_user("ada")
        # The proxy (10.9.9.9) appends the address it saw; what the client sent before it is ignored.
        statuses = [
            login("ada", "wrong", address="10.9.9.9", **{"X-Forwarded-For": f"192.0.2.{n}, 198.51.100.7"}).status_code
            for n in range(LIMIT + 1)
        ]
        assert statuses == [401] * LIMIT + [429]
        other = login("ada", PASSWORD, address="10.9.9.9", **{"X-Forwarded-For": "198.51.100.8"})
        assert other.status_code == 200

    def test_the_openapi_document_lists_the_429_and_its_retry_after(self) -> None:
        operation = Client().get("/api/v1/openapi.json").json()["paths"]["/api/v1/auth/token"]["post"]
        throttled = operation["responses"]["429"]
        assert throttled["headers"]["Retry-After"]["schema"] == {"type": "integer"}
        assert throttled["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/ErrorOut"}

    def test_an_overlong_username_is_refused_in_words_and_not_counted(self) -> None:
        response = login("x" * 151, "wrong")
        assert response.status_code == 422
        assert response.json() == {
            "error": "invalid_input",
            "detail": "Give your username: text of at most 150 characters, without NUL characters.",
        }
        assert not LoginFailures.objects.exists()


@pytest.mark.django_db(transaction=True)
class ConcurrentLoginThrottleTests:
    def test_concurrent_attempts_cannot_race_past_the_limit(self, make_user: MakeUser) -> None:
        make_user("ada")
        attempts = 12
        start = threading.Barrier(attempts)
        statuses: list[int] = []

        def attempt() -> None:
            # Each thread has its own PostgreSQL connection, as separate server processes do.
            try:
                start.wait()
                statuses.append(login("ada", "wrong").status_code)
            finally:
                connection.close()

        threads = [threading.Thread(target=attempt) for _ in range(attempts)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(statuses) == [401] * LIMIT + [429] * (attempts - LIMIT)
        assert login("ada", PASSWORD).status_code == 429


class PageLoginThrottleTests:
    def post(self, username: str, password: str, *, address: str = "10.0.0.1") -> Any:
        return Client(REMOTE_ADDR=address).post("/accounts/login/", {"username": username, "password": password})

    def test_the_login_page_is_throttled_and_says_how_long_to_wait(self, make_user: MakeUser) -> None:
        make_user("ada")
        for _ in range(LIMIT):
            wrong = self.post("ada", "wrong")
            assert wrong.status_code == 200 and "Wrong username or password." in wrong.content.decode()
        response = self.post("ada", PASSWORD)
        assert response.status_code == 429 and WINDOW - 5 <= int(response["Retry-After"]) <= WINDOW
        page = response.content.decode()
        assert "Too many failed logins for this username from your address. Try again in 15 minutes." in page
        assert "Wrong username or password." not in page

    def test_the_page_and_the_api_share_one_count(self, make_user: MakeUser) -> None:
        make_user("ada")
        fail(LIMIT - 1)
        self.post("ada", "wrong")
        assert login("ada", PASSWORD).status_code == 429

    def test_a_good_login_on_the_page_clears_the_failures_and_logs_in(self, make_user: MakeUser) -> None:
        make_user("ada")
        fail(LIMIT - 1)
        response = self.post("ada", PASSWORD)
        assert response.status_code == 302 and response["Location"] == "/w/"
        assert not LoginFailures.objects.exists()

    def test_the_admin_login_is_throttled_too_with_429_and_retry_after(self, make_user: MakeUser) -> None:
        make_user("root", is_staff=True, is_superuser=True)
        fail(LIMIT, username="root")
        response = Client(REMOTE_ADDR="10.0.0.1").post(
            "/admin/login/", {"username": "root", "password": PASSWORD, "next": "/admin/"}
        )
        assert response.status_code == 429 and WINDOW - 5 <= int(response["Retry-After"]) <= WINDOW
        assert "Too many failed logins for this username from your address." in response.content.decode()
        assert "_auth_user_id" not in response.client.session

    def test_the_admin_login_answers_a_wrong_password_200_and_still_logs_staff_in(self, make_user: MakeUser) -> None:
        make_user("root", is_staff=True, is_superuser=True)
        client = Client(REMOTE_ADDR="10.0.0.1")
        wrong = client.post("/admin/login/", {"username": "root", "password": "wrong", "next": "/admin/"})
        assert wrong.status_code == 200 and "Retry-After" not in wrong
        assert "Please enter the correct username and password for a staff account." in wrong.content.decode()
        right = client.post("/admin/login/", {"username": "root", "password": PASSWORD, "next": "/admin/"})
        assert right.status_code == 302 and right["Location"] == "/admin/"
        assert client.get("/admin/login/").status_code == 302
        assert not LoginFailures.objects.exists()
