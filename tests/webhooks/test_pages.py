"""The webhooks pages (workspace admins only) and the Django admin's: the secret shown once, the deliveries' log."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Trio, client_for
from tests.webhooks.receiver import Receiver
from webhooks.models import Endpoint
from webhooks.services import deliveries, endpoints
from workspaces.models import AuditEvent
from workspaces.services.audit import record_event

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
APPLIED = "correction.applied"


def page(trio: Trio, tail: str = "") -> str:
    return f"/w/{trio.workspace.id}/webhooks/{tail}"


def an_endpoint(trio: Trio, url: str = "http://127.0.0.1:9/hooks") -> Endpoint:
    return endpoints.endpoint_create(workspace=trio.workspace, url=url, events=[APPLIED], actor=trio.owner)


class WebhookPageTests:
    def test_only_admins_open_the_pages(self, trio: Trio) -> None:
        endpoint = an_endpoint(trio)
        for tail in ("", f"{endpoint.pk}/"):
            assert client_for(trio.owner).get(page(trio, tail)).status_code == 200
            for user, status in ((trio.reviewer, 403), (trio.viewer, 403), (trio.outsider, 404)):
                assert client_for(user).get(page(trio, tail)).status_code == status
        for tail in ("add", f"{endpoint.pk}/change", f"{endpoint.pk}/rotate-secret", f"{endpoint.pk}/delete"):
            for user, status in ((trio.reviewer, 403), (trio.viewer, 403), (trio.outsider, 404)):
                answer = client_for(user).post(page(trio, tail), {"url": "http://127.0.0.1:9/x", "confirmed": "yes"})
                assert answer.status_code == status, (tail, user.username)
        assert Endpoint.objects.get().secret == endpoint.secret

    def test_the_members_page_links_to_the_webhooks(self, trio: Trio) -> None:
        body = client_for(trio.owner).get(f"/w/{trio.workspace.id}/members/").content.decode()
        assert f'href="{page(trio)}"' in body and "Manage webhooks" in body

    def test_an_admin_adds_one_over_htmx_and_sees_the_secret_once(self, trio: Trio) -> None:
        response = client_for(trio.owner).post(
            page(trio, "add"), {"url": "http://127.0.0.1:9/hooks", "events": [APPLIED, "action.held"]}, headers=HTMX
        )
        body = response.content.decode()
        assert response.status_code == 200 and body.lstrip().startswith('<section id="webhook-section">')
        endpoint = Endpoint.objects.get()
        assert endpoint.secret in body and "Copy the secret now: it is shown only this once" in body
        assert endpoint.events == [APPLIED, "action.held"]
        again = client_for(trio.owner).get(page(trio)).content.decode()
        assert endpoint.secret not in again and "http://127.0.0.1:9/hooks" in again

    def test_a_refused_url_is_said_in_place_and_nothing_is_added(self, trio: Trio) -> None:
        response = client_for(trio.owner).post(page(trio, "add"), {"url": "ftp://x", "events": [APPLIED]}, headers=HTMX)
        assert response.status_code == 422 and "must start with http:// or https://" in response.content.decode()
        assert 'value="ftp://x"' in response.content.decode() and not Endpoint.objects.exists()

    def test_a_malformed_url_is_a_form_error_not_a_500(self, trio: Trio) -> None:
        response = client_for(trio.owner).post(page(trio, "add"), {"url": "http://[::1/x", "events": [APPLIED]})
        assert response.status_code == 422 and "This URL is not well formed" in response.content.decode()
        assert not Endpoint.objects.exists()

    def test_an_admin_changes_it(self, trio: Trio) -> None:
        endpoint = an_endpoint(trio)
        response = client_for(trio.owner).post(
            page(trio, f"{endpoint.pk}/change"), {"url": "http://127.0.0.1:9/new", "events": ["claim.retracted"]}
        )
        assert response.status_code == 302
        endpoint.refresh_from_db()
        assert (endpoint.url, endpoint.events, endpoint.enabled) == (
            "http://127.0.0.1:9/new",
            ["claim.retracted"],
            False,
        )
        refused = client_for(trio.owner).post(
            page(trio, f"{endpoint.pk}/change"), {"url": "x", "events": []}, headers=HTMX
        )
        assert refused.status_code == 422 and refused.content.decode().lstrip().startswith(
            '<section id="webhook-settings"'
        )

    def test_rotating_asks_first_then_shows_the_new_secret_once(self, trio: Trio) -> None:
        endpoint = an_endpoint(trio)
        old = endpoint.secret
        asked = client_for(trio.owner).post(page(trio, f"{endpoint.pk}/rotate-secret"), headers=HTMX)
        assert "Rotate this webhook&#x27;s secret?" in asked.content.decode() and Endpoint.objects.get().secret == old
        done = client_for(trio.owner).post(
            page(trio, f"{endpoint.pk}/rotate-secret"), {"confirmed": "yes"}, headers=HTMX
        )
        secret = Endpoint.objects.get().secret
        assert secret != old and secret in done.content.decode()
        assert done.content.decode().lstrip().startswith('<section id="webhook-secret"')
        assert secret not in client_for(trio.owner).get(page(trio, f"{endpoint.pk}/")).content.decode()

    def test_deleting_asks_first(self, trio: Trio) -> None:
        endpoint = an_endpoint(trio)
        asked = client_for(trio.owner).post(page(trio, f"{endpoint.pk}/delete"), headers=HTMX)
        assert "Delete the webhook to http://127.0.0.1:9/hooks?" in asked.content.decode()
        assert Endpoint.objects.exists()
        done = client_for(trio.owner).post(page(trio, f"{endpoint.pk}/delete"), {"confirmed": "yes"}, headers=HTMX)
        assert done["HX-Redirect"] == page(trio) and not Endpoint.objects.exists()

    def test_the_log_shows_every_attempt_and_redelivers(
        self, trio: Trio, receiver: Receiver, settings: Any, django_capture_on_commit_callbacks: Any
    ) -> None:
        settings.AFTERHACK_WEBHOOK_RETRY_SECONDS = [0.0]
        endpoint = an_endpoint(trio, receiver.url)
        receiver.script = ["fail"]
        event = record_event(actor=trio.owner, workspace=trio.workspace, verb="correction.applied").pk
        deliveries.enqueue(workspace=trio.workspace, event_id=event, kind=APPLIED, data={"url": "/"})
        deliveries.send_due(), deliveries.send_due()
        body = client_for(trio.owner).get(page(trio, f"{endpoint.pk}/")).content.decode()
        assert "2 attempts, newest first" in body and "The receiver answered 500." in body
        assert f"event {event}" in body and "Redeliver" in body
        fragment = client_for(trio.owner).get(page(trio, f"{endpoint.pk}/"), headers=HTMX).content.decode()
        assert fragment.lstrip().startswith('<section id="deliveries"') and "<html" not in fragment
        attempt = endpoint.messages.get().attempts.latest("number")
        with django_capture_on_commit_callbacks(execute=True):
            answer = client_for(trio.owner).post(page(trio, f"{endpoint.pk}/deliveries/{attempt.pk}/redeliver"))
        assert answer.status_code == 302 and len(receiver.received) == 3
        assert AuditEvent.objects.filter(verb="webhook.redelivered").count() == 1


class WebhookAdminTests:
    def test_the_admin_lists_endpoints_and_attempts_without_the_secret(self, trio: Trio) -> None:
        endpoint = an_endpoint(trio)
        trio.owner.is_staff = trio.owner.is_superuser = True
        trio.owner.save()
        browser = client_for(trio.owner)
        for path in (
            "/admin/webhooks/endpoint/",
            f"/admin/webhooks/endpoint/{endpoint.pk}/change/",
            "/admin/webhooks/attempt/",
        ):
            answer = browser.get(path)
            assert answer.status_code == 200 and endpoint.secret not in answer.content.decode()
        assert browser.get("/admin/webhooks/endpoint/add/").status_code == 403

    def test_a_change_in_the_admin_is_checked_and_audited(self, trio: Trio) -> None:
        endpoint = an_endpoint(trio)
        trio.owner.is_staff = trio.owner.is_superuser = True
        trio.owner.save()
        path = f"/admin/webhooks/endpoint/{endpoint.pk}/change/"
        refused = client_for(trio.owner).post(path, {"url": "ftp://x", "events": [APPLIED], "enabled": "on"})
        assert refused.status_code == 200 and "must start with http:// or https://" in refused.content.decode()
        saved = client_for(trio.owner).post(path, {"url": "http://127.0.0.1:9/b", "events": [APPLIED]})
        assert saved.status_code == 302 and not Endpoint.objects.get().enabled
        assert AuditEvent.objects.filter(verb="webhook.changed").count() == 1
