"""Settings from the environment: a number that is not one stops start-up in a sentence (never a traceback), and
AFTERHACK_HTTPS makes the app right behind a proxy that ends TLS (docs/deployment.md, "TLS")."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from afterhack.env import env_number

ROOT = Path(__file__).resolve().parents[2]
KEY = "k" * 60


def manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`manage.py` in a fresh process with these variables, touching no store."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("AFTERHACK_", "DJANGO_", "PORT"))}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT, env={**clean, "AFTERHACK_STORES": "none", "DJANGO_SETTINGS_MODULE": "config.settings", **env},
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("raw", "default", "minimum", "expected"),
    [
        ("", 4, 0, (4, "")),
        ("  12 ", 4, 0, (12, "")),
        ("0", 4, 0, (0, "")),
        ("2.5", 5.0, 0.1, (2.5, "")),
        ("abc", 4, 0, (4, "X must be a whole number of at least 0, not 'abc'.")),
        ("2.5", 4, 0, (4, "X must be a whole number of at least 0, not '2.5'.")),
        ("-1", 4, 0, (4, "X must be a whole number of at least 0, not '-1'.")),
        ("nan", 5.0, 0.1, (5.0, "X must be a number of at least 0.1, not 'nan'.")),
        ("0.01", 5.0, 0.1, (5.0, "X must be a number of at least 0.1, not '0.01'.")),
    ],
)
def test_a_number_is_read_or_named_in_words(
    monkeypatch: pytest.MonkeyPatch, raw: str, default: float, minimum: float, expected: tuple[float, str]
) -> None:
    monkeypatch.setenv("X", raw)
    assert env_number("X", default, minimum=minimum) == expected


@pytest.mark.parametrize(
    ("variable", "value", "sentence"),
    [
        ("AFTERHACK_DB_POOL_SIZE", "four", "AFTERHACK_DB_POOL_SIZE must be a whole number of at least 0, not 'four'."),
        ("PORT", "0", "PORT must be a whole number of at least 1, not '0'."),
        ("AFTERHACK_LLM_TIMEOUT", "soon", "AFTERHACK_LLM_TIMEOUT must be a number of at least 0.1, not 'soon'."),
    ],
)
@pytest.mark.subprocess
def test_a_bad_number_stops_a_command_with_its_sentence(variable: str, value: str, sentence: str) -> None:
    done = manage("check", **{variable: value})
    assert done.returncode != 0
    assert sentence in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.subprocess
def test_a_bad_number_stops_even_the_commands_that_ask_no_server() -> None:
    """`migrate` skips the broker's check (it asks a server), not what the settings alone show."""
    done = manage("migrate", "--plan", AFTERHACK_DB_POOL_SIZE="four")
    assert done.returncode != 0
    assert "AFTERHACK_DB_POOL_SIZE must be a whole number of at least 0, not 'four'." in done.stderr


@pytest.mark.subprocess
def test_every_bad_number_is_named_at_once() -> None:
    done = manage("check", AFTERHACK_TOKEN_TTL_DAYS="0", AFTERHACK_GRAPH_READ_TIMEOUT_MS="10s")
    assert done.returncode != 0
    assert "AFTERHACK_TOKEN_TTL_DAYS must be a whole number of at least 1, not '0'." in done.stderr
    assert "AFTERHACK_GRAPH_READ_TIMEOUT_MS must be a whole number of at least 1, not '10s'." in done.stderr


def deploy_warnings(**env: str) -> set[str]:
    done = manage("check", "--deploy", DJANGO_SECRET_KEY=KEY, **env)
    assert "Traceback" not in done.stderr
    return {word.strip("():") for word in (done.stdout + done.stderr).split() if word.startswith("(security.")}


@pytest.mark.subprocess
def test_behind_a_tls_proxy_cookies_are_secure_and_the_forwarded_scheme_is_trusted() -> None:
    plain = deploy_warnings()
    assert {"security.W012", "security.W016"} <= plain  # session and CSRF cookies not Secure: the default
    behind_tls = deploy_warnings(AFTERHACK_HTTPS="1", AFTERHACK_HSTS_SECONDS="31536000")
    assert not {"security.W004", "security.W008", "security.W012", "security.W016"} & behind_tls
    shown = manage(
        "shell", "--no-imports", "-c",
        "from django.conf import settings as s; print(s.SECURE_PROXY_SSL_HEADER, s.SECURE_HSTS_SECONDS)",
        AFTERHACK_HTTPS="1", AFTERHACK_HSTS_SECONDS="31536000", DJANGO_SECRET_KEY=KEY,
    )  # fmt: skip
    assert shown.stdout.strip() == "('HTTP_X_FORWARDED_PROTO', 'https') 31536000", shown.stderr


@pytest.mark.subprocess
def test_a_request_through_the_proxy_is_secure_and_gets_secure_cookies() -> None:
    """In a fresh process with AFTERHACK_HTTPS=1: a request the proxy marks https is secure and its CSRF cookie is
    Secure; one straight to the web process (a load balancer's check) is plain HTTP."""
    script = (
        "from django.http import HttpResponse\n"
        "from django.middleware.csrf import CsrfViewMiddleware, get_token\n"
        "from django.test import RequestFactory\n"
        "request = RequestFactory().get('/', HTTP_X_FORWARDED_PROTO='https')\n"
        "response = CsrfViewMiddleware(lambda r: (get_token(r), HttpResponse())[1])(request)\n"
        "print(request.is_secure(), response.cookies['csrftoken']['secure'])\n"
        "print(RequestFactory().get('/healthz').is_secure())\n"
    )
    shown = manage("shell", "--no-imports", "-c", script, AFTERHACK_HTTPS="1", DJANGO_SECRET_KEY=KEY)
    assert shown.stdout.split("\n")[:2] == ["True True", "False"], shown.stderr
