"""The answer that hands out a token is never stored (RFC 6749 §5.1): POST /api/v1/auth/token carries no
credentials, so the middleware that marks answers to credentials does not see it as private."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.afterhack.test_headers import never_stored
from tests.conftest import PASSWORD, MakeUser

pytestmark = pytest.mark.django_db


class TokenAnswerTests:
    def test_a_new_token_is_never_stored(self, make_user: MakeUser) -> None:
        make_user("ada")
        answer = Client().post(
            "/api/v1/auth/token", {"username": "ada", "password": PASSWORD}, content_type="application/json"
        )
        assert answer.status_code == 200 and answer.json()["token"]
        assert never_stored(answer) and answer["Expires"]

    def test_a_refusal_is_never_stored_either(self, make_user: MakeUser) -> None:
        make_user("ada")
        answer = Client().post(
            "/api/v1/auth/token", {"username": "ada", "password": "wrong"}, content_type="application/json"
        )
        assert answer.status_code == 401 and never_stored(answer)
