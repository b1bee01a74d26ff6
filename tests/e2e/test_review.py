"""The review page in a browser: the issue's case 1 (after June → July nothing is chosen for the reviewer,
who picks a claim through the picker and revises the decision) and case 4 (an unanswered question in
its own part, question first)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from agents.services import decisions as agents_services
from claims.graph import search as search_graph
from config.demo import demo_load
from tests.conftest import MakeUser
from tests.e2e.conftest import log_in, preview_correction, screenshot, settled
from tests.e2e.test_csp import WATCH_VIOLATIONS, Watch
from workspaces.models import Workspace

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def watch(page: Any, live_server: Any) -> Iterator[Watch]:
    page.context.add_init_script(WATCH_VIOLATIONS)
    yield Watch(page, live_server.url)


def correct_june_to_july(page: Any, workspace_id: Any, june_id: str) -> None:
    """The correction, through its page: preview, then apply."""
    page.goto(f"/w/{workspace_id}/claims/{june_id}/correct")
    preview_correction(
        page, "The product launch is in July.", "The board moved the launch on 2 April.", wait_for="#impact"
    )
    page.get_by_role("button", name="Apply the correction").click()
    page.wait_for_url("**/corrections/*/")


class ReviewPageTests:
    def test_case_1_nothing_is_chosen_the_reviewer_picks_and_revises(
        self, page: Any, watch: Watch, live_server: Any, make_user: MakeUser
    ) -> None:
        admin = make_user("admin", is_staff=True, is_superuser=True)
        workspace = demo_load(owner=admin)
        assert workspace is not None
        june = search_graph.claim_search_phrase(workspace=workspace, phrase="the product launch is in june", limit=1)[0]
        # The decision: it rests on the corrected claim alone.
        decision = agents_services.decision_add(
            workspace=workspace, title="The product launch is in June", rationale="The plan says so.",
            justifications=[[june.id]], actor=admin,
        )  # fmt: skip
        agents_services.action_add(
            workspace=workspace, title="Print the June launch flyers", decision_ids=[decision.id], actor=admin
        )
        log_in(page, live_server, admin)
        correct_june_to_july(page, workspace.id, june.id)

        watch.visit(f"/w/{workspace.id}/review/")
        item = page.locator(f"#decision-{decision.id}")
        assert "“The product launch is in June.” → “The product launch is in July.”" in item.inner_text()
        # The re-justify box is empty: nothing is chosen, and no field holds an id.
        chosen = item.locator("ul.chosen")
        assert chosen.locator("input[name=support_ids]").count() == 0
        assert "Nothing chosen yet" in chosen.inner_text()
        assert item.get_by_label("What is decided now").input_value() == ""
        assert "Suggested: the corrected statement “The product launch is in July.”" in item.inner_text()
        screenshot(page, "review-case1-nothing-chosen")

        # The fastest path, one click on Re-justify, cannot mark the June decision supported.
        item.get_by_role("button", name="Re-justify with the chosen claims").click()
        page.get_by_text("Choose the claims it rests on now").wait_for()
        assert "needs review" in page.locator(f"#decision-{decision.id}").inner_text()
        screenshot(page, "review-case1-refused-empty")
        watch.assert_clean()

        # Pick the July claim through the search-as-you-type picker, and revise the decision.
        watch.visit(f"/w/{workspace.id}/review/")
        item = page.locator(f"#decision-{decision.id}")
        item.get_by_label("Find the claims it rests on now").press_sequentially("in July", delay=30)
        # The newest claims are offered before typing; then the search's own results come.
        item.locator(".pick-caption", has_text="Claims matching “in July”").wait_for()
        results = item.locator(".pick-results li", has_text="The product launch is in July.")
        results.wait_for()
        assert "current" in results.inner_text() and "a reviewer's correction" in results.inner_text()
        superseded = item.locator(".pick-results li", has_text="The product launch is in June.")
        assert superseded.count() == 0 or "cannot support" in superseded.inner_text()
        screenshot(page, "review-case1-picker-results")
        results.get_by_role("button", name="Add").click()
        item.locator("ul.chosen li.chosen-item", has_text="The product launch is in July.").wait_for()
        settled(page)
        assert item.locator("ul.chosen input[name=support_ids]").count() == 1
        # Offered claims that are chosen now say so; the suggestion was the same claim.
        assert results.locator("[data-pick]").inner_text() == "Chosen"
        assert item.locator(".suggestion [data-pick]").inner_text() == "Chosen"
        item.get_by_label("What is decided now").fill("The product launch is in July")
        item.get_by_label("Move it to the new decision").check()
        screenshot(page, "review-case1-picked")
        watch.assert_clean()
        item.get_by_role("button", name="Revise").click()
        page.get_by_text(
            "Revised into “The product launch is in July”, now supported; 1 open action moved to it."
        ).wait_for()
        assert page.locator(f"#decision-{decision.id}").count() == 0

        page.goto(f"/w/{workspace.id}/decisions/{decision.id}/")
        notice = page.locator(".notice.superseded")
        assert "Revised by admin" in notice.inner_text()
        screenshot(page, "review-case1-old-decision")
        notice.get_by_role("link").click()
        page.wait_for_url("**/decisions/*/")
        assert page.locator("h1").inner_text() == "The product launch is in July"
        assert "This decision revises “The product launch is in June”" in page.locator(".notice.revises").inner_text()
        row = page.locator("tr", has_text="Print the June launch flyers")
        assert "pending" in row.inner_text()
        screenshot(page, "review-case1-new-decision")
        watch.assert_clean()

    def test_case_4_an_unanswered_question_in_its_own_part(
        self, page: Any, watch: Watch, demo_workspace: Workspace, no_llm: None
    ) -> None:
        workspace = demo_workspace
        page.goto(f"/w/{workspace.id}/ask/")
        page.get_by_label("Question").fill("What is the capital of France?")
        page.get_by_role("button", name="Ask").click()
        page.wait_for_url("**/runs/*/")
        page.locator("#run-body .badge", has_text="done").first.wait_for(timeout=30_000)

        watch.visit(f"/w/{workspace.id}/review/")
        unanswered = page.locator(".review-item", has_text="What is the capital of France?")
        unanswered.wait_for()
        assert unanswered.locator("h3").inner_text() == "“What is the capital of France?”"
        assert "Asked by admin" in unanswered.inner_text()
        # In its own part (after the suggested corrections), not among the decisions that lost their support.
        headings = page.locator("main h2, main .review-item h3").all_inner_texts()
        assert headings.index("“What is the capital of France?”") < headings.index("Lost their support (0)")
        assert headings[:2] == ["Suggested corrections (0)", "Unanswered questions (1)"]
        screenshot(page, "review-case4-unanswered")
        watch.assert_clean()

        # Dismiss asks first, in place; keeping it leaves it there.
        unanswered.get_by_role("button", name="Dismiss…").click()
        question = unanswered.get_by_role("alertdialog")
        question.wait_for()
        assert "Dismiss the question “What is the capital of France?”?" in question.inner_text()
        assert "It has no open actions." in question.inner_text()
        screenshot(page, "review-case4-dismiss-asks")
        watch.assert_clean()

        again = unanswered.get_by_role("link", name="Ask again").get_attribute("href")
        question.get_by_role("button", name="Dismiss it").click()
        page.get_by_text("Dismissed the question “What is the capital of France?”").wait_for()
        assert page.get_by_text("No unanswered questions.").is_visible()
        watch.assert_clean()

        # Asking again starts from the question.
        page.goto(again)
        assert page.get_by_label("Question").input_value() == "What is the capital of France?"
