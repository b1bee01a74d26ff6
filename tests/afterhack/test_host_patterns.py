"""AFTERHACK_WEBHOOK_ALLOWED_HOSTS as the app reads it: networks, names, `*.` subdomains, the older `10.0.0.*` as a
network; any other pattern stops start-up in words."""

from __future__ import annotations

from typing import Any

import pytest

from afterhack.env import env_host_patterns, host_pattern


@pytest.mark.parametrize(
    ("raw", "read"),
    [
        ("10.0.0.0/24", "10.0.0.0/24"),
        ("10.0.0.7", "10.0.0.7/32"),
        ("fd00::/8", "fd00::/8"),
        ("10.0.0.*", "10.0.0.0/24"),
        ("172.16.*.*", "172.16.0.0/16"),
        ("Hooks.Example.COM.", "hooks.example.com"),
        ("*.example.com", "*.example.com"),
        ("*", None),
        ("10.*", None),
        ("10.0.0.*.example.com", None),
        ("hooks*.example.com", None),
        ("*.example.*", None),
        ("300.0.0.*", None),
    ],
)
def test_each_pattern_is_read_or_refused(raw: str, read: str | None) -> None:
    assert host_pattern(raw) == read


def test_an_unreadable_pattern_is_refused_in_words(monkeypatch: Any) -> None:
    monkeypatch.setenv("AFTERHACK_WEBHOOK_ALLOWED_HOSTS", "10.0.0.*, hooks*.example.com,*.example.org")
    patterns, refusal = env_host_patterns("AFTERHACK_WEBHOOK_ALLOWED_HOSTS")
    assert patterns == ["10.0.0.0/24", "*.example.org"]
    assert refusal == (
        "AFTERHACK_WEBHOOK_ALLOWED_HOSTS holds 'hooks*.example.com', not a pattern it reads: give a network as "
        "10.0.0.0/24 (or one address), a host name as hooks.example.com, or all its subdomains as *.example.com."
    )
