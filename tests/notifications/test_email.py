"""Notifications by email: instant, the daily digest, none, and nobody without an address or membership."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.core import mail
from django.utils import timezone

from notifications import tasks
from notifications.models import EmailPreference, Notification
from notifications.services import email as email_services
from notifications.services import notices as notice_services
from tests.conftest import Trio
from tests.notifications.telling import tell
from workspaces.models import Membership
from workspaces.services import memberships as membership_services

pytestmark = pytest.mark.django_db

Capture = Callable[..., Any]


@pytest.fixture(autouse=True)
def base_url(settings: Any) -> None:
    settings.AFTERHACK_PUBLIC_URL = "https://afterhack.example.com"


def with_emails(trio: Trio) -> None:
    for user, address in ((trio.owner, "olivia@example.com"), (trio.reviewer, "rita@example.com")):
        user.email = address
        user.save()


def prefer(user: Any, mode: str) -> None:
    EmailPreference.objects.update_or_create(user=user, defaults={"mode": mode})


class InstantTests:
    def test_each_notification_is_emailed_after_the_commit_once(
        self, trio: Trio, django_capture_on_commit_callbacks: Capture
    ) -> None:
        with_emails(trio)
        with django_capture_on_commit_callbacks(execute=True):
            ids = tell(trio, trio.owner, trio.reviewer)
            email_services.email_soon(ids)
            assert mail.outbox == []
        assert sorted(m.to[0] for m in mail.outbox) == ["olivia@example.com", "rita@example.com"]
        message = next(m for m in mail.outbox if m.to == ["olivia@example.com"])
        assert message.subject == "[Afterhack] Launch planning: The launch date you relied on was corrected."
        assert "Why you are told: you recorded it." in message.body
        assert "Open it: https://afterhack.example.com/w/" in message.body
        assert all(n.emailed_at for n in Notification.objects.filter(pk__in=ids))
        assert email_services.email_instant(notification_ids=ids) == 0 and len(mail.outbox) == 2

    def test_a_person_without_an_address_gets_no_email_and_keeps_the_notification(self, trio: Trio) -> None:
        ids = tell(trio, trio.viewer)
        assert tasks.email_notifications(ids) == 0
        assert mail.outbox == [] and Notification.objects.get(pk=ids[0]).emailed_at is None

    def test_digest_and_off_get_no_instant_email(self, trio: Trio) -> None:
        with_emails(trio)
        prefer(trio.owner, "digest")
        prefer(trio.reviewer, "off")
        assert tasks.email_notifications(tell(trio, trio.owner, trio.reviewer)) == 0
        assert mail.outbox == []

    def test_no_email_for_a_workspace_the_person_left_or_a_notification_read(self, trio: Trio) -> None:
        with_emails(trio)
        ids = tell(trio, trio.owner, trio.reviewer)
        leaving = Membership.objects.get(workspace=trio.workspace, user=trio.reviewer)
        membership_services.member_remove(workspace=trio.workspace, membership_id=leaving.pk, actor=trio.owner)
        notice_services.mark_all_read(user=trio.owner)
        assert tasks.email_notifications(ids) == 0 and mail.outbox == []

    def test_the_sweep_sends_what_the_queue_lost_and_nothing_twice(self, trio: Trio) -> None:
        with_emails(trio)
        ids = tell(trio, trio.owner)
        assert tasks.email_sweep() == 0, "too young: the queued task has its chance first"
        rows = Notification.objects.filter(pk__in=ids)
        rows.update(created_at=timezone.now() - email_services.SWEEP_WITHIN * 2)
        assert tasks.email_sweep() == 0, "older than a day: not emailed any more"
        rows.update(created_at=timezone.now() - email_services.SWEEP_AFTER * 2)
        assert tasks.email_sweep() == 1 and tasks.email_sweep() == 0
        assert [m.to for m in mail.outbox] == [["olivia@example.com"]]


class DigestTests:
    def test_one_email_per_person_lists_what_was_not_emailed_yet(self, trio: Trio) -> None:
        with_emails(trio)
        prefer(trio.owner, "digest")
        prefer(trio.reviewer, "digest")
        tell(trio, trio.owner, text="The launch moved to July.")
        tell(trio, trio.owner, trio.reviewer, text="Send the announcement needs a follow-up.")
        read = tell(trio, trio.owner, text="Already read.")
        notice_services.mark_read(user=trio.owner, ids=read)
        assert tasks.email_digests() == 2
        olivia = next(m for m in mail.outbox if m.to == ["olivia@example.com"])
        assert olivia.subject == "[Afterhack] Your daily digest: 2 notifications"
        assert "In “Launch planning”:" in olivia.body and "The launch moved to July." in olivia.body
        assert "Send the announcement needs a follow-up." in olivia.body and "Already read." not in olivia.body
        assert tasks.email_digests() == 0 and len(mail.outbox) == 2

    def test_instant_and_off_and_no_address_get_no_digest(self, trio: Trio) -> None:
        with_emails(trio)
        prefer(trio.reviewer, "off")
        prefer(trio.viewer, "digest")
        tell(trio, trio.owner, trio.reviewer, trio.viewer)
        assert tasks.email_digests() == 0 and mail.outbox == []


class PreferenceTests:
    def test_it_is_instant_until_chosen_and_refuses_what_it_does_not_know(self, trio: Trio) -> None:
        from notifications.selectors.inbox import email_mode

        assert email_mode(user=trio.owner) == "instant"
        assert email_services.set_email_mode(user=trio.owner, mode="digest") == "digest"
        assert email_mode(user=trio.owner) == "digest"
        with pytest.raises(email_services.UserError, match="instant"):
            email_services.set_email_mode(user=trio.owner, mode="weekly")
        assert email_mode(user=trio.owner) == "digest"
