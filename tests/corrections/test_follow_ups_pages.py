"""The pages of follow-ups (issue 26): the correction preview lists what was already acted on, the review queue's
"Already acted on" section plans a follow-up or says none is needed, the action page shows its follow-up state, and
the dashboard counts them."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import api_for, client_for
from tests.corrections.conftest import World
from tests.corrections.test_follow_ups import Story, action, corrected, mark
from tests.corrections.test_pages import preview_over_htmx, words
from workspaces.models import AuditEvent

pytestmark = pytest.mark.django_db


def answer(world: World, action_id: str, data: dict[str, Any], user: Any = None) -> Any:
    return client_for(user or world.trio.reviewer).post(f"/w/{world.ws}/review/acted-on/{action_id}", data)


class PreviewPageTests:
    def test_the_preview_lists_what_was_already_acted_on_with_when_and_who(self, world: World) -> None:
        story = Story(world)
        fragment = words_of(preview_over_htmx(world, world.june))
        assert "Already acted on (1)" in fragment
        assert "Already acted on: Send the launch announcement — done on " in fragment and " by rita" in fragment
        assert "Brief Ana" not in fragment and story.unrelated


def words_of(html_text: str) -> str:
    class Page:
        content = html_text.encode()

    return words(Page())


class ReviewQueueTests:
    def test_the_section_lists_the_done_action_its_decision_and_what_changed(self, world: World) -> None:
        story, _ = corrected(world)
        page = words(client_for(world.trio.viewer).get(f"/w/{world.ws}/review/"))
        assert "Already acted on (1)" in page
        assert "Send the launch announcement done follow-up needed" in page
        assert "What changed: Lost its last support when a reviewer corrected" in page
        # A viewer reads it but has no forms.
        assert "Plan the follow-up" not in page and story.announce
        reviewer = words(client_for(world.trio.reviewer).get(f"/w/{world.ws}/review/"))
        assert "Plan the follow-up" in reviewer and "None of its decisions holds now" in reviewer

    def test_a_reviewer_plans_a_follow_up_on_the_chosen_decision(self, world: World) -> None:
        story, _ = corrected(world)
        response = answer(world, story.announce, {"answer": "plan", "title": "Tell the press",
                                                  "decision_ids": [story.other]})  # fmt: skip
        assert response.status_code == 302 and response["Location"].endswith("/review/#acted-on")
        assert action(world, story.announce)["follow_up"] == "planned"
        follow = AuditEvent.objects.get(verb="action.follow_up_planned").payload["follow_up_id"]
        page = words(client_for(world.trio.viewer).get(f"/w/{world.ws}/actions/{follow}/"))
        assert "It follows up Send the launch announcement" in page
        original = words(client_for(world.trio.viewer).get(f"/w/{world.ws}/actions/{story.announce}/"))
        assert "follow-up planned Tell the press pending" in original
        mark(world, follow, "done")
        original = words(client_for(world.trio.viewer).get(f"/w/{world.ws}/actions/{story.announce}/"))
        assert "followed up Tell the press is done." in original

    def test_no_follow_up_needed_requires_a_reason_and_keeps_what_was_typed(self, world: World) -> None:
        story, _ = corrected(world)
        refused = answer(world, story.announce, {"answer": "not_needed", "reason": " "})
        assert refused.status_code == 422 and "Say why no follow-up is needed" in words(refused)
        assert action(world, story.announce)["follow_up"] == "needed"
        done = answer(world, story.announce, {"answer": "not_needed", "reason": "Nobody read it."})
        assert done.status_code == 302 and action(world, story.announce)["follow_up"] == "not_needed"
        page = words(client_for(world.trio.viewer).get(f"/w/{world.ws}/actions/{story.announce}/"))
        assert "no follow-up needed — “Nobody read it.”" in page
        again = answer(world, story.announce, {"answer": "plan", "title": "x", "decision_ids": [story.other]})
        assert again.status_code == 409 and "needs no follow-up" in words(again)

    def test_a_viewer_is_refused_and_an_outsider_sees_nothing(self, world: World) -> None:
        story, _ = corrected(world)
        data = {"answer": "not_needed", "reason": "Nobody read it."}
        assert answer(world, story.announce, data, world.trio.viewer).status_code == 403
        assert answer(world, story.announce, data, world.trio.outsider).status_code == 404
        assert client_for(world.trio.outsider).get(f"/w/{world.ws}/review/").status_code == 404
        assert action(world, story.announce)["follow_up"] == "needed"
        assert answer(world, story.announce, data, world.trio.owner).status_code == 302


class CountPageTests:
    def test_the_dashboard_and_the_menu_count_them(self, world: World) -> None:
        corrected(world)
        page = words(client_for(world.trio.viewer).get(f"/w/{world.ws}/"))
        assert "1 done action needs a follow-up" in page
        review = api_for(world.trio.viewer).get(f"/workspaces/{world.ws}/review").json()
        assert len(review["acted_on"]) == 1


class RevisedTests:
    def test_after_a_revision_the_section_offers_the_decision_that_now_holds(self, world: World) -> None:
        story, _ = corrected(world)
        revised = api_for(world.trio.reviewer).post(
            f"/workspaces/{world.ws}/decisions/{story.launch}/revise",
            {"title": "Launch in July", "justifications": [[world.ana]], "actions": "move"},
        )
        assert revised.status_code == 201, revised.content
        page = client_for(world.trio.reviewer).get(f"/w/{world.ws}/review/").content.decode()
        assert f'name="decision_ids" value="{revised.json()["id"]}" checked> Launch in July' in page


class TimelineTests:
    def test_the_timeline_and_the_action_page_say_what_became_of_its_follow_up(self, world: World) -> None:
        story, _ = corrected(world)
        timeline = words(client_for(world.trio.viewer).get(f"/w/{world.ws}/timeline/"))
        assert "follow-up needed; still done" in timeline
        page = words(client_for(world.trio.viewer).get(f"/w/{world.ws}/actions/{story.announce}/"))
        assert "stayed done; follow-up needed, " in page


class CorrectionPageTests:
    def test_the_correction_page_names_what_it_marked_as_already_acted_on(self, world: World) -> None:
        _, applied = corrected(world)
        page = words(client_for(world.trio.viewer).get(f"/w/{world.ws}/corrections/{applied['correction_id']}/"))
        assert "Already acted on (marked as needing a follow-up): Send the launch announcement" in page
