"""The Content-Security-Policy header: on every page, strict, and harmless on JSON answers."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client

from tests.conftest import MakeUser, Trio, api_for, client_for

pytestmark = pytest.mark.django_db

TEMPLATES = Path(settings.BASE_DIR) / "templates"


def policy(response: Any) -> dict[str, list[str]]:
    header = response["Content-Security-Policy"]
    return {name: values for name, *values in (part.split() for part in header.split(";"))}


def assert_strict(response: Any) -> dict[str, list[str]]:
    directives = policy(response)
    assert directives["default-src"] == ["'self'"]
    assert directives["script-src"] == ["'self'"]
    assert directives["object-src"] == ["'none'"] and directives["frame-ancestors"] == ["'none'"]
    assert "'unsafe-inline'" not in response["Content-Security-Policy"]
    assert "'unsafe-eval'" not in response["Content-Security-Policy"]
    return directives


class ContentSecurityPolicyTests:
    def test_the_apps_pages_carry_the_strict_policy(self, trio: Trio) -> None:
        owner = client_for(trio.owner)
        for path in ("/w/", f"/w/{trio.workspace.id}/", f"/w/{trio.workspace.id}/members/"):
            response = owner.get(path)
            assert response.status_code == 200
            assert assert_strict(response)["img-src"] == ["'self'"]
        assert_strict(Client().get("/accounts/login/"))

    def test_error_pages_carry_it_too(self, trio: Trio) -> None:
        response = client_for(trio.outsider).get(f"/w/{trio.workspace.id}/")
        assert response.status_code == 404
        assert_strict(response)

    def test_a_nonce_is_fresh_for_each_response_and_matches_the_page(self) -> None:
        # Django's admin marks its inline styles with the nonce; the pages mark the htmx script.
        first, second = Client().get("/accounts/login/"), Client().get("/accounts/login/")
        nonce = re.search(r"'nonce-([\w-]+)'", " ".join(assert_strict(first)["style-src"]))
        assert nonce is not None
        assert f'nonce="{nonce.group(1)}"' in first.content.decode()
        assert nonce.group(1) not in second["Content-Security-Policy"]

    def test_the_api_docs_load_swagger_from_this_server_and_allow_only_its_data_images(self) -> None:
        response = Client().get("/api/v1/docs")
        page = response.content.decode()
        assert assert_strict(response)["img-src"] == ["'self'", "data:"]
        assert '<script src="/static/ninja/swagger-ui-bundle.js">' in page
        assert "cdn" not in page.lower()

    def test_json_answers_are_unchanged_and_name_no_nonce(self, make_user: MakeUser) -> None:
        response = api_for(make_user("ada")).get("/workspaces")
        assert response.status_code == 200 and response["Content-Type"].startswith("application/json")
        assert isinstance(response.json(), (list, dict))
        assert "nonce" not in response.get("Content-Security-Policy", "")

    def test_no_template_has_inline_scripts_styles_event_handlers_or_javascript_links(self) -> None:
        inline = re.compile(
            r"""\sstyle=|<style|<script(?![^>]*\bsrc=)(?![^>]*application/json)|\son[a-z]+=|=["']?javascript:"""
        )
        offenders = [
            f"{path.relative_to(TEMPLATES)}: {match.group(0).strip()}"
            for path in TEMPLATES.rglob("*.html")
            for match in inline.finditer(path.read_text())
        ]
        assert offenders == []
