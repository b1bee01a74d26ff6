"""The webhooks API: workspace admins only (others 403, reads too; outsiders 404), refusals in words, the secret
answered only at creation and rotation, the deliveries' log paged, redelivery."""

from __future__ import annotations

import json
import socket
from typing import Any

import pytest

from tests.conftest import Trio, api_for
from tests.webhooks.receiver import Receiver
from webhooks.addresses import InvalidWebhookUrl, clean_url
from webhooks.models import Endpoint
from webhooks.services import deliveries
from workspaces.models import AuditEvent
from workspaces.services.audit import record_event

pytestmark = pytest.mark.django_db

APPLIED = "correction.applied"


def add(trio: Trio, url: str = "http://127.0.0.1:9/hooks", events: list[str] | None = None) -> Any:
    return api_for(trio.owner).post(
        f"/workspaces/{trio.workspace.id}/webhooks", {"url": url, "events": [APPLIED] if events is None else events}
    )


def call(user: Any, method: str, path: str, body: Any = None) -> Any:
    client = api_for(user)
    data = json.dumps(body) if body is not None else None
    return client.client.generic(
        method, "/api/v1" + path, data=data or "", content_type="application/json", headers=client.headers
    )


class WebhookApiTests:
    def test_an_admin_adds_a_webhook_and_sees_its_secret_once(self, trio: Trio) -> None:
        response = add(trio, events=[APPLIED, "action.held"])
        assert response.status_code == 201
        body = response.json()
        assert body["url"] == "http://127.0.0.1:9/hooks" and body["enabled"] is True
        assert body["events"] == [APPLIED, "action.held"] and body["secret"].startswith("whsec_")
        ws = trio.workspace.id
        listed = api_for(trio.owner).get(f"/workspaces/{ws}/webhooks").json()
        assert listed["count"] == 1 and "secret" not in listed["results"][0]
        assert "secret" not in api_for(trio.owner).get(f"/workspaces/{ws}/webhooks/{body['id']}").json()
        assert AuditEvent.objects.get(verb="webhook.created").target == "127.0.0.1:9"

    @pytest.mark.parametrize(
        ("url", "words"),
        [
            ("ftp://files.example/x", "must start with http:// or https://"),
            ("javascript:alert(1)", "must start with http:// or https://"),
            ("https://example.com/" + "a" * 2000, "a webhook's URL has at most 2,000"),
            ("http://127.0.0.1:8000/api", "127.0.0.1:8000 is this app's own address"),
            ("http://localhost:8000/", "localhost:8000 is this app's own address"),
            ("http://testserver/hooks", "testserver:80 is this app's own address"),
            ("http://127.1:8000/", "127.1:8000 is this app's own address (127.0.0.1)"),
            ("http://2130706433:8000/", "2130706433:8000 is this app's own address (127.0.0.1)"),
            ("http://0x7f000001:8000/", "0x7f000001:8000 is this app's own address (127.0.0.1)"),
            ("http://017700000001:8000/", "017700000001:8000 is this app's own address (127.0.0.1)"),
            ("http://0177.0.0.1:8000/", "0177.0.0.1:8000 is this app's own address (127.0.0.1)"),
            ("http://0:8000/", "0:8000 is this app's own address (0.0.0.0)"),
            ("http://[::ffff:127.0.0.1]:8000/", "[::ffff:127.0.0.1]:8000 is this app's own address (127.0.0.1)"),
            ("http://[::1]:8000/", "[::1]:8000 is this app's own address"),
            ("http://[::]:8000/", "[::]:8000 is this app's own address"),
            ("http://LOCALHOST.:8000/", "localhost:8000 is this app's own address"),
            ("http://[::1/x", "This URL is not well formed (“http://[::1/x”)"),
            ("https://[fe80::1/hooks", "This URL is not well formed"),
            ("http://127.0.0.1:8000\\@evil.example/", "cannot hold a backslash before its path"),
            ("http://:80/x", "names no host"),
            ("http://example.com:99999/", "not a number from 1 to 65535"),
            ("http://exa mple.com/", "cannot hold spaces"),
            ("", "Give the webhook's URL"),
        ],
    )
    def test_a_url_it_cannot_send_to_is_refused_in_words(self, trio: Trio, url: str, words: str) -> None:
        response = add(trio, url=url)
        assert response.status_code == 422, response.content
        assert response.json()["error"] == "invalid_input" and words in response.json()["detail"]
        assert not Endpoint.objects.exists()

    def test_a_name_that_resolves_to_this_machine_is_its_own_address(self, trio: Trio) -> None:
        """The machine's host name resolves to one of its addresses (127.0.0.1 here, or an interface's): on the
        app's port it is the app; on another port it is an internal receiver, allowed."""
        me = socket.gethostname().lower()
        refused = add(trio, url=f"http://{me}:8000/hooks")
        assert refused.status_code == 422, refused.content
        assert refused.json()["detail"].startswith(f"{me}:8000 is this app's own address (")
        assert add(trio, url=f"http://{me}:9/hooks").status_code == 201

    def test_the_request_host_and_port_are_the_apps_own_by_address(self, trio: Trio, settings: Any) -> None:
        settings.PORT = 7000  # served on 7000, asked on 127.0.0.1:9100 (through a proxy on this machine, say)
        for url in (
            "http://127.0.0.1:9100/x",
            "http://127.1:9100/x",
            "http://localhost:9100/",
            "http://0x7f000001:7000/",
        ):
            with pytest.raises(InvalidWebhookUrl, match="is this app's own address"):
                clean_url(url, asked_on="127.0.0.1:9100")
        assert clean_url("http://127.1:8001/x", asked_on="127.0.0.1:9100") == "http://127.1:8001/x"

    def test_unknown_events_are_refused_naming_the_kinds(self, trio: Trio) -> None:
        for events in ([], ["correction.exploded"]):
            response = add(trio, events=events)
            assert response.status_code == 422 and response.json()["error"] == "invalid_input"
            assert "correction.applied, decision.needs_review" in response.json()["detail"]
        assert not Endpoint.objects.exists()

    def test_allowed_hosts_restrict_where_webhooks_go(self, trio: Trio, settings: Any) -> None:
        settings.AFTERHACK_WEBHOOK_ALLOWED_HOSTS = ["*.example.com"]
        refused = add(trio, url="http://10.0.0.5/hooks")
        assert refused.status_code == 422
        assert refused.json()["detail"] == (
            "Webhooks may not be sent to 10.0.0.5 here: the hosts allowed are *.example.com "
            "(AFTERHACK_WEBHOOK_ALLOWED_HOSTS)."
        )
        assert add(trio, url="https://hooks.example.com/in").status_code == 201
        # `*.` matches subdomains only, and `*` never matches a dot elsewhere.
        for url in ("https://example.com/in", "https://evilexample.com/in", "https://hooks.example.com.evil.example/"):
            assert add(trio, url=url).status_code == 422, url

    def test_allowed_networks_match_the_addresses_a_host_resolves_to(self, trio: Trio, settings: Any) -> None:
        settings.AFTERHACK_WEBHOOK_ALLOWED_HOSTS = ["10.0.0.0/24", "127.0.0.0/8"]
        assert add(trio, url="http://10.0.0.5/hooks").status_code == 201
        assert add(trio, url="http://10.1/hooks").status_code == 201  # 10.0.0.1, as the network stack reads it
        assert add(trio, url="http://localhost:9/hooks").status_code == 201  # resolves to 127.0.0.1
        for url in ("http://10.0.0.5.attacker.example/", "http://10.0.1.5/", "http://[::ffff:10.0.1.5]/"):
            response = add(trio, url=url)
            assert (
                response.status_code == 422
                and "the hosts allowed are 10.0.0.0/24, 127.0.0.0/8" in (response.json()["detail"])
            ), url

    def test_the_public_url_is_the_apps_own_address(self, trio: Trio, settings: Any) -> None:
        settings.AFTERHACK_PUBLIC_URL = "https://afterhack.example"
        response = add(trio, url="https://AFTERHACK.example:443/x")
        assert response.status_code == 422 and "afterhack.example:443 is this app's own" in response.json()["detail"]

    def test_only_admins_see_or_change_webhooks(self, trio: Trio) -> None:
        webhook = add(trio).json()["id"]
        ws = trio.workspace.id
        base = f"/workspaces/{ws}/webhooks"
        calls = [
            ("POST", base, {"url": "http://127.0.0.1:9/b", "events": [APPLIED]}), ("GET", base, None),
            ("GET", f"{base}/{webhook}", None), ("PATCH", f"{base}/{webhook}", {"enabled": False}),
            ("POST", f"{base}/{webhook}/rotate-secret", None), ("GET", f"{base}/{webhook}/deliveries", None),
            ("POST", f"{base}/{webhook}/deliveries/1/redeliver", None), ("DELETE", f"{base}/{webhook}", None),
        ]  # fmt: skip
        for method, path, body in calls:
            for user, status in ((trio.reviewer, 403), (trio.viewer, 403), (trio.outsider, 404)):
                answer = call(user, method, path, body)
                assert answer.status_code == status, (method, path, user.username, answer.content)
        assert Endpoint.objects.count() == 1 and Endpoint.objects.get().enabled
        detail = call(trio.reviewer, "GET", base).json()["detail"]
        assert detail == "Only this workspace's admins can manage its webhooks."

    def test_an_admin_changes_rotates_and_deletes(self, trio: Trio) -> None:
        created = add(trio).json()
        path = f"/workspaces/{trio.workspace.id}/webhooks/{created['id']}"
        changed = call(trio.owner, "PATCH", path, {"url": "http://127.0.0.1:9/new", "enabled": False})
        assert changed.status_code == 200
        assert changed.json()["url"] == "http://127.0.0.1:9/new" and changed.json()["enabled"] is False
        assert changed.json()["disabled_reason"] == "Disabled by an admin." and "secret" not in changed.json()
        bad = call(trio.owner, "PATCH", path, {"url": "gopher://x"})
        assert bad.status_code == 422 and Endpoint.objects.get().url == "http://127.0.0.1:9/new"
        rotated = call(trio.owner, "POST", path + "/rotate-secret")
        assert rotated.status_code == 200 and rotated.json()["secret"] not in ("", created["secret"])
        assert Endpoint.objects.get().secret == rotated.json()["secret"]
        assert call(trio.owner, "DELETE", path).status_code == 204
        assert call(trio.owner, "GET", path).status_code == 404 and not Endpoint.objects.exists()
        verbs = list(AuditEvent.objects.filter(verb__startswith="webhook.").values_list("verb", flat=True))
        assert sorted(verbs) == ["webhook.changed", "webhook.created", "webhook.deleted", "webhook.secret_rotated"]

    def test_the_deliveries_log_is_paged_and_a_delivery_can_be_redelivered(
        self, trio: Trio, receiver: Receiver, settings: Any, django_capture_on_commit_callbacks: Any
    ) -> None:
        settings.AFTERHACK_WEBHOOK_RETRY_SECONDS = [0.0]
        created = add(trio, url=receiver.url).json()
        receiver.script = ["fail"]
        event = record_event(actor=trio.owner, workspace=trio.workspace, verb="correction.applied").pk
        [message_id] = deliveries.enqueue(workspace=trio.workspace, event_id=event, kind=APPLIED, data={"url": "/"})
        deliveries.send_due(), deliveries.send_due()
        path = f"/workspaces/{trio.workspace.id}/webhooks/{created['id']}/deliveries"
        first = api_for(trio.owner).get(path + "?limit=1").json()
        assert first["count"] == 2 and first["next"]
        newest = first["results"][0]
        assert newest | {"at": None, "id": None, "duration_ms": None} == {
            "id": None, "message_id": message_id, "event_id": event, "event": APPLIED, "attempt": 2,
            "status_code": 200, "error": "", "at": None, "duration_ms": None,
        }  # fmt: skip
        second = api_for(trio.owner).get(f"{path}?limit=1&cursor={first['next']}").json()
        assert second["results"][0]["attempt"] == 1 and second["results"][0]["status_code"] == 500
        assert second["next"] is None
        with django_capture_on_commit_callbacks(execute=True):
            again = api_for(trio.owner).post(f"{path}/{newest['id']}/redeliver")
        assert again.status_code == 202 and again.json()["message_id"] == message_id
        assert [r.headers["webhook-id"] for r in receiver.received] == [message_id] * 3
        assert call(trio.owner, "POST", f"{path}/999999/redeliver").status_code == 404

    def test_redelivering_to_a_disabled_webhook_is_a_conflict(self, trio: Trio, receiver: Receiver) -> None:
        created = add(trio, url=receiver.url).json()
        event = record_event(actor=trio.owner, workspace=trio.workspace, verb="correction.applied").pk
        deliveries.enqueue(workspace=trio.workspace, event_id=event, kind=APPLIED, data={"url": "/"})
        deliveries.send_due()
        base = f"/workspaces/{trio.workspace.id}/webhooks/{created['id']}"
        call(trio.owner, "PATCH", base, {"enabled": False})
        attempt = api_for(trio.owner).get(base + "/deliveries").json()["results"][0]["id"]
        answer = call(trio.owner, "POST", f"{base}/deliveries/{attempt}/redeliver")
        assert answer.status_code == 409
        assert answer.json()["detail"] == "This webhook is disabled: enable it again, then redeliver."
