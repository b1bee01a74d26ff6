"""Two hosts, one login: a session, its CSRF token and a list's signed cursor given out by one process
are good in another process with the same DJANGO_SECRET_KEY (as behind a load balancer), and worth
nothing to a process with another key."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from tests.afterhack.test_startup_refusals import ROOT, app_env
from workspaces.services import tokens as token_services
from workspaces.services import workspaces as workspace_services

pytestmark = [pytest.mark.subprocess, pytest.mark.django_db(transaction=True)]

HOST = """
import json, sys
from urllib.parse import quote
import django
django.setup()
from django.test import Client
role, state = sys.argv[1], json.loads(sys.argv[2])
client = Client(enforce_csrf_checks=True)
if role == "login":
    from django.contrib.auth import get_user_model
    user = get_user_model().objects.get(username=state["username"])
    user.set_password("a password for two hosts")
    user.save()
    client.get("/accounts/login/")
    answer = client.post("/accounts/login/", {"username": state["username"], "password": "a password for two hosts",
                                              "csrfmiddlewaretoken": client.cookies["csrftoken"].value})
    assert answer.status_code == 302, answer.status_code
    first = client.get("/api/v1/workspaces?limit=1").json()
    print(json.dumps({"sessionid": client.cookies["sessionid"].value, "csrftoken": client.cookies["csrftoken"].value,
                      "first": [w["name"] for w in first["results"]], "next": first["next"]}))
else:
    client.cookies["sessionid"] = state["sessionid"]
    client.cookies["csrftoken"] = state["csrftoken"]
    page = client.get("/api/v1/workspaces?limit=1&cursor=" + quote(state["next"]))
    by_token = client.get("/api/v1/workspaces?limit=1&cursor=" + quote(state["next"]),
                          headers={"Authorization": "Bearer " + state["token"]})
    logout = client.post("/accounts/logout/", {"csrfmiddlewaretoken": state["csrftoken"]})
    print(json.dumps({"page": page.status_code, "names": [w["name"] for w in page.json().get("results", [])],
                      "by_token": by_token.status_code, "by_token_body": by_token.json(), "logout": logout.status_code}))
"""


def host(role: str, state: dict[str, Any], key: str) -> dict[str, Any]:
    """One request's worth of a host: a separate process on the same stores, with secret key `key`.

    (The suite's settings, for their static files: a host serving the collected ones is tested by the launcher's tests.)
    """
    done = subprocess.run(
        [sys.executable, "-c", HOST, role, json.dumps(state)], env=app_env(DJANGO_SECRET_KEY=key, DJANGO_SETTINGS_MODULE="tests.settings"), cwd=ROOT,
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def test_a_login_and_a_cursor_from_one_host_are_good_on_another_with_the_same_key(make_user: Any) -> None:
    user = make_user("hana")
    for name in ("Alpha", "Beta", "Gamma"):
        workspace_services.workspace_create(name=name, creator=user)
    _, token = token_services.token_issue(user=user)
    key = "one key for every host " + "k" * 30

    given = host("login", {"username": "hana"}, key)
    assert given["first"] == ["Alpha"] and given["next"]

    other = host("use", {**given, "token": token}, key)
    assert other["page"] == 200 and other["names"] == ["Beta"]  # the session and the cursor
    assert other["by_token"] == 200
    assert other["logout"] == 302  # a form posted with the CSRF token the first host gave out


def test_another_key_makes_them_worth_nothing(make_user: Any) -> None:
    user = make_user("hana")
    for name in ("Alpha", "Beta"):
        workspace_services.workspace_create(name=name, creator=user)
    _, token = token_services.token_issue(user=user)
    given = host("login", {"username": "hana"}, "the first host's key " + "a" * 30)

    stranger = host("use", {**given, "token": token}, "a different key " + "b" * 30)
    assert stranger["page"] == 401  # the session is not read under another key
    assert stranger["by_token"] == 422  # the cursor is refused in words, not read
    assert "cursor" in json.dumps(stranger["by_token_body"]).lower()
