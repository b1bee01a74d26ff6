"""Membership changes made at the same moment keep the rules: one admin at least, no duplicate, no 500."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from django.db import connection

from tests.conftest import MakeUser, Trio
from workspaces import services
from workspaces.models import AuditEvent, Membership, Role
from workspaces.services import InvalidInput

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
        services.member_change_role(
            workspace=trio.workspace, membership_id=Membership.objects.get(user=trio.reviewer).pk,
            role=Role.ADMIN, actor=trio.owner,
        )  # fmt: skip
        olivia, rita = (Membership.objects.get(user=u).pk for u in (trio.owner, trio.reviewer))
        results = at_once(
            lambda: services.member_change_role(
                workspace=trio.workspace, membership_id=rita, role=Role.VIEWER, actor=trio.owner
            ),
            lambda: services.member_change_role(
                workspace=trio.workspace, membership_id=olivia, role=Role.VIEWER, actor=trio.reviewer
            ),
        )
        assert sum(isinstance(r, InvalidInput) for r in results) == 1
        assert Membership.objects.filter(workspace=trio.workspace, role=Role.ADMIN).count() == 1

    def test_adding_the_same_person_twice_at_once_adds_them_once(self, trio: Trio, make_user: MakeUser) -> None:
        make_user("newcomer")

        def add() -> Membership:
            return services.member_add(
                workspace=trio.workspace, username="newcomer", role=Role.VIEWER, actor=trio.owner
            )

        results = at_once(add, add, add)
        assert sum(isinstance(r, Membership) for r in results) == 1
        assert all(isinstance(r, Membership | InvalidInput) for r in results)
        assert Membership.objects.filter(user__username="newcomer").count() == 1
        assert AuditEvent.objects.filter(verb="member.added", target="newcomer").count() == 1
