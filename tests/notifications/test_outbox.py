"""The dispatcher on the real stores: what the outbox holds becomes one notification per person and one webhook
message per endpoint and kind, exactly once; whom a correction tells; a teller that fails leaves its event."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone

from afterhack.graph import GraphError
from notifications.models import Notification
from notifications.outbox import BATCH, WATCHING, tell_all, tell_pending
from notifications.services.watches import watch
from tests.corrections.conftest import World
from tests.corrections.conftest import world as world  # the launch story
from webhooks.models import Message
from webhooks.services.endpoints import endpoint_create
from workspaces import registry
from workspaces.models import Tell
from workspaces.services.audit import record_events
from workspaces.services.memberships import member_add

pytestmark = pytest.mark.django_db


def told_to(user: Any) -> list[Notification]:
    return list(Notification.objects.filter(user=user).order_by("id"))


def correct_june(world: World, user: Any = None) -> dict:
    applied = world.apply(world.june, world.preview(world.june, user=user).json()["revision"], user=user)
    assert applied.status_code == 201, applied.content
    return dict(applied.json())


class CorrectionTests:
    def test_the_decisions_owner_is_told_once_and_the_actor_never(self, world: World) -> None:
        launch = world.decision("Launch in June", [world.june])  # recorded by the reviewer
        world.action("Send the launch announcement", launch)
        correct_june(world, user=world.trio.owner)
        report = tell_pending()
        assert report.events == 1 and report.failed == 0
        (note,) = told_to(world.trio.reviewer)
        assert note.kind == "correction.applied" and note.reason == "you recorded the decision “Launch in June”"
        assert "was corrected to “The launch is in July.”" in note.text and "1 decision needs review" in note.text
        assert note.url == f"/w/{world.ws}/review/"
        assert told_to(world.trio.owner) == []  # who applied it is not told of their own act
        assert not Tell.objects.exists()
        # Told once: the outbox is empty, and telling the same event again would make nothing new.
        assert tell_pending().events == 0 and Notification.objects.count() == 1

    def test_watchers_are_told_and_each_person_once(self, world: World) -> None:
        launch = world.decision("Launch in June", [world.june])
        watch(user=world.trio.viewer, workspace=world.trio.workspace, node_id=world.june, kind="claim")
        watch(user=world.trio.viewer, workspace=world.trio.workspace, node_id=launch, kind="decision")
        watch(user=world.trio.outsider, workspace=world.trio.workspace, node_id=world.june, kind="claim")
        correct_june(world, user=world.trio.owner)
        tell_pending()
        (note,) = told_to(world.trio.viewer)
        assert note.reason == WATCHING
        assert told_to(world.trio.outsider) == []  # not a member: never told

    def test_a_correction_that_moved_nothing_tells_only_watchers(self, world: World) -> None:
        watch(user=world.trio.viewer, workspace=world.trio.workspace, node_id=world.june, kind="claim")
        correct_june(world)
        assert tell_pending().events == 1
        assert [(n.user_id, n.reason) for n in Notification.objects.all()] == [(world.trio.viewer.pk, WATCHING)]

    def test_webhook_messages_one_per_endpoint_and_kind_subscribed(self, world: World) -> None:
        launch = world.decision("Launch in June", [world.june])
        world.action("Send the launch announcement", launch)
        everything = endpoint_create(
            workspace=world.trio.workspace, url="http://127.0.0.1:9/all", actor=world.trio.owner,
            events=["correction.applied", "decision.needs_review", "action.held"],
        )  # fmt: skip
        held_only = endpoint_create(
            workspace=world.trio.workspace,
            url="http://127.0.0.1:9/held",
            events=["action.held"],
            actor=world.trio.owner,
        )
        applied = correct_june(world)
        report = tell_pending()
        assert len(report.messages) == 4
        kinds = {(m.endpoint_id, m.kind) for m in Message.objects.all()}
        assert kinds == {
            (everything.pk, "correction.applied"), (everything.pk, "decision.needs_review"),
            (everything.pk, "action.held"), (held_only.pk, "action.held"),
        }  # fmt: skip
        body = Message.objects.get(endpoint=everything, kind="correction.applied").body
        assert applied["replacement_claim_id"] in body and world.june in body and "June" not in body


class FollowUpTests:
    def test_reviewers_are_told_of_done_actions_that_need_a_follow_up(self, world: World) -> None:
        launch = world.decision("Launch in June", [world.june])
        announce = world.action("Send the launch announcement", launch)
        from agents.services.decisions import action_mark

        action_mark(workspace=world.trio.workspace, action_id=announce, status="done", actor=world.trio.reviewer)
        second = membership_add_reviewer(world)
        correct_june(world, user=world.trio.owner)
        tell_pending()
        (note,) = told_to(second)
        assert note.reason == "you review this workspace" and "needs a follow-up" in note.text
        # The decision's owner (also a reviewer) is told once, as its owner.
        (owner_note,) = told_to(world.trio.reviewer)
        assert owner_note.reason.startswith("you recorded")


def membership_add_reviewer(world: World) -> Any:
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user("rhea", password="a-long-pass-123")
    member_add(workspace=world.trio.workspace, username="rhea", role="reviewer", actor=world.trio.owner)
    return user


class FailureTests:
    def test_a_teller_that_fails_leaves_its_event_for_the_next_run(self, world: World) -> None:
        correct_june(world)
        real = registry.TELLERS["correction.applied"]

        def failing(event: object) -> registry.Telling:
            raise GraphError("FalkorDB is not answering")

        registry.TELLERS["correction.applied"] = registry.Teller("correction.applied", failing)
        try:
            report = tell_pending()
        finally:
            registry.TELLERS["correction.applied"] = real
        assert (report.events, report.failed) == (0, 1)
        waiting = Tell.objects.get()
        assert waiting.failures == 1 and waiting.retry_at is not None and waiting.retry_at > timezone.now()
        assert tell_pending().events == 0  # not again before its time
        Tell.objects.update(retry_at=timezone.now())
        assert tell_pending().events == 1 and not Tell.objects.exists()

    def test_events_that_keep_failing_never_hold_up_newer_ones(self, world: World) -> None:
        def failing(event: object) -> registry.Telling:
            raise RuntimeError("a teller's bug")

        broken = registry.Teller("test.broken", failing)
        registry.register(broken)
        try:
            record_events(actor=None, workspace=world.trio.workspace, verb="test.broken",
                          events=[("x", {})] * (BATCH + 5))  # fmt: skip
            launch = world.decision("Launch in June", [world.june])
            world.action("Send the launch announcement", launch)
            correct_june(world, user=world.trio.owner)
            for _ in range(3):
                tell_all()
        finally:
            registry.unregister(broken)
        assert [n.kind for n in told_to(world.trio.reviewer)] == ["correction.applied"]
        assert Tell.objects.filter(event__verb="test.broken", failures__gte=1).count() == BATCH + 5


class WebhookDisabledTests:
    def test_the_admins_alone_are_told_when_a_webhook_is_disabled(self, world: World) -> None:
        endpoint = endpoint_create(
            workspace=world.trio.workspace,
            url="http://127.0.0.1:9/down",
            events=["action.held"],
            actor=world.trio.owner,
        )
        from webhooks.services.deliveries import _disable

        _disable(endpoint.pk, attempts=8, error="connection refused")
        assert tell_pending().events == 1
        (note,) = told_to(world.trio.owner)
        assert note.reason == "you administer this workspace" and "127.0.0.1" in note.text
        assert note.url == f"/w/{world.ws}/webhooks/{endpoint.pk}/"
        assert told_to(world.trio.reviewer) == [] and told_to(world.trio.viewer) == []


class WatchersTests:
    def test_watchers_hear_of_a_dismissal_and_an_action_marked_by_hand(self, world: World) -> None:
        from agents.services.decisions import action_mark
        from corrections import review

        launch = world.decision("Launch in June", [world.june])
        announce = world.action("Send the launch announcement", launch)
        other = world.action("Print the checklist", world.decision("Ana runs it", [world.ana]))
        action_mark(workspace=world.trio.workspace, action_id=announce, status="done", actor=world.trio.reviewer)
        watch(user=world.trio.viewer, workspace=world.trio.workspace, node_id=launch, kind="decision")
        watch(user=world.trio.viewer, workspace=world.trio.workspace, node_id=other, kind="action")
        correct_june(world, user=world.trio.owner)
        tell_pending()
        Notification.objects.all().delete()
        review.decision_dismiss(workspace=world.trio.workspace, decision_id=launch, actor=world.trio.owner)
        action_mark(workspace=world.trio.workspace, action_id=other, status="done", actor=world.trio.owner)
        tell_pending()
        said = [n.text for n in told_to(world.trio.viewer)]
        assert any("was dismissed from review by" in text for text in said)
        assert "“Print the checklist” was marked done by olivia." in said
        assert all(n.reason == WATCHING for n in told_to(world.trio.viewer))
