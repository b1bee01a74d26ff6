"""Emails when the mail server fails: one email at a time over one connection, each claimed just before it is
handed over (at most once), so a failure partway never emails anyone twice and one refused address fails nobody
else."""

from __future__ import annotations

import smtplib
from typing import Any

import pytest
from django.core import mail

from notifications import tasks
from notifications.models import EmailPreference, Notification
from notifications.services import email as email_services
from tests.conftest import Trio
from tests.notifications.mailers import Script, use_scripted_server
from tests.notifications.telling import tell

pytestmark = pytest.mark.django_db

ADDRESSES = ("olivia@example.com", "rita@example.com", "vic@example.com")


def three_with_addresses(trio: Trio) -> list[Any]:
    people = [trio.owner, trio.reviewer, trio.viewer]
    for person, address in zip(people, ADDRESSES, strict=True):
        person.email = address
        person.save()
    return people


def recipients() -> list[str]:
    return sorted(m.to[0] for m in mail.outbox)


def states(ids: list[int]) -> dict[str, tuple[bool, str]]:
    """Each notification's person: (claimed for email, why it may not have arrived)."""
    rows = Notification.objects.filter(pk__in=ids).select_related("user")
    return {n.user.email: (n.emailed_at is not None, n.email_error) for n in rows}


class InstantTests:
    def test_the_connection_dropping_partway_never_emails_anyone_twice(self, trio: Trio, settings: Any) -> None:
        three_with_addresses(trio)
        use_scripted_server(settings, take=1)
        ids = tell(trio, trio.owner, trio.reviewer, trio.viewer)
        with pytest.raises(smtplib.SMTPServerDisconnected):
            email_services.email_instant(notification_ids=ids)
        first = recipients()
        assert len(first) == 1
        in_flight = [a for a, (claimed, error) in states(ids).items() if claimed and error]
        assert len(in_flight) == 1 and "failed while it was sent" in states(ids)[in_flight[0]][1]
        Script.reset()  # the retry, the server back
        assert email_services.email_instant(notification_ids=ids) == 1
        assert email_services.email_instant(notification_ids=ids) == 0 and tasks.email_sweep() == 0
        assert sorted(recipients()) == sorted(set(ADDRESSES) - set(in_flight)), "each once, the one in flight never"

    def test_a_refused_address_is_recorded_and_the_others_get_theirs(self, trio: Trio, settings: Any) -> None:
        three_with_addresses(trio)
        use_scripted_server(settings, refuse=["rita@example.com"])
        ids = tell(trio, trio.owner, trio.reviewer, trio.viewer)
        assert tasks.email_notifications(ids) == 2
        assert recipients() == ["olivia@example.com", "vic@example.com"]
        claimed, error = states(ids)["rita@example.com"]
        assert claimed and error == "Refused by the mail server: 550 5.1.1 No such user"
        assert states(ids)["olivia@example.com"] == (True, "")
        assert tasks.email_notifications(ids) == 0 and len(mail.outbox) == 2, "not tried again"

    def test_a_busy_server_claims_nothing_and_the_retry_sends_all(self, trio: Trio, settings: Any) -> None:
        three_with_addresses(trio)
        use_scripted_server(settings, busy=True)
        ids = tell(trio, trio.owner, trio.reviewer, trio.viewer)
        with pytest.raises(smtplib.SMTPSenderRefused):
            email_services.email_instant(notification_ids=ids)
        assert mail.outbox == [] and set(states(ids).values()) == {(False, "")}
        Script.reset()
        assert email_services.email_instant(notification_ids=ids) == 3
        assert recipients() == sorted(ADDRESSES)

    def test_one_connection_carries_the_batch_one_email_each(self, trio: Trio, settings: Any) -> None:
        three_with_addresses(trio)
        use_scripted_server(settings)
        ids = tell(trio, trio.owner, trio.reviewer, trio.viewer)
        assert email_services.email_instant(notification_ids=ids) == 3
        assert Script.connections == 1 and [len(m.to) for m in mail.outbox] == [1, 1, 1]
        assert email_services.email_instant(notification_ids=ids) == 0 and Script.connections == 1, (
            "nothing: no connection"
        )


class DigestTests:
    def digest_for_all(self, trio: Trio) -> list[int]:
        for person in three_with_addresses(trio):
            EmailPreference.objects.update_or_create(user=person, defaults={"mode": "digest"})
        return tell(trio, trio.owner, trio.reviewer, trio.viewer) + tell(trio, trio.owner, trio.reviewer, trio.viewer)

    def test_the_connection_dropping_partway_sends_each_digest_at_most_once(self, trio: Trio, settings: Any) -> None:
        ids = self.digest_for_all(trio)
        use_scripted_server(settings, take=1)
        with pytest.raises(smtplib.SMTPServerDisconnected):
            email_services.email_digests()
        first = recipients()
        assert len(first) == 1 and "2 notifications since your last digest." in mail.outbox[0].body
        Script.reset()
        assert email_services.email_digests() == 1 and email_services.email_digests() == 0
        assert len(recipients()) == len(set(recipients())) == 2, "the one in flight is not sent again"
        rows = Notification.objects.filter(pk__in=ids)
        assert rows.filter(emailed_at__isnull=True).count() == 0 and rows.exclude(email_error="").count() == 2

    def test_a_refused_address_loses_only_its_digest(self, trio: Trio, settings: Any) -> None:
        ids = self.digest_for_all(trio)
        use_scripted_server(settings, refuse=["vic@example.com"])
        assert tasks.email_digests() == 2
        assert recipients() == ["olivia@example.com", "rita@example.com"]
        refused = Notification.objects.filter(pk__in=ids).exclude(email_error="")
        assert {n.user.email for n in refused} == {"vic@example.com"} and refused.count() == 2
        assert tasks.email_digests() == 0 and len(mail.outbox) == 2
