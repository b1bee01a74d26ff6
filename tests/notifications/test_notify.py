"""Telling people: one notification per person and event, only to members, counted and marked read."""

from __future__ import annotations

import pytest

from notifications.models import Notification
from notifications.selectors import inbox as inbox_selectors
from notifications.selectors.watches import watchers
from notifications.services import notices as notice_services
from notifications.services import watches as watch_services
from notifications.services.notices import notify
from tests.conftest import Trio
from tests.notifications.telling import an_event, notice, tell
from workspaces.models import Membership
from workspaces.services import memberships as membership_services
from workspaces.services import workspaces as workspace_services

pytestmark = pytest.mark.django_db


class NotifyTests:
    def test_it_writes_one_notification_per_person_with_what_the_dispatcher_said(self, trio: Trio) -> None:
        event = an_event(trio)
        ids = notify(
            workspace=trio.workspace, event_id=event.pk,
            notices=[notice(trio.owner, url="/w/x/decisions/1/"), notice(trio.viewer, reason="you watch it")],
        )  # fmt: skip
        rows = Notification.objects.filter(pk__in=ids).order_by("user__username")
        assert [(n.user, n.event_id, n.reason, n.url) for n in rows] == [
            (trio.owner, event.pk, "you recorded it", "/w/x/decisions/1/"),
            (trio.viewer, event.pk, "you watch it", "/w/"),
        ]
        assert all(n.workspace == trio.workspace and n.kind == "correction.applied" and not n.read for n in rows)

    def test_telling_one_event_twice_makes_one_notification(self, trio: Trio) -> None:
        event = an_event(trio)
        first = notify(workspace=trio.workspace, event_id=event.pk, notices=[notice(trio.owner)])
        again = notify(workspace=trio.workspace, event_id=event.pk, notices=[notice(trio.owner), notice(trio.viewer)])
        assert len(first) == 1 and len(again) == 1 and again[0] != first[0]
        assert Notification.objects.filter(event=event, user=trio.owner).count() == 1
        assert Notification.objects.filter(event=event).count() == 2

    def test_a_person_named_twice_is_told_once_by_the_first_reason(self, trio: Trio) -> None:
        ids = notify(
            workspace=trio.workspace, event_id=an_event(trio).pk,
            notices=[notice(trio.owner, reason="you recorded it"), notice(trio.owner, reason="you watch it")],
        )  # fmt: skip
        assert [n.reason for n in Notification.objects.filter(pk__in=ids)] == ["you recorded it"]

    def test_an_outsider_is_told_nothing(self, trio: Trio) -> None:
        assert tell(trio, trio.outsider) == []
        assert not Notification.objects.filter(user=trio.outsider).exists()

    def test_an_address_elsewhere_becomes_the_home_path(self, trio: Trio) -> None:
        for url in ("https://evil.example/", "//evil.example/x", "javascript:alert(1)", "/\\evil.example",
                    "/\\/evil.example", "/" + "x" * 600):  # fmt: skip
            ids = notify(workspace=trio.workspace, event_id=an_event(trio).pk, notices=[notice(trio.owner, url=url)])
            assert Notification.objects.get(pk=ids[0]).url == "/", url

    def test_no_notices_write_nothing(self, trio: Trio) -> None:
        assert notify(workspace=trio.workspace, event_id=None, notices=[]) == []
        assert not Notification.objects.exists()


class CountTests:
    def test_it_counts_the_unread_ones_and_words_them_for_the_bell(self, trio: Trio) -> None:
        ids = tell(trio, trio.owner) + tell(trio, trio.owner) + tell(trio, trio.reviewer)
        assert inbox_selectors.unread_count(user=trio.owner) == 2
        notice_services.mark_read(user=trio.owner, ids=[ids[0]])
        assert inbox_selectors.unread_count(user=trio.owner) == 1
        assert [inbox_selectors.bell_words(n) for n in (0, 1, 99, 100, 5000)] == ["", "1", "99", "99+", "99+"]

    def test_the_count_stops_at_the_cap(self, trio: Trio) -> None:
        # Notices of no event are never merged: each makes a notification.
        for _ in range(inbox_selectors.BELL_CAP + 5):
            notify(workspace=trio.workspace, event_id=None, notices=[notice(trio.owner)])
        assert Notification.objects.filter(user=trio.owner).count() == inbox_selectors.BELL_CAP + 5
        assert inbox_selectors.unread_count(user=trio.owner) == inbox_selectors.BELL_CAP

    def test_a_workspace_the_person_left_is_neither_shown_nor_counted(self, trio: Trio) -> None:
        tell(trio, trio.viewer)
        other = workspace_services.workspace_create(name="Budget", creator=trio.owner)
        membership_services.member_add(workspace=other, username="victor", role="viewer", actor=trio.owner)
        notify(workspace=other, event_id=None, notices=[notice(trio.viewer, text="Budget news")])
        assert inbox_selectors.unread_count(user=trio.viewer) == 2
        leaving = Membership.objects.get(workspace=trio.workspace, user=trio.viewer)
        membership_services.member_remove(workspace=trio.workspace, membership_id=leaving.pk, actor=trio.owner)
        assert inbox_selectors.unread_count(user=trio.viewer) == 1
        page = inbox_selectors.inbox_page(user=trio.viewer, unread=False, limit=50, cursor=None)
        assert [n.text for n in page.items] == ["Budget news"] and page.count == 1


class MarkReadTests:
    def test_it_marks_only_the_persons_own(self, trio: Trio) -> None:
        mine, theirs = tell(trio, trio.owner)[0], tell(trio, trio.reviewer)[0]
        assert notice_services.mark_read(user=trio.owner, ids=[mine, theirs]) == 1
        assert Notification.objects.get(pk=mine).read and not Notification.objects.get(pk=theirs).read
        assert notice_services.mark_read(user=trio.owner, ids=[mine]) == 0

    def test_it_marks_all_of_them(self, trio: Trio) -> None:
        tell(trio, trio.owner, trio.reviewer)
        tell(trio, trio.owner)
        assert notice_services.mark_all_read(user=trio.owner) == 2
        assert inbox_selectors.unread_count(user=trio.owner) == 0
        assert inbox_selectors.unread_count(user=trio.reviewer) == 1

    @pytest.mark.parametrize("ids", ["12", [1.5], [True], ["x"], [-1], None, [2**63]])
    def test_ids_that_are_no_ids_are_refused_in_words(self, trio: Trio, ids: object) -> None:
        tell(trio, trio.owner)
        with pytest.raises(notice_services.UserError, match="list of their ids"):
            notice_services.mark_read(user=trio.owner, ids=ids)
        assert inbox_selectors.unread_count(user=trio.owner) == 1

    def test_the_unread_filter_keeps_the_unread_ones(self, trio: Trio) -> None:
        first, second = tell(trio, trio.owner, text="First")[0], tell(trio, trio.owner, text="Second")[0]
        notice_services.mark_read(user=trio.owner, ids=[first])
        unread = inbox_selectors.inbox_page(user=trio.owner, unread=True, limit=50, cursor=None)
        every = inbox_selectors.inbox_page(user=trio.owner, unread=False, limit=50, cursor=None)
        assert [n.pk for n in unread.items] == [second]
        assert [n.pk for n in every.items] == [second, first]


class WatchersTests:
    def test_it_names_who_watches_which_nodes_among_current_members(self, trio: Trio, claim: str) -> None:
        watch_services.watch(user=trio.viewer, workspace=trio.workspace, node_id=claim)
        watch_services.watch(user=trio.reviewer, workspace=trio.workspace, node_id=claim.upper(), kind="claim")
        assert watchers(workspace=trio.workspace, node_ids=[claim, "other"]) == {
            trio.viewer.pk: {claim}, trio.reviewer.pk: {claim},
        }  # fmt: skip
        leaving = Membership.objects.get(workspace=trio.workspace, user=trio.viewer)
        membership_services.member_remove(workspace=trio.workspace, membership_id=leaving.pk, actor=trio.owner)
        assert watchers(workspace=trio.workspace, node_ids=[claim]) == {trio.reviewer.pk: {claim}}
