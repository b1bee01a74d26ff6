"""The done action moves with its follow-up whatever cancels the follow-up (a person, a dismissal, a revision that
cancels): `needed` again, listed in "Already acted on" again, the change in its history; and a new loss of its
decision marks it `needed` again over any earlier answer, dropping the link to the old follow-up (docs/design.md,
Already acted on)."""

from __future__ import annotations

from typing import Any

import pytest

from afterhack.clock import now_iso
from afterhack.history_graph import node_changes
from agents.selectors import decisions as agents_selectors
from corrections import review
from tests.conftest import api_for
from tests.corrections.conftest import World
from tests.corrections.test_follow_ups import Story, action, corrected, follow_up, mark

pytestmark = pytest.mark.django_db


def acted_on(world: World, story: Story | None = None) -> list[str]:
    """The review queue's "Already acted on", without the story's Brief Ana (needed once Ana is corrected)."""
    queue = api_for(world.trio.viewer).get(f"/workspaces/{world.ws}/review").json()
    return [a["id"] for a in queue["acted_on"] if not story or a["id"] != story.unrelated]


def held_follow_up(world: World) -> tuple[Story, str]:
    """June → July marks the announcement needed; a follow-up planned on "Ana runs the launch"; then Ana is corrected,
    so that decision needs review and the follow-up is held."""
    story, _ = corrected(world)
    planned = follow_up(world, story.announce, {"title": "Tell the press", "decision_ids": [story.other]})
    assert planned.status_code == 201, planned.content
    fid = planned.json()["id"]
    assert action(world, story.announce)["follow_up"] == "planned" and acted_on(world) == []
    # Brief Ana (done on "Ana runs the launch") is needed from now on: the announcement is what comes and goes.
    prev = world.preview(world.ana, "Bo owns the checklist.").json()
    assert world.apply(world.ana, prev["revision"], key="k2").status_code == 201
    assert action(world, fid)["status"] == "held"
    return story, fid


def revise_other(world: World, story: Story, actions: str) -> Any:
    """Revises "Ana runs the launch" (flagged), its open actions (the follow-up among them) cancelled or moved."""
    revised = api_for(world.trio.reviewer).post(
        f"/workspaces/{world.ws}/decisions/{story.other}/revise",
        {"title": "Bo runs the launch", "justifications": [[world.may]], "actions": actions},
    )
    assert revised.status_code == 201, revised.content
    return revised


def followed_change(world: World, action_id: str) -> Any:
    latest = node_changes(workspace=world.trio.workspace, node_id=action_id)[0]
    assert (latest.from_status, latest.to_status, latest.follow_up) == ("done", "done", "needed")
    return latest


class CancelledTests:
    def test_a_dismissal_that_cancels_the_follow_up_makes_it_needed_again(self, world: World) -> None:
        story, fid = held_follow_up(world)
        review.decision_dismiss(workspace=world.trio.workspace, decision_id=story.other, actor=world.trio.reviewer)
        assert action(world, fid)["status"] == "cancelled"
        assert action(world, story.announce)["follow_up"] == "needed"
        assert acted_on(world, story) == [story.announce]
        assert followed_change(world, story.announce).cause == {"kind": "dismissal", "id": story.other}

    def test_a_revision_that_cancels_the_follow_up_makes_it_needed_again(self, world: World) -> None:
        story, fid = held_follow_up(world)
        revised = revise_other(world, story, "cancel")
        assert action(world, fid)["status"] == "cancelled"
        assert action(world, story.announce)["follow_up"] == "needed"
        assert acted_on(world, story) == [story.announce]
        assert followed_change(world, story.announce).cause == {"kind": "revision", "id": revised.json()["id"]}

    def test_a_revision_that_moves_the_follow_up_keeps_it_planned_and_done_with_it(self, world: World) -> None:
        story, fid = held_follow_up(world)
        revise_other(world, story, "move")
        assert action(world, fid)["status"] == "pending"
        assert action(world, story.announce)["follow_up"] == "planned"
        mark(world, fid, "done")
        assert action(world, story.announce)["follow_up"] == "done"

    def test_a_person_cancelling_and_reopening_it_moves_the_done_action_back_and_forth(self, world: World) -> None:
        story, _ = corrected(world)
        fid = follow_up(world, story.announce, {"title": "Tell the press", "decision_ids": [story.other]}).json()["id"]
        mark(world, fid, "cancelled")
        assert action(world, story.announce)["follow_up"] == "needed" and acted_on(world) == [story.announce]
        mark(world, fid, "pending")
        assert action(world, story.announce)["follow_up"] == "planned" and acted_on(world) == []


class NewLossTests:
    """A done action whose decision loses its support again, after a reviewer answered the first loss."""

    def planned_then_lost_again(self, world: World) -> tuple[Story, str, str]:
        story, _ = corrected(world)
        rejustified = api_for(world.trio.reviewer).post(
            f"/workspaces/{world.ws}/decisions/{story.launch}/justifications", {"justifications": [[world.ana]]}
        )
        assert rejustified.status_code == 200, rejustified.content
        marketing = world.decision("Marketing in May", [world.may])
        fid = follow_up(world, story.announce, {"title": "Tell the press", "decision_ids": [marketing]}).json()["id"]
        planned = now_iso()
        prev = world.preview(world.ana, "Bo owns the checklist.").json()
        assert story.announce in prev["affected"]["actions_already_done"]
        assert world.apply(world.ana, prev["revision"], key="k2").status_code == 201
        return story, fid, planned

    def test_it_is_needed_again_and_its_old_follow_up_no_longer_completes_it(self, world: World) -> None:
        story, fid, planned = self.planned_then_lost_again(world)
        announce = agents_selectors.action_get(workspace=world.trio.workspace, action_id=story.announce)
        assert announce is not None and (announce.follow_up, announce.follow_up_id) == ("needed", None)
        assert acted_on(world, story) == [story.announce]
        assert action(world, fid)["status"] == "pending"
        mark(world, fid, "done")
        assert action(world, story.announce)["follow_up"] == "needed"
        then = agents_selectors.action_get(workspace=world.trio.workspace, action_id=story.announce, as_of=planned)
        assert then is not None and (then.follow_up, then.follow_up_id) == ("planned", fid)

    def test_an_answer_of_no_follow_up_needed_is_dropped_with_its_reason(self, world: World) -> None:
        story, _ = corrected(world)
        api_for(world.trio.reviewer).post(
            f"/workspaces/{world.ws}/decisions/{story.launch}/justifications", {"justifications": [[world.ana]]}
        )
        assert follow_up(world, story.announce, {"not_needed": True, "reason": "Nobody read it."}).status_code == 200
        answered = now_iso()
        prev = world.preview(world.ana, "Bo owns the checklist.").json()
        assert world.apply(world.ana, prev["revision"], key="k2").status_code == 201
        announce = agents_selectors.action_get(workspace=world.trio.workspace, action_id=story.announce)
        assert announce is not None and (announce.follow_up, announce.follow_up_reason) == ("needed", None)
        then = agents_selectors.action_get(workspace=world.trio.workspace, action_id=story.announce, as_of=answered)
        assert then is not None and (then.follow_up, then.follow_up_reason) == ("not_needed", "Nobody read it.")
