"""Deliveries to a real local receiver: signed as Standard Webhooks says, retried with the same id, bounded in time
and size, never redirected, the endpoint disabled after its last retry."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from standardwebhooks import Webhook, WebhookVerificationError

from tests.conftest import Trio
from tests.webhooks.receiver import Receiver, closed_port_url
from webhooks import sending
from webhooks.models import Attempt, Endpoint, Message
from webhooks.services import deliveries, endpoints
from webhooks.statuses import EventKind, MessageState
from workspaces.models import AuditEvent
from workspaces.services.audit import record_event

pytestmark = pytest.mark.django_db

APPLIED = EventKind.CORRECTION_APPLIED.value


def endpoint_to(trio: Trio, url: str, events: list[str] | None = None) -> Endpoint:
    return endpoints.endpoint_create(workspace=trio.workspace, url=url, events=events or [APPLIED], actor=trio.owner)


def an_event(trio: Trio) -> int:
    return record_event(actor=trio.owner, workspace=trio.workspace, verb="correction.applied", target="x").pk


def queue(trio: Trio, event_id: int, kind: str = APPLIED) -> list[str]:
    data = {"correction_id": "c-1", "claim_id": "k-1", "url": f"/corrections/{trio.workspace.id}/c-1"}
    return deliveries.enqueue(workspace=trio.workspace, event_id=event_id, kind=kind, data=data)


def verified(endpoint: Endpoint, receiver: Receiver, n: int = -1) -> Any:
    request = receiver.received[n]
    return Webhook(endpoint.secret).verify(request.body, request.headers)


@pytest.fixture
def quick(settings: Any) -> Any:
    """Retries due at once, and a short deadline, so no test waits."""
    settings.AFTERHACK_WEBHOOK_RETRY_SECONDS = [0.0, 0.0]
    settings.AFTERHACK_WEBHOOK_TIMEOUT = 1.0
    settings.AFTERHACK_PUBLIC_URL = "https://afterhack.example"
    return settings


class DeliveryTests:
    def test_it_delivers_a_correctly_signed_message_after_the_commit(
        self, trio: Trio, receiver: Receiver, quick: Any, django_capture_on_commit_callbacks: Any
    ) -> None:
        endpoint = endpoint_to(trio, receiver.url)
        event_id = an_event(trio)
        with django_capture_on_commit_callbacks(execute=True):
            ids = queue(trio, event_id)
            deliveries.send_soon(ids)
            assert receiver.received == []  # nothing before the commit
        assert len(receiver.received) == 1
        body = verified(endpoint, receiver)
        assert body["type"] == "correction.applied" and body["timestamp"].endswith("Z")
        assert body["data"] == {
            "workspace_id": str(trio.workspace.id), "correction_id": "c-1", "claim_id": "k-1",
            "url": f"https://afterhack.example/corrections/{trio.workspace.id}/c-1",
        }  # fmt: skip
        assert receiver.received[0].headers["webhook-id"] == ids[0] and ids[0].startswith("msg_")
        assert receiver.received[0].headers["webhook-signature"].startswith("v1,")
        message = Message.objects.get(pk=ids[0])
        assert message.state == MessageState.DELIVERED and message.attempt_count == 1
        attempt = Attempt.objects.get(message=message)
        assert (attempt.number, attempt.status_code, attempt.error) == (1, 200, "")

    def test_another_secret_does_not_verify_it(self, trio: Trio, receiver: Receiver, quick: Any) -> None:
        endpoint = endpoint_to(trio, receiver.url)
        queue(trio, an_event(trio))
        deliveries.send_due()
        request = receiver.received[0]
        with pytest.raises(WebhookVerificationError):
            Webhook(endpoints.new_secret()).verify(request.body, request.headers)
        assert verified(endpoint, receiver)["type"] == APPLIED

    def test_the_same_event_queued_twice_makes_nothing_new(self, trio: Trio, quick: Any) -> None:
        endpoint_to(trio, "http://127.0.0.1:9/a")
        event_id = an_event(trio)
        first, again = queue(trio, event_id), queue(trio, event_id)
        assert first == again and Message.objects.count() == 1

    def test_only_enabled_endpoints_asking_for_the_kind_get_it(self, trio: Trio, quick: Any) -> None:
        wants = endpoint_to(trio, "http://127.0.0.1:9/wants")
        endpoint_to(trio, "http://127.0.0.1:9/other", [EventKind.CLAIM_RETRACTED.value])
        off = endpoint_to(trio, "http://127.0.0.1:9/off")
        endpoints.endpoint_change(endpoint=off, actor=trio.owner, enabled=False)
        ids = queue(trio, an_event(trio))
        assert [Message.objects.get(pk=i).endpoint_id for i in ids] == [wants.pk]

    def test_a_retry_after_a_500_carries_the_same_webhook_id(self, trio: Trio, receiver: Receiver, quick: Any) -> None:
        endpoint = endpoint_to(trio, receiver.url)
        receiver.script = ["fail"]
        [message_id] = queue(trio, an_event(trio))
        assert deliveries.send_due() == 1
        message = Message.objects.get(pk=message_id)
        assert message.state == MessageState.PENDING and message.next_attempt_at is not None
        assert deliveries.send_due() == 1
        assert [r.headers["webhook-id"] for r in receiver.received] == [message_id, message_id]
        assert verified(endpoint, receiver, 0) == verified(endpoint, receiver, 1)
        tries = list(Attempt.objects.filter(message_id=message_id).order_by("number"))
        assert [(a.number, a.status_code) for a in tries] == [(1, 500), (2, 200)]
        assert tries[0].error == "The receiver answered 500. It said: “receiver is down”"
        assert Message.objects.get(pk=message_id).state == MessageState.DELIVERED

    def test_the_first_retry_waits_about_five_seconds_by_default(self, trio: Trio, receiver: Receiver) -> None:
        endpoint_to(trio, receiver.url)
        receiver.script = ["fail"]
        [message_id] = queue(trio, an_event(trio))
        deliveries.send_due()
        message = Message.objects.get(pk=message_id)
        attempt = Attempt.objects.get(message=message)
        assert message.next_attempt_at is not None
        pause = (message.next_attempt_at - attempt.at).total_seconds()
        assert 5 <= pause < 5 + 60  # about 5 s after the attempt began (it took its own time too)
        assert deliveries.send_due() == 0  # not due yet: nothing sent twice

    def test_a_receiver_trickling_its_answer_is_cut_off_at_the_deadline(
        self, trio: Trio, receiver: Receiver, quick: Any
    ) -> None:
        endpoint_to(trio, receiver.url)
        receiver.then = "slow"
        [message_id] = queue(trio, an_event(trio))
        deliveries.send_due()
        attempt = Attempt.objects.get(message_id=message_id)
        assert attempt.status_code is None and attempt.error == "No answer within 1 second."
        # The deadline is the whole attempt's: the trickle would have gone on for minutes.
        assert 1000 <= attempt.duration_ms < 1000 + 5000
        assert Message.objects.get(pk=message_id).state == MessageState.PENDING

    def test_a_redirect_loop_fails_without_being_followed(self, trio: Trio, receiver: Receiver, quick: Any) -> None:
        endpoint_to(trio, receiver.url)
        receiver.then = "redirect"
        [message_id] = queue(trio, an_event(trio))
        deliveries.send_due()
        assert len(receiver.received) == 1
        attempt = Attempt.objects.get(message_id=message_id)
        assert attempt.status_code == 302
        assert attempt.error == (
            f"The receiver answered 302, a redirect to {receiver.url}: redirects are not followed; give the final "
            "address."
        )

    def test_a_10_mb_answer_is_read_only_in_part(self, trio: Trio, receiver: Receiver, quick: Any) -> None:
        endpoint_to(trio, receiver.url)
        receiver.script = ["huge", "huge_ok"]
        [message_id] = queue(trio, an_event(trio))
        deliveries.send_due()
        deliveries.send_due()
        tries = list(Attempt.objects.filter(message_id=message_id).order_by("number"))
        assert [a.status_code for a in tries] == [500, 200]
        assert tries[0].error.startswith("The receiver answered 500. It said: “xxx") and len(tries[0].error) < 300
        assert tries[0].duration_ms < 1000 + 5000 and tries[1].error == ""
        assert Message.objects.get(pk=message_id).state == MessageState.DELIVERED

    def test_an_address_that_became_the_apps_own_is_not_sent_to_but_retried(
        self, trio: Trio, receiver: Receiver, quick: Any
    ) -> None:
        """Checked again before each attempt: the receiver's host and port are now the app's (its port changed, or
        the name resolves to this machine now): nothing is sent, the attempt fails in words and is retried."""
        port = int(receiver.url.split(":")[2].split("/")[0])
        endpoint_to(trio, f"http://localhost:{port}/hooks")
        [message_id] = queue(trio, an_event(trio))
        quick.PORT = port
        deliveries.send_due()
        attempt = Attempt.objects.get(message_id=message_id)
        assert attempt.status_code is None and not receiver.received
        assert attempt.error == f"localhost:{port} is this app's own address: a webhook is sent to another system."
        assert Message.objects.get(pk=message_id).state == MessageState.PENDING
        quick.AFTERHACK_WEBHOOK_ALLOWED_HOSTS = ["10.0.0.0/8"]
        quick.PORT = 8000
        deliveries.send_due()
        assert Attempt.objects.filter(message_id=message_id).latest("number").error == (
            "Webhooks may not be sent to localhost here: the hosts allowed are 10.0.0.0/8 "
            "(AFTERHACK_WEBHOOK_ALLOWED_HOSTS)."
        )
        quick.AFTERHACK_WEBHOOK_ALLOWED_HOSTS = ["127.0.0.0/8"]
        deliveries.send_due()
        assert Message.objects.get(pk=message_id).state == MessageState.DELIVERED
        # Sent to the address checked, the Host header still the name given.
        assert len(receiver.received) == 1 and receiver.received[0].headers["host"] == f"localhost:{port}"

    def test_a_receiver_nobody_listens_at_is_an_error_in_words(self, trio: Trio, quick: Any) -> None:
        endpoint_to(trio, closed_port_url())
        [message_id] = queue(trio, an_event(trio))
        deliveries.send_due()
        attempt = Attempt.objects.get(message_id=message_id)
        assert attempt.status_code is None and attempt.error.startswith("Could not connect to the receiver")

    def test_the_endpoint_is_disabled_after_its_last_retry_and_the_admins_told(
        self, trio: Trio, receiver: Receiver, quick: Any
    ) -> None:
        endpoint = endpoint_to(trio, receiver.url)
        receiver.then = "fail"
        [message_id] = queue(trio, an_event(trio))
        assert [deliveries.send_due() for _ in range(4)] == [1, 1, 1, 0]  # the first try and two retries
        message = Message.objects.get(pk=message_id)
        assert message.state == MessageState.FAILED and message.attempt_count == 3
        endpoint.refresh_from_db()
        assert not endpoint.enabled
        assert (
            "after 3 failed attempts of one delivery; the last: The receiver answered 500." in endpoint.disabled_reason
        )
        event = AuditEvent.objects.get(verb="webhook.disabled")
        assert event.workspace == trio.workspace and event.payload == {"endpoint_id": endpoint.pk, "attempts": "3"}
        assert event.summary == "disabled the webhook to 127.0.0.1:" + receiver.url.split(":")[2].split("/")[0] + (
            ": its receiver failed 3 attempts of one delivery"
        )
        assert queue(trio, an_event(trio)) == []  # a disabled endpoint is sent nothing new

    def test_each_attempt_is_claimed_once(self, trio: Trio, quick: Any) -> None:
        endpoint_to(trio, "http://127.0.0.1:9/a")
        [message_id] = queue(trio, an_event(trio))
        first = deliveries.claim_due()
        assert [c.message_id for c in first] == [message_id] and deliveries.claim_due() == []
        assert Message.objects.get(pk=message_id).attempt_count == 1

    def test_rotation_signs_what_follows_with_the_new_secret(self, trio: Trio, receiver: Receiver, quick: Any) -> None:
        endpoint = endpoint_to(trio, receiver.url)
        old = endpoint.secret
        endpoints.endpoint_rotate_secret(endpoint=endpoint, actor=trio.owner)
        assert endpoint.secret != old and endpoint.secret.startswith("whsec_")
        queue(trio, an_event(trio))
        deliveries.send_due()
        assert verified(endpoint, receiver)["type"] == APPLIED
        with pytest.raises(WebhookVerificationError):
            Webhook(old).verify(receiver.received[0].body, receiver.received[0].headers)

    def test_redelivery_sends_again_with_the_same_id(
        self, trio: Trio, receiver: Receiver, quick: Any, django_capture_on_commit_callbacks: Any
    ) -> None:
        endpoint = endpoint_to(trio, receiver.url)
        [message_id] = queue(trio, an_event(trio))
        deliveries.send_due()
        attempt = Attempt.objects.get(message_id=message_id)
        with django_capture_on_commit_callbacks(execute=True):
            deliveries.redeliver(endpoint=endpoint, attempt_id=attempt.pk, actor=trio.owner)
        assert [r.headers["webhook-id"] for r in receiver.received] == [message_id, message_id]
        assert json.loads(receiver.received[1].body) == verified(endpoint, receiver)
        assert Attempt.objects.filter(message_id=message_id).count() == 2
        assert AuditEvent.objects.filter(verb="webhook.redelivered").count() == 1


class PauseTests:
    def test_a_receiver_that_failed_is_paused_and_what_follows_waits_with_it(
        self, trio: Trio, receiver: Receiver, settings: Any
    ) -> None:
        settings.AFTERHACK_WEBHOOK_RETRY_SECONDS = [30.0, 60.0]
        down = endpoint_to(trio, receiver.url)
        receiver.script = ["fail"]
        queue(trio, an_event(trio))
        assert deliveries.send_due() == 1
        down.refresh_from_db()
        assert down.failures_in_a_row == 1 and down.paused_until is not None
        # An event queued meanwhile is not sent to it now (one failed attempt per pause, not one per event) ...
        [later] = queue(trio, an_event(trio))
        assert Message.objects.get(pk=later).next_attempt_at == down.paused_until
        assert deliveries.send_due() == 0 and len(receiver.received) == 1
        # ... until its pause ends: then both go, it answers, and it is resumed.
        Endpoint.objects.filter(pk=down.pk).update(paused_until=timezone.now())
        Message.objects.update(next_attempt_at=timezone.now())
        assert deliveries.send_due() == 2
        down.refresh_from_db()
        assert (down.failures_in_a_row, down.paused_until) == (0, None)
        assert Message.objects.filter(state=MessageState.DELIVERED).count() == 2

    def test_redelivery_and_enabling_again_do_not_wait_for_a_pause(
        self, trio: Trio, receiver: Receiver, quick: Any
    ) -> None:
        endpoint = endpoint_to(trio, receiver.url)
        Endpoint.objects.filter(pk=endpoint.pk).update(paused_until=timezone.now() + timedelta(hours=1))
        [waiting] = queue(trio, an_event(trio))  # queued during the pause: it waits with it
        assert deliveries.send_due() == 0
        endpoints.endpoint_change(endpoint=Endpoint.objects.get(pk=endpoint.pk), enabled=False, actor=trio.owner)
        endpoints.endpoint_change(endpoint=Endpoint.objects.get(pk=endpoint.pk), enabled=True, actor=trio.owner)
        assert Endpoint.objects.get(pk=endpoint.pk).paused_until is None
        queue(trio, an_event(trio))
        # Enabled again: what waited goes now too, not at the end of the old pause.
        assert deliveries.send_due() == 2 and {r.headers["webhook-id"] for r in receiver.received} >= {waiting}


class InFlightTests:
    def test_a_redelivery_while_an_attempt_is_on_its_way_is_refused_in_words(self, trio: Trio, quick: Any) -> None:
        endpoint = endpoint_to(trio, "http://127.0.0.1:9/hook")
        [message_id] = queue(trio, an_event(trio))
        [claimed] = deliveries.claim_due()
        attempt = Attempt.objects.create(message_id=message_id, number=1, status_code=500, error="x", duration_ms=1)
        with pytest.raises(deliveries.AttemptInFlight, match="being sent now"):
            deliveries.redeliver(endpoint=endpoint, attempt_id=attempt.pk, actor=trio.owner)
        assert Message.objects.get(pk=message_id).lease == claimed.lease  # untouched

    def test_a_batch_whose_endpoint_was_deleted_meanwhile_records_the_others(self, trio: Trio, quick: Any) -> None:
        kept, gone = endpoint_to(trio, "http://127.0.0.1:9/a"), endpoint_to(trio, "http://127.0.0.1:9/b")
        queue(trio, an_event(trio))
        claimed = deliveries.claim_due()
        assert len(claimed) == 2
        endpoints.endpoint_delete(endpoint=gone, actor=trio.owner)
        ok = sending.Outcome(204, "", 3)
        assert deliveries.record_all([(c, ok) for c in claimed]) == {}
        assert [m.state for m in Message.objects.all()] == [MessageState.DELIVERED]
        assert [a.message.endpoint_id for a in Attempt.objects.select_related("message")] == [kept.pk]

    def test_the_lease_covers_every_wave_of_a_batch(self, trio: Trio, quick: Any) -> None:
        endpoint_to(trio, "http://127.0.0.1:9/a")
        for _ in range(sending.CONCURRENCY + 1):
            queue(trio, an_event(trio))
        before = timezone.now()
        claimed = deliveries.claim_due()
        lease = Message.objects.filter(pk=claimed[0].message_id).values_list("leased_until", flat=True).get()
        assert lease is not None and lease - before >= timedelta(seconds=2 * quick.AFTERHACK_WEBHOOK_TIMEOUT)


class LogTests:
    def test_settled_messages_leave_the_log_after_its_days_and_pending_ones_stay(self, trio: Trio, quick: Any) -> None:
        endpoint_to(trio, "http://127.0.0.1:9/a")
        old_done, old_pending, new_done = (queue(trio, an_event(trio))[0] for _ in range(3))
        Message.objects.filter(pk__in=[old_done, new_done]).update(state=MessageState.DELIVERED)
        Attempt.objects.create(message_id=old_done, number=1, status_code=204, error="", duration_ms=1)
        long_ago = timezone.now() - timedelta(days=quick.AFTERHACK_WEBHOOK_LOG_DAYS + 1)
        Message.objects.filter(pk__in=[old_done, old_pending]).update(created_at=long_ago)
        assert deliveries.prune_log() == 1
        assert set(Message.objects.values_list("pk", flat=True)) == {old_pending, new_done}
        assert not Attempt.objects.exists()
