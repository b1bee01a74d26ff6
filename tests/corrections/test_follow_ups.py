"""Done actions that rested on a corrected belief (issue 26): a correction, a retraction, a new version or a
dismissal marks them follow_up needed in the same write; the preview lists exactly them; a reviewer plans a follow-up
or says none is needed; the counts, the history and the past show it."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pytest

from afterhack.clock import now_iso
from afterhack.history_graph import node_changes
from corrections import review
from tests.conftest import api_for
from tests.corrections.conftest import World
from workspaces.models import AuditEvent

pytestmark = pytest.mark.django_db


def action(world: World, action_id: str, **query: str) -> dict[str, Any]:
    suffix = "?" + urlencode(query) if query else ""
    response = api_for(world.trio.viewer).get(f"/workspaces/{world.ws}/actions/{action_id}{suffix}")
    assert response.status_code == 200, response.content
    return dict(response.json())


def mark(world: World, action_id: str, status: str) -> None:
    response = api_for(world.trio.reviewer).post(
        f"/workspaces/{world.ws}/actions/{action_id}/status", {"status": status}
    )
    assert response.status_code == 200, response.content


def follow_up(world: World, action_id: str, body: dict[str, Any], user: Any = None) -> Any:
    return api_for(user or world.trio.reviewer).post(f"/workspaces/{world.ws}/actions/{action_id}/follow-up", body)


def source_of(world: World, claim_id: str) -> str:
    return str(api_for(world.trio.viewer).get(f"/workspaces/{world.ws}/claims/{claim_id}").json()["source_id"])


class Story:
    """June is corrected to July: the announcement was already sent (done), the booking still pending."""

    def __init__(self, world: World) -> None:
        self.launch = world.decision("Launch in June", [world.june])
        self.other = world.decision("Ana runs the launch", [world.ana])
        self.announce = world.action("Send the launch announcement", self.launch)
        self.booking = world.action("Book the venue", self.launch)
        self.unrelated = world.action("Brief Ana", self.other)
        mark(world, self.announce, "done")
        mark(world, self.unrelated, "done")


def corrected(world: World) -> tuple[Story, dict[str, Any]]:
    story = Story(world)
    preview = world.preview(world.june).json()
    applied = world.apply(world.june, preview["revision"])
    assert applied.status_code == 201, applied.content
    return story, applied.json()


class ApplyTests:
    def test_the_preview_lists_exactly_the_done_actions_and_apply_marks_them_needed(self, world: World) -> None:
        story = Story(world)
        preview = world.preview(world.june).json()
        assert preview["affected"]["actions_already_done"] == [story.announce]
        assert preview["affected"]["actions_held"] == [story.booking]
        applied = world.apply(world.june, preview["revision"]).json()
        assert applied["affected"] == preview["affected"]
        announce = action(world, story.announce)
        assert announce["status"] == "done" and announce["follow_up"] == "needed"
        assert action(world, story.unrelated)["follow_up"] is None
        assert action(world, story.booking) | {"origin": None} == {
            "id": story.booking, "title": "Book the venue", "status": "held", "decision_ids": [story.launch],
            "origin": None, "follow_up": None,
        }  # fmt: skip
        event = AuditEvent.objects.get(verb="correction.applied")
        assert event.payload["affected"]["actions_already_done"] == [story.announce]
        assert event.payload["impact"]["actions_already_done"] == [
            {"id": story.announce, "title": "Send the launch announcement"}
        ]

    def test_an_action_done_after_the_preview_makes_the_apply_stale(self, world: World) -> None:
        story = Story(world)
        preview = world.preview(world.june).json()
        mark(world, story.booking, "done")
        stale = world.apply(world.june, preview["revision"])
        assert stale.status_code == 409 and stale.json()["error"] == "stale_correction_preview"
        assert action(world, story.booking)["follow_up"] is None
        again = world.preview(world.june).json()
        assert again["affected"]["actions_already_done"] == sorted([story.announce, story.booking])
        assert world.apply(world.june, again["revision"]).status_code == 201
        assert action(world, story.booking)["follow_up"] == "needed"

    def test_the_change_is_in_the_history_and_the_past(self, world: World) -> None:
        story = Story(world)
        before = now_iso()
        applied = world.apply(world.june, world.preview(world.june).json()["revision"]).json()
        changes = node_changes(workspace=world.trio.workspace, node_id=story.announce)
        latest = changes[0]
        assert (latest.from_status, latest.to_status, latest.cause) == (
            "done", "done", {"kind": "correction", "id": applied["correction_id"]},
        )  # fmt: skip
        assert action(world, story.announce, as_of=before)["follow_up"] is None
        assert action(world, story.announce)["follow_up"] == "needed"


class EvidenceTests:
    def test_a_retraction_marks_the_done_actions_and_its_audit_names_them(self, world: World) -> None:
        story = Story(world)
        response = api_for(world.trio.reviewer).post(
            f"/workspaces/{world.ws}/sources/{source_of(world, world.june)}/retract"
        )
        assert response.status_code == 200, response.content
        assert sorted(response.json()["affected"]["actions_already_done"]) == sorted([story.announce, story.unrelated])
        assert action(world, story.announce)["follow_up"] == "needed"
        event = AuditEvent.objects.get(verb="source.retracted")
        assert sorted(event.payload["affected"]["actions_already_done"]) == sorted([story.announce, story.unrelated])

    def test_a_new_version_marks_the_done_actions_of_the_claims_it_loses(self, world: World) -> None:
        story = Story(world)
        new_text = "Launch plan\n\nAna owns the checklist. The launch is in July. Marketing starts in May.\n"
        response = api_for(world.trio.reviewer).post(
            f"/workspaces/{world.ws}/sources/{source_of(world, world.june)}/versions", {"text": new_text}
        )
        assert response.status_code == 201, response.content
        assert response.json()["affected"]["actions_already_done"] == [story.announce]
        assert action(world, story.announce)["follow_up"] == "needed"
        assert action(world, story.unrelated)["follow_up"] is None
        event = AuditEvent.objects.get(verb="source.versioned")
        assert event.payload["affected"]["actions_already_done"] == [story.announce]


class DismissalTests:
    def test_a_dismissal_keeps_the_reviewers_answer_and_marks_only_done_actions_without_one(self, world: World) -> None:
        story, _ = corrected(world)
        assert follow_up(world, story.announce, {"not_needed": True, "reason": "Sent to nobody."}).status_code == 200
        review.decision_dismiss(workspace=world.trio.workspace, decision_id=story.launch, actor=world.trio.reviewer)
        assert action(world, story.announce)["follow_up"] == "not_needed"
        event = AuditEvent.objects.get(verb="decision.dismissed")
        assert event.payload["actions_already_done"] == [] and event.payload["cancelled"] == [story.booking]


class FollowUpTests:
    def test_a_follow_up_is_planned_on_the_decision_that_now_holds_and_done_with_it(self, world: World) -> None:
        story, _ = corrected(world)
        revised = api_for(world.trio.reviewer).post(
            f"/workspaces/{world.ws}/decisions/{story.launch}/revise",
            {"title": "Launch in July", "justifications": [[world.ana]], "actions": "move"},
        )
        assert revised.status_code == 201, revised.content
        july = revised.json()["id"]
        planned = follow_up(world, story.announce, {"title": "Send a correction to the announcement"})
        assert planned.status_code == 201, planned.content
        body = planned.json()
        assert body["status"] == "pending" and body["decision_ids"] == [july] and body["follow_up"] is None
        assert action(world, story.announce)["follow_up"] == "planned"
        queue = api_for(world.trio.viewer).get(f"/workspaces/{world.ws}/review").json()
        assert queue["acted_on"] == []
        mark(world, body["id"], "done")
        assert action(world, story.announce)["follow_up"] == "done"
        event = AuditEvent.objects.get(verb="action.follow_up_planned")
        assert event.payload == {"action_id": story.announce, "follow_up_id": body["id"], "decision_ids": [july]}
        assert event.summary == "planned the follow-up “Send a correction to the announcement”"

    def test_a_cancelled_follow_up_makes_it_needed_again(self, world: World) -> None:
        story, _ = corrected(world)
        planned = follow_up(world, story.announce, {"title": "Tell the press", "decision_ids": [story.other]})
        assert planned.status_code == 201 and planned.json()["decision_ids"] == [story.other]
        mark(world, planned.json()["id"], "cancelled")
        assert action(world, story.announce)["follow_up"] == "needed"

    def test_the_review_lists_it_until_a_reviewer_says_no_follow_up_is_needed(self, world: World) -> None:
        story, _ = corrected(world)
        queue = api_for(world.trio.viewer).get(f"/workspaces/{world.ws}/review").json()
        assert [a["id"] for a in queue["acted_on"]] == [story.announce]
        assert queue["acted_on"][0]["follow_up"] == "needed"
        answered = follow_up(world, story.announce, {"not_needed": True, "reason": "Nobody read it."})
        assert answered.status_code == 200, answered.content
        assert answered.json()["id"] == story.announce and answered.json()["follow_up"] == "not_needed"
        assert AuditEvent.objects.get(verb="action.follow_up_not_needed").payload["reason"] == "Nobody read it."
        again = follow_up(world, story.announce, {"title": "Send a correction"})
        assert again.status_code == 409 and again.json()["error"] == "follow_up_not_needed"
        assert "needs no follow-up" in again.json()["detail"]

    def test_without_a_decision_that_holds_it_asks_for_one(self, world: World) -> None:
        story, _ = corrected(world)
        refused = follow_up(world, story.announce, {"title": "Send a correction"})
        assert refused.status_code == 422 and "choose the decisions" in refused.json()["detail"]
        assert action(world, story.announce)["follow_up"] == "needed"
        assert AuditEvent.objects.filter(verb="action.follow_up_planned").count() == 0

    @pytest.mark.parametrize(
        ("body", "words"),
        [
            ({}, "Send {"),
            ({"not_needed": True}, "Say why no follow-up is needed"),
            ({"not_needed": True, "reason": "  "}, "Say why no follow-up is needed"),
            ({"not_needed": True, "title": "x", "reason": "y"}, "not both"),
            ({"title": ""}, "“title”"),
            ({"title": "x", "decision_ids": ["nope"]}, "is not an id"),
            ({"not_needed": "yes", "reason": "y"}, "Send {"),
        ],
    )
    def test_bad_input_is_refused_in_words_and_writes_nothing(self, world: World, body: dict, words: str) -> None:
        story, _ = corrected(world)
        refused = follow_up(world, story.announce, body)
        assert refused.status_code == 422 and words in refused.json()["detail"], refused.content
        assert action(world, story.announce)["follow_up"] == "needed"

    def test_an_action_not_needing_a_follow_up_is_409(self, world: World) -> None:
        story = Story(world)
        refused = follow_up(world, story.announce, {"not_needed": True, "reason": "x"})
        assert refused.status_code == 409 and "does not need a follow-up" in refused.json()["detail"]

    def test_a_viewer_is_refused_and_an_outsider_sees_nothing(self, world: World) -> None:
        story, _ = corrected(world)
        body = {"not_needed": True, "reason": "Nobody read it."}
        assert follow_up(world, story.announce, body, world.trio.viewer).status_code == 403
        assert follow_up(world, story.announce, body, world.trio.outsider).status_code == 404
        assert follow_up(world, story.announce, body, world.trio.owner).status_code == 200
        missing = follow_up(world, "00000000-0000-4000-8000-000000000000", body)
        assert missing.status_code == 404


class CountTests:
    def test_the_dashboard_counts_them_now_and_as_of_a_moment(self, world: World) -> None:
        from workspaces.graph import attention, attention_as_of

        before = now_iso()
        story, _ = corrected(world)
        workspace = world.trio.workspace
        assert attention(workspace=workspace, since=before).follow_ups_needed == 1
        flagged = now_iso()
        assert follow_up(world, story.announce, {"not_needed": True, "reason": "x"}).status_code == 200
        assert attention(workspace=workspace, since=before).follow_ups_needed == 0
        assert attention_as_of(workspace=workspace, as_of=flagged, since=before).follow_ups_needed == 1
        assert attention_as_of(workspace=workspace, as_of=before, since=before).follow_ups_needed == 0


class ProvTests:
    def test_the_export_carries_the_follow_up_state_and_relation(self, world: World) -> None:
        story, _ = corrected(world)
        planned = follow_up(world, story.announce, {"title": "Tell the press", "decision_ids": [story.other]}).json()
        response = api_for(world.trio.viewer).get(f"/workspaces/{world.ws}/prov?root={story.other}&format=json")
        assert response.status_code == 200, response.content
        document = response.json()
        entities = {key.rsplit(":", 1)[-1]: value for key, value in document["entity"].items()}
        assert entities[story.announce]["ah:follow_up"] == "planned"
        derivations = [
            d for d in document["wasDerivedFrom"].values()
            if d["prov:generatedEntity"].endswith(planned["id"]) and d["prov:usedEntity"].endswith(story.announce)
        ]  # fmt: skip
        assert len(derivations) == 1 and "FollowUp" in str(derivations[0]["prov:type"])
