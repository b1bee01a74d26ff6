"""A reviewer asks the (offline) agent a question, watches the run finish, and reads the decision's quotes."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import screenshot
from workspaces.models import Workspace

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


class AgentFlowTests:
    def test_ask_watch_and_open_the_decision(
        self, page: Any, demo_workspace: Workspace, no_llm: None, celery_worker_thread: Any
    ) -> None:
        workspace = demo_workspace
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
        self, page: Any, demo_workspace: Workspace
    ) -> None:
        workspace = demo_workspace
        page.goto(f"/w/{workspace.id}/decisions/")
        page.get_by_role("link", name="Launch in June").click()
        page.get_by_text("Justification 2").wait_for()
        assert page.get_by_text("we were told the launch is in June").is_visible()
        assert page.get_by_role("cell", name="Confirm the launch date with Northwind").is_visible()
        screenshot(page, "demo-decision")
