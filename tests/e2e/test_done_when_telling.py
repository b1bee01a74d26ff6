"""Issue 26's "Done when", end to end on the demo in a browser: a reviewer corrects June → July; the announcement
already sent is marked as needing a follow-up; the decision's owner is told in the app and by email; a webhook
receiver gets a correctly signed `correction.applied`, failed once, then delivered under the same id; the owner's
agent, asking `what_changed` over MCP, is told to cite July instead; the reviewer plans the follow-up from the queue.

Tasks run eagerly in the suite: the dispatcher, the first delivery and the emails run when Apply commits. The test
still calls the dispatcher and the sending as the worker's beat would (they send only what is due), and the retry
after its pause."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest
from django.core import mail
from standardwebhooks import Webhook

from claims.graph import search as search_graph
from notifications import outbox
from notifications.models import Notification
from tests.conftest import MakeUser
from tests.e2e.conftest import log_in, preview_correction, screenshot, settled
from tests.mcp_server.conftest import http_agent
from tests.mcp_server.conftest import mcp_url as mcp_url  # the fixture
from tests.webhooks.receiver import Receiver
from webhooks.models import Endpoint, Message
from webhooks.services import deliveries
from workspaces.models import Role, Workspace
from workspaces.services import memberships as membership_services
from workspaces.services import tokens as token_services

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

JUNE, JULY = "The product launch is in June.", "The product launch is in July."
RETRY_PAUSE = 1.0


class FailsOnce(Receiver):
    """Answers 500 to the first request of each message (by its `webhook-id`), then 204."""

    def __init__(self) -> None:
        super().__init__()
        self.then = "fails_once"

    def _fails_once(self, handler: BaseHTTPRequestHandler) -> None:
        webhook_id = handler.headers.get("webhook-id")
        tries = sum(1 for r in self.received if r.headers.get("webhook-id") == webhook_id)
        self._answer(handler, 500, b"receiver is down") if tries == 1 else self._answer(handler, 204)


@pytest.fixture
def fails_once() -> Iterator[FailsOnce]:
    server = FailsOnce()
    yield server
    server.close()


def claim_id(workspace: Workspace, phrase: str) -> str:
    return search_graph.claim_search_phrase(workspace=workspace, phrase=phrase, limit=1)[0].id


def add_webhook(page: Any, workspace: Workspace, url: str) -> str:
    """The admin adds the receiver on the webhooks page; answers the secret, copied from the page."""
    page.goto(f"/w/{workspace.id}/members/")
    page.get_by_role("link", name="Manage webhooks").click()
    page.get_by_label("URL").fill(url)
    page.get_by_label("correction.applied").check()
    page.get_by_label("action.follow_up_needed").check()
    page.get_by_role("button", name="Add webhook").click()
    page.get_by_text("Copy the secret now: it is shown only this once").wait_for()
    settled(page)
    screenshot(page, "done-when-1-webhook-added")
    return str(page.locator("#webhook-secret-value").inner_text())


def correct_june(page: Any, workspace: Workspace) -> None:
    """The reviewer corrects June → July through the pages: the preview names the announcement already sent."""
    page.goto(f"/w/{workspace.id}/claims/{claim_id(workspace, 'the product launch is in june')}/")
    page.get_by_role("link", name="Correct this claim").click()
    preview_correction(page, JULY, "The board moved the launch on 2 April.", wait_for="#already-done")
    listed = page.locator("#already-done").inner_text()
    assert "Already acted on: Send the launch announcement — done on " in listed and " by admin" in listed
    screenshot(page, "done-when-2-preview")
    page.get_by_role("button", name="Apply the correction").click()
    page.wait_for_url("**/corrections/*/")
    page.get_by_text("Correction applied.").wait_for()
    screenshot(page, "done-when-3-applied")


def delivered_twice(receiver: FailsOnce, secret: str) -> list[dict[str, Any]]:
    """The `correction.applied` requests the receiver got, each verified with the endpoint's secret."""
    verifier = Webhook(secret)
    got = []
    for request in receiver.received:
        payload = verifier.verify(request.body, request.headers)  # raises unless correctly signed, and recent
        if payload["type"] == "correction.applied":
            got.append({"id": request.headers["webhook-id"], **payload})
    return got


def retry_after_the_pause() -> None:
    """Waits out the retry's pause and sends what is due, as the worker's beat does every few seconds."""
    due_at = Message.objects.order_by("-next_attempt_at").values_list("next_attempt_at", flat=True).first()
    assert due_at is not None
    from django.utils import timezone

    time.sleep(max(0.0, (due_at - timezone.now()).total_seconds()) + 0.1)
    deliveries.send_due()


class DoneWhenTests:
    def test_correcting_june_tells_the_owner_the_receiver_the_agent_and_the_reviewer_plans_the_follow_up(
        self, page: Any, browser: Any, live_server: Any, demo_workspace: Workspace, make_user: MakeUser,
        fails_once: FailsOnce, mcp_url: str, settings: Any,
    ) -> None:  # fmt: skip
        settings.AFTERHACK_WEBHOOK_RETRY_SECONDS = [RETRY_PAUSE, 300.0]
        workspace = demo_workspace
        owner = workspace.memberships.get(role=Role.ADMIN).user
        owner.email = "admin@example.com"
        owner.save(update_fields=["email"])
        rita = make_user("rita", email="rita@example.com")
        membership_services.member_add(workspace=workspace, username="rita", role=Role.REVIEWER, actor=owner)
        june = claim_id(workspace, "the product launch is in june")

        # The owner's agent reads the June claim over MCP (the owner recorded the decisions that cite it, too).
        token = token_services.token_issue(user=owner, name="the owner's agent")[1]
        agent = http_agent(mcp_url, token)
        assert not agent.call("get_fragment", workspace_id=str(workspace.id), claim_id=june).is_error

        secret = add_webhook(page, workspace, fails_once.url)
        assert secret == Endpoint.objects.get(workspace=workspace).secret

        reviewer = browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 800})
        rita_page = reviewer.new_page()
        rita_page.set_default_timeout(15_000)
        log_in(rita_page, live_server, rita)
        correct_june(rita_page, workspace)
        july = claim_id(workspace, "the product launch is in july")

        # What the worker does (here already done by Apply's eager tasks): tell the outbox, send what is due.
        outbox.tell_all()
        deliveries.send_due()
        first = delivered_twice(fails_once, secret)
        assert len(first) == 1, "the first attempt went out at once, and failed"
        retry_after_the_pause()
        both = delivered_twice(fails_once, secret)
        assert len(both) == 2 and both[0]["id"] == both[1]["id"], "the same message, retried under the same id"
        assert both[0]["data"]["claim_id"] == june and both[0]["data"]["replacement_claim_id"] == july
        assert both[0]["data"]["workspace_id"] == str(workspace.id)
        kinds = [json.loads(r.body)["type"] for r in fails_once.received]
        assert kinds.count("action.follow_up_needed") == 2
        message = Message.objects.get(kind="correction.applied")
        assert message.state == "delivered" and message.attempt_count == 2

        # The decision's owner: one notification (the reviewer who applied is not told of her own act), the bell
        # counts it, the inbox shows it, and an email went out.
        told = Notification.objects.get(user=owner, kind="correction.applied")
        assert "you recorded the decision" in told.reason
        assert not Notification.objects.filter(user=rita).exists()
        unread = Notification.objects.filter(user=owner, read_at__isnull=True).count()
        page.goto(f"/w/{workspace.id}/")
        assert page.locator(".bell-count").inner_text() == str(unread)
        screenshot(page, "done-when-4-bell")
        page.locator("a.bell").click()
        page.get_by_role("heading", name="Notifications").wait_for()
        item = page.locator(".inbox-item.unread", has_text="was corrected to")
        assert f"“{JUNE}” was corrected to “{JULY}” by rita" in item.inner_text()
        assert "1 action already done needs a follow-up" in item.inner_text()
        screenshot(page, "done-when-5-inbox")
        emailed = [m for m in mail.outbox if m.to == ["admin@example.com"]]
        assert len(emailed) == 1 and JULY in emailed[0].body
        assert not [m for m in mail.outbox if m.to == ["rita@example.com"]]

        # The owner's agent, in its next session: what changed in what it relied on.
        changes = http_agent(mcp_url, token).call("what_changed", workspace_id=str(workspace.id))
        assert not changes.is_error, changes.body
        corrected = next(c for c in changes["results"] if c["id"] == june)
        assert corrected["to_status"] == "superseded" and corrected["next_step"]["do"] == "use_claim"
        assert (corrected["next_step"]["claim_id"], corrected["next_step"]["statement"]) == (july, JULY)
        # ...and the decision the owner recorded on it: re-check it.
        steps = {
            c["next_step"].get("title"): c["next_step"]["do"] for c in changes["results"] if c["kind"] == "decision"
        }
        assert steps["Announce the June launch"] == "recheck_decision"

        # The reviewer revises the decision onto July, then plans the follow-up on it from the queue.
        rita_page.goto(f"/w/{workspace.id}/review/")
        flagged = rita_page.locator(".review-item", has_text="Announce the June launch").first
        picker = flagged.locator(".picker")
        picker.get_by_label("Find the claims it rests on now").press_sequentially("launch is in July", delay=30)
        picker.locator(".pick-results li", has_text=JULY).get_by_role("button", name="Add").click()
        picker.locator("ul.chosen li.chosen-item", has_text=JULY).wait_for()
        settled(rita_page)
        flagged.get_by_label("What is decided now").fill("Announce the July launch")
        flagged.get_by_role("button", name="Revise").click()
        rita_page.get_by_text(
            "Revised into “Announce the July launch”, now supported; it had no open actions"
        ).wait_for()
        acted_on = rita_page.locator(".acted-on", has_text="Send the launch announcement")
        assert "Announce the July launch" in acted_on.locator("label.check").inner_text()
        acted_on.get_by_label("What to do now").fill("Send a correction to the announcement")
        acted_on.scroll_into_view_if_needed()
        screenshot(rita_page, "done-when-6-review-queue")
        acted_on.get_by_role("button", name="Plan the follow-up").click()
        rita_page.get_by_text("Follow-up planned").wait_for()
        settled(rita_page)
        screenshot(rita_page, "done-when-7-follow-up-planned")
        rita_page.goto(f"/w/{workspace.id}/actions/")
        rita_page.get_by_role("link", name="Send the launch announcement").click()
        follow_up = rita_page.locator("#follow-up").inner_text()
        assert "follow-up planned" in follow_up and "Send a correction to the announcement" in follow_up
        screenshot(rita_page, "done-when-8-action")
        reviewer.close()
