"""A workspace admin manages webhooks in the browser: adds one (its secret shown once), reads its deliveries' log,
rotates its secret (asked first, shown once) and deletes it (asked first)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Trio
from tests.e2e.conftest import log_in, screenshot, settled
from tests.webhooks.receiver import Receiver
from tests.webhooks.receiver import receiver as receiver  # the fixture
from webhooks.models import Endpoint
from webhooks.services import deliveries
from workspaces.services.audit import record_event

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


class WebhooksFlowTests:
    def test_an_admin_adds_reads_rotates_and_deletes_a_webhook(
        self, page: Any, live_server: Any, trio: Trio, receiver: Receiver, settings: Any
    ) -> None:
        settings.AFTERHACK_WEBHOOK_RETRY_SECONDS = [0.0]
        log_in(page, live_server, trio.owner)
        page.goto(f"/w/{trio.workspace.id}/members/")
        page.get_by_role("link", name="Manage webhooks").click()
        page.get_by_role("heading", name="Webhooks", exact=True).wait_for()

        page.get_by_label("URL").fill(receiver.url)
        page.get_by_label("correction.applied").check()
        page.get_by_label("action.follow_up_needed").check()
        page.get_by_role("button", name="Add webhook").click()
        page.get_by_text("Copy the secret now: it is shown only this once").wait_for()
        settled(page)
        endpoint = Endpoint.objects.get()
        assert page.locator("#webhook-secret-value").inner_text() == endpoint.secret
        assert endpoint.events == ["correction.applied", "action.follow_up_needed"]
        screenshot(page, "webhooks-added")

        # Two attempts of one event: the receiver fails the first.
        receiver.script = ["fail"]
        event = record_event(actor=trio.owner, workspace=trio.workspace, verb="correction.applied").pk
        deliveries.enqueue(workspace=trio.workspace, event_id=event, kind="correction.applied", data={"url": "/w/"})
        deliveries.send_due(), deliveries.send_due()
        page.get_by_role("link", name=receiver.url).click()
        page.get_by_text("2 attempts, newest first").wait_for()
        assert "The receiver answered 500." in page.locator("#deliveries").inner_text()
        assert endpoint.secret not in page.content()
        screenshot(page, "webhook-deliveries")

        page.get_by_role("button", name="Rotate secret").click()
        page.get_by_role("button", name="Rotate the secret").click()
        page.get_by_text("Copy the secret now").wait_for()
        settled(page)
        endpoint.refresh_from_db()
        assert page.locator("#webhook-secret-value").inner_text() == endpoint.secret
        screenshot(page, "webhook-rotated")

        page.get_by_role("button", name="Delete webhook").click()
        page.get_by_text(f"Delete the webhook to {receiver.url}?").wait_for()
        settled(page)
        screenshot(page, "webhook-delete-confirm")
        page.get_by_role("button", name="Delete the webhook").click()
        page.get_by_text(f"The webhook to {receiver.url} was deleted.").wait_for()
        assert not Endpoint.objects.exists()
        screenshot(page, "webhooks-after-delete")
