"""The audit trail is append-only: no update or delete path, the admin and the database included."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.db.utils import DatabaseError

from tests.conftest import MakeUser, Trio, client_for
from workspaces.models import AuditEvent, AuditEventImmutable

pytestmark = pytest.mark.django_db


class AuditEventTests:
    def test_it_refuses_changes_through_the_model(self, trio: Trio) -> None:
        event = AuditEvent.objects.first()
        assert event is not None
        event.verb = "forged"
        with pytest.raises(AuditEventImmutable):
            event.save()
        with pytest.raises(AuditEventImmutable):
            event.delete()
        with pytest.raises(AuditEventImmutable):
            AuditEvent.objects.all().update(verb="forged")
        with pytest.raises(AuditEventImmutable):
            AuditEvent.objects.all().delete()
        assert not AuditEvent.objects.filter(verb="forged").exists()

    def test_it_refuses_changes_in_the_database_itself(self, trio: Trio) -> None:
        count = AuditEvent.objects.count()
        for statement in ("UPDATE workspaces_auditevent SET verb = 'forged'", "DELETE FROM workspaces_auditevent"):
            with pytest.raises(DatabaseError, match="append-only"), transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(statement)
        assert AuditEvent.objects.count() == count
        assert not AuditEvent.objects.filter(verb="forged").exists()

    def test_it_offers_no_add_change_or_delete_in_the_admin(self, trio: Trio, make_user: MakeUser) -> None:
        admin = make_user("root", is_staff=True, is_superuser=True)
        client = client_for(admin)
        event = AuditEvent.objects.first()
        assert event is not None
        listing = client.get("/admin/workspaces/auditevent/")
        assert listing.status_code == 200 and "member.added" in listing.content.decode()
        assert client.get("/admin/workspaces/auditevent/add/").status_code == 403
        assert client.post(f"/admin/workspaces/auditevent/{event.pk}/delete/", {"post": "yes"}).status_code == 403
        assert client.post(f"/admin/workspaces/auditevent/{event.pk}/change/", {"verb": "forged"}).status_code == 403
        detail = client.get(f"/admin/workspaces/auditevent/{event.pk}/change/")
        assert detail.status_code == 200 and 'name="verb"' not in detail.content.decode()
        assert AuditEvent.objects.filter(pk=event.pk, verb=event.verb).exists()

    def test_it_filters_events_by_verb_in_the_admin(self, trio: Trio, make_user: MakeUser) -> None:
        admin = make_user("root", is_staff=True, is_superuser=True)
        page = client_for(admin).get("/admin/workspaces/auditevent/?verb=workspace.created").content.decode()
        assert "workspace.created" in page
        assert "member.added</td>" not in page
