"""Agents' claims may need approval, in a browser: the admin turns the setting on in the members page's Settings; an
agent proposes claims over MCP (a live /mcp with its token); the reviewer finds them in the review queue's section
"Claims proposed by agents" and in search, each with its "proposed" badge, cannot rest a decision on one (refused in
words), approves one, rejects one with a reason and approves the rest at once; each claim's page and the workspace's
activity say what became of it. A model's extraction waits too, and the selected claims are rejected or approved;
without JavaScript every button still works. Screenshots at 1280 and 390 px."""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks.llm_server import json_reply
from claims.services import claims as claims_services
from tests.e2e.conftest import ARTIFACTS, log_in, screenshot
from tests.e2e.test_picker import claim_id, search
from tests.mcp_server.conftest import Agent, http_agent, mcp_url
from workspaces.models import Workspace
from workspaces.services import memberships as membership_services
from workspaces.services import tokens as token_services

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

__all__ = ["mcp_url"]  # fixtures

EMAIL = """From: Ana Costa
Subject: Launch update

The payment provider's certification slipped, so the product launch is in July.
The launch party is on 14 July at Hall C. Northwind will move its warehouse rollout to August.
The press kit goes out on 1 July.
"""
# What the agent proposes from the email: (statement, its exact quote).
JULY = ("The product launch is in July.", "the product launch is in July")
PARTY = ("The launch party is on 14 July.", "The launch party is on 14 July at Hall C")
ROLLOUT = ("Northwind moves its warehouse rollout to August.", "Northwind will move its warehouse rollout to August")
PRESS = ("The press kit goes out on 1 July.", "The press kit goes out on 1 July")
PROPOSALS = (JULY, PARTY, ROLLOUT, PRESS)


def both_widths(page: Any, name: str) -> None:
    """Full-page screenshots at the desktop width and at a phone's 390 px (test-artifacts/<name>[-390].png)."""
    screenshot(page, name)
    size = page.viewport_size
    page.set_viewport_size({"width": 390, "height": 844})
    screenshot(page, f"{name}-390")
    page.set_viewport_size(size)


def section_shots(page: Any, name: str) -> None:
    """The section "Claims proposed by agents" alone, at both widths (test-artifacts/<name>[-390].png)."""
    ARTIFACTS.mkdir(exist_ok=True)
    size = page.viewport_size
    for width, suffix in ((size["width"], ""), (390, "-390")):
        page.set_viewport_size({"width": width, "height": 844})
        page.locator("#proposed").screenshot(path=str(ARTIFACTS / f"{name}{suffix}.png"))
    page.set_viewport_size(size)


@pytest.fixture
def scout(demo_workspace: Workspace, make_user: Any, mcp_url: str) -> Agent:
    """An outside agent with its own account (a reviewer of the demo workspace) and API token, over MCP."""
    admin = demo_workspace.memberships.get(role="admin").user
    account = make_user("scout")
    membership_services.member_add(workspace=demo_workspace, username="scout", role="reviewer", actor=admin)
    return http_agent(mcp_url, token_services.token_issue(user=account)[1])


def propose_all(agent: Agent, ws: str) -> dict[str, str]:
    """The agent adds Ana's email and proposes each claim of PROPOSALS from it; their ids by statement."""
    added = agent.call("add_source", workspace_id=ws, title="Email from Ana: launch update", text=EMAIL)
    ids = {}
    for statement, quote in PROPOSALS:
        proposed = agent.call("propose_claim", workspace_id=ws, source_id=added["source_id"], statement=statement,
                              evidence_quote=quote)  # fmt: skip
        assert not proposed.is_error, proposed.body
        assert proposed["claim_status"] == "proposed" and "approved" in proposed["note"], proposed.body
        ids[statement] = proposed["claim_id"]
    return ids


def status_of(workspace: Workspace, claim: str) -> str:
    return str(claims_services.claim_required(workspace, claim).status)


def row(page: Any, statement: str) -> Any:
    """The row of the review queue's section "Claims proposed by agents" that proposes this statement."""
    return page.locator("#proposed tbody tr", has_text=statement)


def said(page: Any) -> str:
    """The page's messages (what the last form did), in words."""
    return " ".join(page.locator(".message").all_inner_texts())


class AgentClaimApprovalTests:
    def test_the_admin_turns_it_on_and_a_reviewer_decides_an_agents_claims(
        self, page: Any, demo_workspace: Workspace, scout: Agent
    ) -> None:
        workspace = demo_workspace
        ws = str(workspace.id)
        # The admin turns the setting on in the members page's Settings.
        page.goto(f"/w/{ws}/members/")
        box = page.locator("#workspace-settings").get_by_label("Agents' claims need a reviewer's approval")
        assert not box.is_checked()
        box.check()
        page.locator("#workspace-settings").get_by_role("button", name="Save settings").click()
        page.get_by_text("Settings saved.").wait_for()
        assert box.is_checked()
        # The box sits at the start of its words, on their line (not centred above them).
        checkbox, label = box.bounding_box(), box.locator("xpath=ancestor::label").bounding_box()
        assert abs(checkbox["x"] - label["x"]) < 8 and checkbox["height"] > label["height"] / 2, (checkbox, label)
        both_widths(page, "approval-settings")

        # An agent proposes four claims from an email over MCP: each waits, and the agent is told so.
        ids = propose_all(scout, ws)
        assert {status_of(workspace, i) for i in ids.values()} == {"proposed"}
        # It finds and reads one, but cannot rest a decision on it: the claim is dropped, in words.
        found = scout.call("search_claims", workspace_id=ws, query="launch July")
        assert {"claim_id": ids[JULY[0]], "status": "proposed"}.items() <= found["results"][0].items()
        scout.call("get_fragment", workspace_id=ws, claim_id=ids[JULY[0]])
        refused = scout.call("record_decision", workspace_id=ws, title="Move the launch party",
                             justifications=[[ids[JULY[0]]]])  # fmt: skip
        assert refused["kept"] == [] and "not approved" in refused["dropped"][0]["why"]

        page.goto(f"/w/{ws}/")
        both_widths(page, "approval-dashboard")
        # The review queue says they wait, and lists them with their badge, quote and agent.
        page.goto(f"/w/{ws}/review/")
        intro = page.locator("main > p.muted").first
        assert "Claims proposed by agents (4)" in intro.inner_text()
        assert page.get_by_text("Nothing needs review.").count() == 0
        for statement, quote in PROPOSALS:
            proposed = row(page, statement)
            assert proposed.locator(".badge.st-proposed").inner_text() == "proposed (awaiting approval)"
            assert quote in proposed.locator("q").inner_text() and "by scout" in proposed.inner_text()
        both_widths(page, "approval-queue")
        section_shots(page, "approval-queue-section")
        # On a phone each waiting claim is a card: nothing wider than the screen, no word broken letter by letter.
        page.set_viewport_size({"width": 390, "height": 844})
        assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
        page.set_viewport_size({"width": 1280, "height": 800})

        # Search finds them, each with its badge.
        page.goto(f"/w/{ws}/claims/?q=July")
        for statement in (JULY[0], PARTY[0], PRESS[0]):
            hit = page.locator("table.list tbody tr", has_text=statement)
            assert hit.locator(".badge.st-proposed").inner_text() == "proposed (awaiting approval)"
        both_widths(page, "approval-search")

        # A decision cannot rest on one: the picker says why it offers no Add, and the id typed by hand is refused.
        page.goto(f"/w/{ws}/decisions/")
        form = page.locator("#new-decision")
        form.get_by_label("Title").fill("Move the launch party to July")
        picker = page.locator("#justification-1 .picker").first
        search(picker, "launch is in July")
        found = picker.locator(".pick-results li", has_text=JULY[0])
        assert "cannot support: it is proposed (awaiting approval)" in found.inner_text()
        assert found.get_by_role("button", name="Add").count() == 0
        screenshot(page, "approval-decision-picker")
        form.locator("summary", has_text="ids").click()
        form.get_by_label("Ids of claims or decisions").fill(ids[JULY[0]])
        form.get_by_role("button", name="Create decision").click()
        refusal = page.locator("#new-decision .error")
        refusal.wait_for()
        assert "not approved it yet" in refusal.inner_text() and "cannot be cited" in refusal.inner_text()
        both_widths(page, "approval-decision-refused")

        # The reviewer approves one...
        page.goto(f"/w/{ws}/review/#proposed")
        row(page, JULY[0]).get_by_role("button", name="Approve").click()
        page.wait_for_url("**/review/#proposed")
        assert "1 claim approved." in said(page) and row(page, JULY[0]).count() == 0
        assert status_of(workspace, ids[JULY[0]]) == "current"
        # ...rejects one with a reason (Enter in the reason rejects that claim, not the first row's Approve)...
        press = row(page, PRESS[0])
        press.locator("summary", has_text="Reject…").click()
        reason = press.get_by_label("Why (optional)")
        reason.fill("The press date is not set yet.")
        section_shots(page, "approval-queue-rejecting")
        reason.press("Enter")
        page.wait_for_url("**/review/#proposed")
        assert "1 claim rejected." in said(page) and row(page, PRESS[0]).count() == 0
        assert status_of(workspace, ids[PRESS[0]]) == "rejected"
        assert {status_of(workspace, ids[s]) for s in (PARTY[0], ROLLOUT[0])} == {"proposed"}
        # ...and approves the rest at once.
        page.get_by_role("button", name="Approve all 2 listed").click()
        page.wait_for_url("**/review/#proposed")
        assert "2 claims approved." in said(page)
        assert page.locator("#proposed").get_by_text("No claims wait for approval.").is_visible()
        assert {status_of(workspace, ids[s]) for s in (PARTY[0], ROLLOUT[0])} == {"current"}
        both_widths(page, "approval-queue-done")

        # Each claim's page says what became of it.
        page.goto(f"/w/{ws}/claims/{ids[JULY[0]]}/")
        assert page.locator("main .badge.st-current").first.is_visible()
        assert "Proposed by an agent" not in page.locator("main").inner_text()
        both_widths(page, "approval-claim-approved")
        page.goto(f"/w/{ws}/claims/{ids[PRESS[0]]}/")
        assert "a reviewer turned it down" in page.locator("main .notice").inner_text()
        history = page.locator("ul.history").first.inner_text()
        assert f"admin rejected the agent's claim “{PRESS[0]}”, saying why: “The press date is not set yet.”" in history
        both_widths(page, "approval-claim-rejected")
        # And the workspace's activity: who approved what, and who turned down what.
        page.goto(f"/w/{ws}/activity/")
        activity = page.locator("main table").inner_text()
        for statement in (JULY[0], PARTY[0], ROLLOUT[0]):
            assert f"approved the agent's claim “{statement}”" in activity
        assert f"rejected the agent's claim “{PRESS[0]}”" in activity
        both_widths(page, "approval-activity")
        both_widths(page, "approval-activity")

    def test_a_models_extraction_waits_and_the_selected_ones_are_rejected_or_approved(
        self, page: Any, demo_workspace: Workspace, llm: Any
    ) -> None:
        workspace = demo_workspace
        ws = str(workspace.id)
        Workspace.objects.filter(pk=workspace.pk).update(agent_claims_need_approval=True)
        llm.script(json_reply({"claims": [
            {"statement": JULY[0], "evidence_quote": JULY[1]}, {"statement": PRESS[0], "evidence_quote": PRESS[1]},
        ]}))  # fmt: skip
        # A reviewer adds Ana's email and has the model extract its claims at once: they wait.
        page.goto(f"/w/{ws}/sources/new")
        page.get_by_label("Title").fill("Email from Ana: launch update")
        page.get_by_label("Text").fill(EMAIL)
        page.get_by_label("Extract its claims now").check()
        page.get_by_role("button", name="Add source").click()
        page.get_by_role("heading", name="Email from Ana: launch update").wait_for()
        page.reload()
        both_widths(page, "approval-extracted-source")
        page.goto(f"/w/{ws}/review/#proposed")
        assert {row(page, s).locator(".badge.st-proposed").count() for s in (JULY[0], PRESS[0])} == {1}
        assert "by the model scripted-model," in row(page, JULY[0]).inner_text()
        section_shots(page, "approval-queue-extracted")
        row(page, PRESS[0]).get_by_role("checkbox").check()
        page.get_by_role("button", name="Reject selected").click()
        page.wait_for_url("**/review/#proposed")
        assert "1 claim rejected." in said(page)
        row(page, JULY[0]).get_by_role("checkbox").check()
        page.get_by_role("button", name="Approve selected").click()
        page.wait_for_url("**/review/#proposed")
        assert "1 claim approved." in said(page)
        assert status_of(workspace, claim_id(workspace, JULY[0])) == "current"
        assert status_of(workspace, claim_id(workspace, PRESS[0])) == "rejected"


class WithoutJavaScriptTests:
    def test_the_setting_approve_and_reject_with_a_reason_are_plain_forms(
        self, browser: Any, live_server: Any, demo_workspace: Workspace, scout: Agent
    ) -> None:
        context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
        page = context.new_page()
        page.set_default_timeout(15_000)
        workspace = demo_workspace
        ws = str(workspace.id)
        log_in(page, live_server, workspace.memberships.get(role="admin").user)
        page.goto(f"/w/{ws}/members/")
        page.get_by_label("Agents' claims need a reviewer's approval").check()
        page.get_by_role("button", name="Save settings").click()
        page.get_by_text("Settings saved.").wait_for()
        ids = propose_all(scout, ws)
        page.goto(f"/w/{ws}/review/")
        row(page, PARTY[0]).get_by_role("button", name="Approve").click()
        page.get_by_text("1 claim approved.").wait_for()
        press = row(page, PRESS[0])
        press.locator("summary", has_text="Reject…").click()
        press.get_by_label("Why (optional)").fill("Not decided yet.")
        press.get_by_role("button", name="Reject it").click()
        page.get_by_text("1 claim rejected.").wait_for()
        screenshot(page, "approval-queue-without-javascript")
        assert status_of(workspace, ids[PARTY[0]]) == "current" and status_of(workspace, ids[PRESS[0]]) == "rejected"
        assert {status_of(workspace, ids[s]) for s in (JULY[0], ROLLOUT[0])} == {"proposed"}
        context.close()
