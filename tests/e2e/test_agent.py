"""A reviewer asks the (offline) agent a question, watches the run finish, and reads the decision's quotes."""

from __future__ import annotations

from typing import Any

import pytest

from afterhack.demo import demo_load
from tests.conftest import MakeUser
from tests.e2e.conftest import log_in, screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


class AgentFlowTests:
    def test_ask_watch_and_open_the_decision(
        self, page: Any, live_server: Any, make_user: MakeUser, no_llm: None, celery_worker_thread: Any
    ) -> None:
        admin = make_user("admin", is_staff=True, is_superuser=True)
        workspace = demo_load(owner=admin)
        assert workspace is not None
        log_in(page, live_server, admin)
        page.goto(f"/w/{workspace.id}/ask/")
        page.get_by_label("Question").fill("When is the product launch?")
        page.get_by_role("button", name="Ask").click()
        page.wait_for_url("**/runs/*/")
        page.get_by_text("Retrieved the source of").first.wait_for(timeout=30_000)
        page.locator("#run-body .badge", has_text="done").first.wait_for(timeout=30_000)
        screenshot(page, "agent-run")
        assert page.locator(".trajectory mark").first.inner_text() == "The product launch is in June"

        page.locator(".decision-card h2 a").click()
        page.wait_for_url("**/decisions/*/")
        quote = page.locator("blockquote.quote").first
        assert "The product launch is in June" in quote.inner_text()
        screenshot(page, "agent-decision")

    def test_the_demo_decision_shows_two_justifications_and_its_action(
        self, page: Any, live_server: Any, make_user: MakeUser
    ) -> None:
        admin = make_user("admin", is_staff=True, is_superuser=True)
        workspace = demo_load(owner=admin)
        assert workspace is not None
        log_in(page, live_server, admin)
        page.goto(f"/w/{workspace.id}/decisions/")
        page.get_by_role("link", name="Launch in June").click()
        page.get_by_text("Justification 2").wait_for()
        assert page.get_by_text("we were told the launch is in June").is_visible()
        assert page.get_by_role("cell", name="Send the launch announcement").is_visible()
        screenshot(page, "demo-decision")
