"""GET /healthz names each store's state; 503 names the one that is down."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client, override_settings

pytestmark = pytest.mark.django_db


class HealthTests:
    def test_it_reports_both_stores_ok(self) -> None:
        response = Client().get("/healthz")
        assert response.status_code == 200
        assert response.json() == {"status": "ok", "postgres": "ok", "falkordb": "ok"}

    def test_it_names_falkordb_when_it_is_down(self, tmp_path: Path) -> None:
        with override_settings(FALKORDB_URL=f"unix://{tmp_path}/nothing-here.sock"):
            response = Client().get("/healthz")
        assert response.status_code == 503
        body = response.json()
        assert body["status"] == "unavailable" and body["postgres"] == "ok"
        assert body["falkordb"] == "down" and "sock" not in response.content.decode()

    def test_it_needs_no_login(self) -> None:
        assert Client().get("/healthz").status_code == 200
