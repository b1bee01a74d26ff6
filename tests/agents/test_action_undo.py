"""Confirm and undo on actions: Cancel and Mark done ask first; a cancelled action can be reopened
while its decisions hold; done, cancelled and reopened are each audited."""

from __future__ import annotations

from typing import Any

import pytest

from afterhack import graph
from agents.selectors import decisions as selectors
from tests.conftest import api_for, client_for
from tests.corrections.conftest import World
from tests.corrections.conftest import world as world  # the launch story with its corrections
from workspaces.models import AuditEvent

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
ANNOUNCE = "Send the launch announcement"


def status_of(world: World, action_id: str) -> str:
    action = selectors.action_get(workspace=world.trio.workspace, action_id=action_id)
    assert action is not None
    return action.status


def snapshot(world: World) -> tuple[Any, ...]:
    """What a confirm step must leave alone: the graph's revision, every action's status, the audit trail."""
    revision = graph.ro_query(world.trio.workspace, "MATCH (w:Workspace) RETURN w.revision")[0][0]
    statuses = graph.ro_query(world.trio.workspace, "MATCH (a:Action) RETURN a.id, a.status ORDER BY a.id")
    return revision, [tuple(row) for row in statuses], AuditEvent.objects.count()


def events(action_id: str) -> list[tuple[str, str, str]]:
    """(verb, actor, target) of the audit events on this action, oldest first."""
    rows = AuditEvent.objects.filter(payload__action_id=action_id).order_by("id")
    return [(e.verb, e.actor_name, e.target) for e in rows]


def flag_june(world: World) -> None:
    """Corrects “The launch is in June” to July: the decisions resting on it alone need review."""
    revision = world.preview(world.june, "The launch is in July.").json()["revision"]
    assert world.apply(world.june, revision).status_code == 201


class ReopenApiTests:
    def mark(self, world: World, action_id: str, status: str, user: Any = None) -> Any:
        return api_for(user or world.trio.reviewer).post(
            f"/workspaces/{world.ws}/actions/{action_id}/status", {"status": status}
        )

    def test_a_cancelled_action_is_reopened_while_its_decisions_hold(self, world: World) -> None:
        action = world.action(ANNOUNCE, world.decision("Launch in June", [world.june]))
        assert self.mark(world, action, "cancelled").json()["status"] == "cancelled"
        reopened = self.mark(world, action, "pending")
        assert reopened.status_code == 200 and reopened.json()["status"] == "pending"
        assert status_of(world, action) == "pending"
        assert AuditEvent.objects.get(verb="action.reopened").summary == f"reopened “{ANNOUNCE}”"
        assert events(action) == [
            ("action.created", "rita", ANNOUNCE),
            ("action.cancelled", "rita", ANNOUNCE),
            ("action.reopened", "rita", ANNOUNCE),
        ]

    def test_a_reopen_waits_until_the_decision_holds_again(self, world: World) -> None:
        decision = world.decision("Launch in June", [world.june])
        action = world.action(ANNOUNCE, decision)
        self.mark(world, action, "cancelled")
        flag_june(world)
        refused = self.mark(world, action, "pending")
        assert refused.status_code == 409 and refused.json()["error"] == "conflict"
        assert refused.json()["detail"] == (
            "This action can be reopened only while every decision it depends on holds: "
            "“Launch in June” needs review (re-justify it first)."
        )
        assert status_of(world, action) == "cancelled" and events(action)[-1][0] == "action.cancelled"
        # Re-justified by the board's minutes, the decision holds again, and so the action can come back.
        rejustified = api_for(world.trio.reviewer).post(
            f"/workspaces/{world.ws}/decisions/{decision}/justifications", {"justifications": [[world.board]]}
        )
        assert rejustified.json()["status"] == "supported"
        assert self.mark(world, action, "pending").json()["status"] == "pending"

    def test_an_action_on_a_dismissed_decision_stays_cancelled(self, world: World) -> None:
        decision = world.decision("Launch in June", [world.june])
        holding = world.decision("Budget approved", [world.ana])
        action = world.action(ANNOUNCE, decision, holding)
        flag_june(world)
        assert status_of(world, action) == "held"
        api_for(world.trio.reviewer).post(f"/workspaces/{world.ws}/decisions/{decision}/dismiss")
        assert status_of(world, action) == "cancelled"
        refused = self.mark(world, action, "pending")
        assert refused.status_code == 409
        assert refused.json()["detail"] == (
            "This action can be reopened only while every decision it depends on holds: “Launch in June” was dismissed."
        )

    @pytest.mark.parametrize(("first", "now"), [("done", "done"), (None, "pending")])
    def test_only_a_cancelled_action_can_be_reopened(self, world: World, first: str | None, now: str) -> None:
        action = world.action(ANNOUNCE, world.decision("Launch in June", [world.june]))
        if first:
            self.mark(world, action, first)
        refused = self.mark(world, action, "pending")
        assert refused.status_code == 409
        assert refused.json()["detail"] == f"Only a cancelled action can be reopened; this one is {now}."
        assert status_of(world, action) == now

    def test_done_and_cancelled_are_audited_with_the_actor_and_the_action(self, world: World) -> None:
        decision = world.decision("Launch in June", [world.june])
        done, cancelled = world.action(ANNOUNCE, decision), world.action("Book the venue", decision)
        self.mark(world, done, "done", world.trio.owner)
        self.mark(world, cancelled, "cancelled")
        assert events(done)[-1] == ("action.done", "olivia", ANNOUNCE)
        assert events(cancelled)[-1] == ("action.cancelled", "rita", "Book the venue")
        event = AuditEvent.objects.get(verb="action.done")
        assert event.actor == world.trio.owner and event.payload == {"action_id": done}
        assert event.summary == f"marked “{ANNOUNCE}” done"

    def test_bad_words_and_access(self, world: World) -> None:
        action = world.action(ANNOUNCE, world.decision("Launch in June", [world.june]))
        self.mark(world, action, "cancelled")
        for word in ("reopen", "held", "PENDING", ""):
            refused = self.mark(world, action, word)
            assert refused.status_code == 422, word
            assert "reopened with “pending”" in refused.json()["detail"]
        assert self.mark(world, action, "pending", world.trio.viewer).status_code == 403
        assert self.mark(world, action, "pending", world.trio.outsider).status_code == 404
        assert self.mark(world, "00000000-0000-0000-0000-000000000000", "pending").status_code == 404
        assert status_of(world, action) == "cancelled"


class ConfirmPageTests:
    def post(self, world: World, action_id: str, fields: dict[str, str], htmx: bool = True, user: Any = None) -> Any:
        client = client_for(user or world.trio.reviewer)
        return client.post(f"/w/{world.ws}/actions/{action_id}/status", fields, headers=HTMX if htmx else {})

    def test_cancel_over_htmx_asks_in_the_row_and_writes_nothing(self, world: World) -> None:
        action = world.action(ANNOUNCE, world.decision("Launch in June", [world.june]))
        before = snapshot(world)
        asked = self.post(world, action, {"status": "cancelled", "next": f"/w/{world.ws}/actions/"})
        row = asked.content.decode()
        assert asked.status_code == 200 and snapshot(world) == before
        # The question takes the row's place: a row itself, with the row's id, spanning its columns.
        assert row.lstrip().startswith(f'<tr id="action-{action}" class="confirm-row"><td colspan="5">')
        assert f"Cancel “{ANNOUNCE}”?" in row
        assert "It will not be done; you can reopen it while its decisions hold." in row
        assert 'name="confirmed" value="yes"' in row and 'name="status" value="cancelled"' in row
        assert f'hx-target="#action-{action}"' in row and ">Yes, cancel it</button>" in row
        # "Keep it" shows the row again from the page it is on.
        assert f'hx-get="/w/{world.ws}/actions/" hx-select="#action-{action}"' in row
        listing = client_for(world.trio.reviewer).get(f"/w/{world.ws}/actions/", headers=HTMX).content.decode()
        assert f'<tr id="action-{action}">' in listing

        done = self.post(world, action, {"status": "cancelled", "next": f"/w/{world.ws}/actions/", "confirmed": "yes"})
        answer = done.content.decode()
        assert answer.lstrip().startswith(f'<tr id="action-{action}">') and 'class="badge st-cancelled"' in answer
        assert f"“{ANNOUNCE}” is cancelled. Reopen it while its decisions hold." in answer
        assert '<button name="status" value="pending">Reopen</button>' in answer and "Mark done" not in answer
        assert status_of(world, action) == "cancelled"
        assert events(action)[-1] == ("action.cancelled", "rita", ANNOUNCE)

    def test_mark_done_without_htmx_asks_on_a_page_then_acts(self, world: World) -> None:
        decision = world.decision("Launch in June", [world.june])
        action = world.action(ANNOUNCE, decision)
        back = f"/w/{world.ws}/decisions/{decision}/"
        before = snapshot(world)
        asked = self.post(world, action, {"status": "done", "next": back}, htmx=False)
        page = asked.content.decode()
        assert asked.status_code == 200 and snapshot(world) == before
        assert "<h1>Are you sure?</h1>" in page and f"Mark “{ANNOUNCE}” done?" in page
        assert "This cannot be undone." in page and "hx-post" not in page
        assert f'<a href="{back}" class="button" autofocus>Keep it</a>' in page

        browser = client_for(world.trio.reviewer)
        acted = browser.post(
            f"/w/{world.ws}/actions/{action}/status", {"status": "done", "next": back, "confirmed": "yes"}
        )
        assert acted.status_code == 302 and acted["Location"] == back
        assert status_of(world, action) == "done"
        assert events(action)[-1] == ("action.done", "rita", ANNOUNCE)
        shown = browser.get(back).content.decode()
        assert f"“{ANNOUNCE}” is done." in shown

    def test_the_decision_page_asks_in_the_row_too(self, world: World) -> None:
        decision = world.decision("Launch in June", [world.june])
        action = world.action(ANNOUNCE, decision)
        page = client_for(world.trio.reviewer).get(f"/w/{world.ws}/decisions/{decision}/").content.decode()
        assert f'<tr id="action-{action}">' in page and f'hx-target="#action-{action}"' in page
        back = f"/w/{world.ws}/decisions/{decision}/"
        assert f'<input type="hidden" name="next" value="{back}">' in page
        row = self.post(world, action, {"status": "done", "next": back}).content.decode()
        assert f"Mark “{ANNOUNCE}” done?" in row and f'hx-get="{back}" hx-select="#action-{action}"' in row
        assert status_of(world, action) == "pending"

    def test_a_move_that_cannot_happen_is_refused_at_once_without_a_question(self, world: World) -> None:
        action = world.action(ANNOUNCE, world.decision("Launch in June", [world.june]))
        flag_june(world)
        before = snapshot(world)
        row = self.post(world, action, {"status": "done"}).content.decode()
        assert "Mark “" not in row and "held" in row and "Resolve that decision first" in row
        for word in ("exploded", ""):
            refused = self.post(world, action, {"status": word, "confirmed": "yes"}).content.decode()
            assert "An action can be marked “done” or “cancelled”, or reopened with “pending”." in refused
        assert snapshot(world) == before

    def test_reopen_acts_at_once_and_only_while_the_decisions_hold(self, world: World) -> None:
        decision = world.decision("Launch in June", [world.june])
        action = world.action(ANNOUNCE, decision)
        self.post(world, action, {"status": "cancelled", "confirmed": "yes"})
        reopened = self.post(world, action, {"status": "pending"}).content.decode()
        assert 'class="badge st-pending"' in reopened and f"“{ANNOUNCE}” is reopened: it is pending again." in reopened
        assert ">Mark done</button>" in reopened and events(action)[-1] == ("action.reopened", "rita", ANNOUNCE)

        self.post(world, action, {"status": "cancelled", "confirmed": "yes"})
        flag_june(world)
        before = snapshot(world)
        browser = client_for(world.trio.reviewer)
        refused = browser.post(f"/w/{world.ws}/actions/{action}/status", {"status": "pending"})
        assert refused.status_code == 302 and refused["Location"] == f"/w/{world.ws}/actions/"
        shown = browser.get(refused["Location"]).content.decode()
        assert "can be reopened only while every decision it depends on holds: “Launch in June” needs review" in shown
        assert snapshot(world) == before and status_of(world, action) == "cancelled"

    def test_viewers_cannot_ask_or_act_and_outsiders_see_nothing(self, world: World) -> None:
        action = world.action(ANNOUNCE, world.decision("Launch in June", [world.june]))
        before = snapshot(world)
        for fields in ({"status": "cancelled"}, {"status": "cancelled", "confirmed": "yes"}, {"status": "pending"}):
            assert self.post(world, action, fields, user=world.trio.viewer).status_code == 403
            assert self.post(world, action, fields, user=world.trio.outsider).status_code == 404
        assert self.post(world, "not-an-action", {"status": "cancelled"}).status_code == 404
        assert snapshot(world) == before
        listing = client_for(world.trio.viewer).get(f"/w/{world.ws}/actions/").content.decode()
        assert ANNOUNCE in listing and "Cancel</button>" not in listing
