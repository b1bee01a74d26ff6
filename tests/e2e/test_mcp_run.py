"""A person watches an outside agent's MCP session on its run page: what it searched, read and decided."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_server.calls import PRINCIPAL, Principal
from mcp_server.models import Transport
from mcp_server.tools.decisions import record_decision
from mcp_server.tools.reading import get_fragment, search_claims
from tests.e2e.conftest import ARTIFACTS, screenshot
from workspaces.models import Workspace

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def call(tool: Any, **arguments: Any) -> dict[str, Any]:
    result = tool(**arguments)
    assert not result.is_error, result
    return dict(result.structured_content)


class McpRunPageTests:
    def test_the_sessions_run_shows_its_steps_and_what_rule_2_dropped(
        self, page: Any, demo_workspace: Workspace
    ) -> None:
        from django.contrib.auth import get_user_model

        admin = get_user_model().objects.get(username="admin")
        PRINCIPAL.set(Principal(admin.pk, Transport.HTTP))
        ws = str(demo_workspace.id)
        found = call(search_claims, workspace_id=ws, query="When is the product launch?", limit=3)
        session = found["session"]
        first, second = (r["claim_id"] for r in found["results"][:2])
        call(get_fragment, workspace_id=ws, claim_id=first, session=session)
        decided = call(record_decision, workspace_id=ws, title="Launch in June", session=session,
                       justifications=[[first], [second]])  # fmt: skip
        assert decided["kept"] == [[first]]

        page.goto(f"/w/{ws}/ask/")
        row = page.locator("tr", has_text="MCP session")
        assert "open MCP session" in row.inner_text() and "MCP client" in row.inner_text()
        screenshot(page, "mcp-runs-list")
        row.get_by_role("link").click()
        page.wait_for_url("**/runs/*/")
        page.get_by_text("Recorded the decision").wait_for()
        assert page.locator("#run-body .badge", has_text="open MCP session").is_visible()
        assert page.locator(".trajectory mark").first.inner_text() == "The product launch is in June"
        assert "not retrieved in this session" in page.locator(".trajectory .dropped").inner_text()
        screenshot(page, "mcp-run")

    def test_a_long_session_shows_its_newest_steps_and_pages_back(self, page: Any, demo_workspace: Workspace) -> None:
        from django.contrib.auth import get_user_model

        admin = get_user_model().objects.get(username="admin")
        PRINCIPAL.set(Principal(admin.pk, Transport.HTTP))
        ws = str(demo_workspace.id)
        session = call(search_claims, workspace_id=ws, query="launch", limit=2)["session"]
        for n in range(2, 206):
            call(search_claims, workspace_id=ws, query=f"launch {n}", limit=2, session=session)

        page.goto(f"/w/{ws}/ask/")
        page.locator("tr", has_text="MCP session").get_by_role("link").click()
        page.wait_for_url("**/runs/*/")
        paging = page.locator(".steps-paging")
        assert "Steps 6–205 of 205." in paging.inner_text()
        assert page.locator(".trajectory > li").count() == 200
        # The top of the page only: its 200 steps make a full-page picture too tall to read.
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "mcp-run-newest-steps.png"))
        paging.get_by_role("link", name="Earlier steps").click()
        page.wait_for_url("**/runs/*/?before=6")
        assert "Steps 1–5 of 205." in page.locator(".steps-paging").inner_text()
        assert page.locator(".trajectory > li").count() == 5
        screenshot(page, "mcp-run-earlier-steps")
