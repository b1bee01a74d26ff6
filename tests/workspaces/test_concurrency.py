"""Membership changes made at the same moment keep the rules: one admin at least, no duplicate, no 500."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.db.models.signals import pre_save

from tests.conftest import MakeUser, Trio
from workspaces.models import AuditEvent, Membership, Role
from workspaces.services import admins as admin_services
from workspaces.services import memberships as membership_services
from workspaces.services.workspaces import InvalidInput

pytestmark = pytest.mark.django_db(transaction=True)


def at_once(*calls: Callable[[], object]) -> list[object]:
    """Runs the calls in threads released together; returns each one's result or exception."""
    barrier = threading.Barrier(len(calls))
    results: list[object] = [None] * len(calls)

    def run(index: int, call: Callable[[], object]) -> None:
        barrier.wait()
        try:
            results[index] = call()
        except Exception as error:  # noqa: BLE001 - the test inspects what each call raised
            results[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


class ConcurrentMembershipTests:
    def test_two_admins_demoting_each_other_leave_one_admin(self, trio: Trio) -> None:
        membership_services.member_change_role(
            workspace=trio.workspace, membership_id=Membership.objects.get(user=trio.reviewer).pk,
            role=Role.ADMIN, actor=trio.owner,
        )  # fmt: skip
        olivia, rita = (Membership.objects.get(user=u).pk for u in (trio.owner, trio.reviewer))
        results = at_once(
            lambda: membership_services.member_change_role(
                workspace=trio.workspace, membership_id=rita, role=Role.VIEWER, actor=trio.owner
            ),
            lambda: membership_services.member_change_role(
                workspace=trio.workspace, membership_id=olivia, role=Role.VIEWER, actor=trio.reviewer
            ),
        )
        assert sum(isinstance(r, InvalidInput) for r in results) == 1
        assert Membership.objects.filter(workspace=trio.workspace, role=Role.ADMIN).count() == 1

    def test_adding_the_same_person_twice_at_once_adds_them_once(self, trio: Trio, make_user: MakeUser) -> None:
        make_user("newcomer")

        def add() -> Membership:
            return membership_services.member_add(
                workspace=trio.workspace, username="newcomer", role=Role.VIEWER, actor=trio.owner
            )

        results = at_once(add, add, add)
        assert sum(isinstance(r, Membership) for r in results) == 1
        assert all(isinstance(r, Membership | InvalidInput) for r in results)
        assert Membership.objects.filter(user__username="newcomer").count() == 1
        assert AuditEvent.objects.filter(verb="member.added", target="newcomer").count() == 1


class ScriptWithoutTransactionTests:
    def test_a_plain_save_deactivating_the_last_admin_is_refused_and_leaves_nothing(self, trio: Trio) -> None:
        count = AuditEvent.objects.count()
        trio.owner.is_active = False
        with pytest.raises(admin_services.NoAdminLeft, match="Deactivating olivia would leave “Launch planning”"):
            trio.owner.save()
        trio.owner.refresh_from_db()
        assert trio.owner.is_active and AuditEvent.objects.count() == count

    def test_a_plain_save_that_changes_access_is_written_once_with_its_event(self, make_user: MakeUser) -> None:
        ada = make_user("ada")
        ada.is_staff = True
        ada.save()
        ada.refresh_from_db()
        assert ada.is_staff
        assert [e.verb for e in AuditEvent.objects.filter(target="ada").order_by("id")] == [
            "user.created", "user.staff_granted"
        ]  # fmt: skip

    def test_deactivating_an_admin_outside_a_transaction_holds_the_lock_until_it_is_written(self, trio: Trio) -> None:
        """A script's plain save (no transaction.atomic) deactivating olivia while rita, the other admin, is being
        demoted: one of the two is refused, never both done."""
        rita = Membership.objects.get(user=trio.reviewer)
        membership_services.member_change_role(
            workspace=trio.workspace, membership_id=rita.pk, role=Role.ADMIN, actor=trio.owner
        )
        demoting: list[object] = []

        def demote_rita() -> None:
            try:
                demoting.append(membership_services.member_change_role(
                    workspace=trio.workspace, membership_id=rita.pk, role=Role.VIEWER, actor=trio.owner
                ))  # fmt: skip
            except InvalidInput as error:
                demoting.append(error)
            finally:
                connection.close()

        # Runs once the deactivation has been checked, just before its UPDATE: the demotion comes in between.
        def in_between(sender: Any, instance: Any, **kwargs: Any) -> None:
            if instance.pk != trio.owner.pk or demoting or threads:
                return
            threads.append(threading.Thread(target=demote_rita))
            threads[0].start()
            threads[0].join(timeout=1)

        threads: list[threading.Thread] = []
        pre_save.connect(in_between, sender=type(trio.owner), dispatch_uid="test_in_between")
        try:
            trio.owner.is_active = False
            trio.owner.save()
        finally:
            pre_save.disconnect(sender=type(trio.owner), dispatch_uid="test_in_between")
        threads[0].join()
        [demoted] = demoting
        assert isinstance(demoted, InvalidInput) and "without an active admin" in str(demoted)
        assert Membership.objects.filter(workspace=trio.workspace, role=Role.ADMIN, user__is_active=True).exists()
        assert AuditEvent.objects.filter(verb="user.deactivated", target="olivia").count() == 1
