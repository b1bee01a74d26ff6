"""Already acted on, in a browser (issue 26): the correction's preview lists the done announcement, Apply marks it,
and the reviewer plans its follow-up from the review queue, on the decision that now holds."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from agents.graph import actions as actions_graph
from claims.graph import search as search_graph
from config.demo import demo_load
from tests.conftest import MakeUser
from tests.e2e.conftest import log_in, preview_correction, screenshot, settled
from tests.e2e.test_csp import WATCH_VIOLATIONS, Watch

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def watch(page: Any, live_server: Any) -> Iterator[Watch]:
    page.context.add_init_script(WATCH_VIOLATIONS)
    yield Watch(page, live_server.url)


class AlreadyActedOnTests:
    def test_the_preview_names_it_apply_marks_it_and_the_reviewer_plans_the_follow_up(
        self, page: Any, watch: Watch, live_server: Any, make_user: MakeUser
    ) -> None:
        admin = make_user("ana", is_staff=True, is_superuser=True)
        workspace = demo_load(owner=admin)
        assert workspace is not None
        june = search_graph.claim_search_phrase(workspace=workspace, phrase="the product launch is in june", limit=1)[0]
        # The demo's announcement went out on “Announce the June launch”, which rests on the plan's June alone.
        announce = next(a for a in actions_graph.action_list(workspace=workspace, status="done"))
        assert announce.title == "Send the launch announcement"
        decision = announce.decision_ids[0]
        log_in(page, live_server, admin)

        page.goto(f"/w/{workspace.id}/claims/{june.id}/correct")
        preview_correction(
            page, "The product launch is in July.", "The board moved the launch on 2 April.", wait_for="#already-done"
        )
        listed = page.locator("#already-done")
        assert "Already acted on: Send the launch announcement — done on " in listed.inner_text()
        assert "by ana" in listed.inner_text()
        listed.scroll_into_view_if_needed()
        screenshot(page, "follow-ups-preview")
        page.get_by_role("button", name="Apply the correction").click()
        page.wait_for_url("**/corrections/*/")

        watch.visit(f"/w/{workspace.id}/review/#acted-on")
        item = page.locator(f"#acted-on-{announce.id}")
        assert "What changed: Lost its last support when a reviewer corrected" in item.inner_text()
        assert "None of its decisions holds now" in item.inner_text()
        screenshot(page, "follow-ups-review-queue")
        # Revise the decision first, then the follow-up rests on the decision that now holds.
        july = search_graph.claim_search_phrase(workspace=workspace, phrase="the product launch is in july", limit=1)
        from corrections import review

        review.decision_revise(
            workspace=workspace, decision_id=decision, title="The product launch is in July", rationale="",
            justifications=[[july[0].id]], actions="move", actor=admin,
        )  # fmt: skip
        # The same address: a reload (a change of fragment alone would not load the page again).
        page.reload()
        page.wait_for_load_state("networkidle")
        item = page.locator(f"#acted-on-{announce.id}")
        assert "The product launch is in July" in item.locator("label.check").inner_text()
        item.get_by_label("What to do now").fill("Send a correction to the announcement")
        screenshot(page, "follow-ups-review-queue-revised")
        item.get_by_role("button", name="Plan the follow-up").click()
        settled(page)
        page.wait_for_selector("text=Follow-up planned")
        assert page.locator(f"#acted-on-{announce.id}").count() == 0
        watch.visit(f"/w/{workspace.id}/actions/{announce.id}/")
        assert "follow-up planned" in page.locator("#follow-up").inner_text()
        screenshot(page, "follow-ups-action")
        watch.assert_clean()
