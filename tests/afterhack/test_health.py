"""GET /healthz names each store's state; 503 names the one that is down."""

from __future__ import annotations

from pathlib import Path
from typing import Any

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


class ReadyTests:
    """GET /readyz: a load balancer sends a host traffic only while this is 200."""

    @pytest.fixture(autouse=True)
    def _fresh(self, monkeypatch: pytest.MonkeyPatch) -> None:
        from afterhack import health

        monkeypatch.setattr(health, "_migrated", {"all": False, "static": False})

    def test_it_is_ready_when_both_stores_answer_and_every_migration_is_applied(self) -> None:
        response = Client().get("/readyz")
        assert response.status_code == 200
        assert response.json() == {
            "ready": True,
            "postgres": "ok",
            "falkordb": "ok",
            "migrations": "applied",
            "static": "ok",
        }

    def test_it_is_not_ready_while_a_migration_is_pending(self) -> None:
        from django.db import connection
        from django.db.migrations.recorder import MigrationRecorder

        # The test's transaction is rolled back at its end: the row comes back.
        latest = MigrationRecorder(connection).migration_qs.filter(app="corrections").order_by("-id").first()
        assert latest is not None
        latest.delete()
        response = Client().get("/readyz")
        assert response.status_code == 503
        assert response.json() == {
            "ready": False,
            "postgres": "ok",
            "falkordb": "ok",
            "migrations": "pending",
            "static": "ok",
        }

    def test_it_is_not_ready_while_falkordb_is_down(self, tmp_path: Path) -> None:
        with override_settings(FALKORDB_URL=f"unix://{tmp_path}/nothing-here.sock"):
            response = Client().get("/readyz")
        assert response.status_code == 503
        assert response.json()["falkordb"] == "down" and response.json()["ready"] is False

    def test_it_is_not_ready_until_the_static_files_are_collected(self, tmp_path: Path, settings: Any) -> None:
        from django.contrib.staticfiles.storage import staticfiles_storage

        manifest = "whitenoise.storage.CompressedManifestStaticFilesStorage"
        settings.STORAGES = {**settings.STORAGES, "staticfiles": {"BACKEND": manifest}}
        settings.STATIC_ROOT = tmp_path
        # Django builds the storage again from the changed settings (and again when the fixture restores them).
        assert staticfiles_storage.path("x") == str(tmp_path / "x")
        response = Client().get("/readyz")
        assert response.status_code == 503 and response.json()["static"] == "missing"
        (tmp_path / "staticfiles.json").write_text('{"paths": {}, "version": "1.1"}')
        assert Client().get("/readyz").json()["static"] == "ok"
