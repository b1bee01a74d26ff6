"""Every page answers only the HTTP methods it is written for: anything else is a 405 naming the allowed ones."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.urls.converters import IntConverter, UUIDConverter

pytestmark = pytest.mark.django_db

# The project's own pages. The admin and the JSON API answer methods themselves (Django's admin,
# django-ninja's routers), and the login, logout and "/" redirect are Django's class-based views.
OWN = {"workspaces", "webhooks", "notifications", "claims", "agents", "corrections", "healthz", "readyz"}
# Only GET and POST are ever written for; a request with any other method must not reach a view.
UNSUPPORTED = ("put", "patch", "delete")


def routed_pages(
    patterns: list[URLPattern | URLResolver] | None = None, namespace: str = ""
) -> Iterator[tuple[str, URLPattern]]:
    """Each named URL pattern of the project, with its namespaced name."""
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(pattern, URLResolver):
            inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            yield from routed_pages(pattern.url_patterns, inner)
        elif pattern.name:
            yield f"{namespace}{pattern.name}", pattern


def url_of(name: str, pattern: URLPattern) -> str:
    """The page's address with a made-up value for each part of its path."""
    converters = pattern.pattern.converters
    values = {
        part: uuid.uuid4() if isinstance(c, UUIDConverter) else 1 if isinstance(c, IntConverter) else str(uuid.uuid4())
        for part, c in converters.items()
    }
    return reverse(name, kwargs=values)


PAGES = sorted((name, url_of(name, pattern)) for name, pattern in routed_pages() if name.split(":")[0] in OWN)


class MethodTests:
    def test_it_finds_every_page_of_the_apps(self) -> None:
        names = {name for name, _ in PAGES}
        assert {"healthz", "workspaces:list", "claims:claim", "agents:ask", "corrections:correct"} <= names
        assert len(PAGES) >= 40

    @pytest.mark.parametrize(("name", "url"), PAGES, ids=[name for name, _ in PAGES])
    @pytest.mark.parametrize("method", UNSUPPORTED)
    def test_it_refuses_a_method_no_page_is_written_for(self, client: Client, name: str, url: str, method: str) -> None:
        response = getattr(client, method)(url)
        assert response.status_code == 405, f"{method.upper()} {url} ({name}) answered {response.status_code}"
        assert "PUT" not in response["Allow"] and {"GET", "POST"} & set(response["Allow"].split(", "))
