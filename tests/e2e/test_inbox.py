"""A person watches a claim from its page, is told of changes in the inbox, and the bell in the header counts them."""

from __future__ import annotations

from typing import Any

import pytest

from afterhack import graph
from notifications.models import Notification, Watch
from notifications.services.notices import Notice, notify
from tests.e2e.conftest import screenshot, settled
from workspaces.models import Workspace

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def first_id(workspace: Workspace, cypher: str) -> str:
    return str(graph.ro_query(workspace, cypher)[0][0])


def told(workspace: Workspace, user: Any, text: str, reason: str, url: str) -> None:
    # No audit event: these stand for what the dispatcher tells of a correction, which this test does not make.
    notify(workspace=workspace, event_id=None, notices=[Notice(user.pk, "correction.applied", text, reason, url)])


class InboxFlowTests:
    def test_watch_in_place_then_read_the_inbox_the_bell_counts(self, page: Any, demo_workspace: Workspace) -> None:
        workspace = demo_workspace
        admin = workspace.members.get()
        claim = first_id(workspace, "MATCH (c:Claim) WHERE c.statement CONTAINS 'June' RETURN c.id LIMIT 1")
        decision = first_id(workspace, "MATCH (d:Decision) RETURN d.id ORDER BY d.created_at LIMIT 1")

        page.goto(f"/w/{workspace.id}/claims/{claim}/")
        page.evaluate("window.__sameDocument = true")
        assert page.locator(".bell-count").count() == 0
        page.get_by_role("button", name="Watch", exact=True).click()
        page.get_by_role("button", name="Unwatch").wait_for()
        settled(page)
        assert page.evaluate("() => window.__sameDocument") is True, "toggled in place, not by loading the page"
        assert Watch.objects.get(user=admin).node_id == claim
        screenshot(page, "watch-button-claim")

        told(workspace, admin, "“The launch is in June” was corrected to “The launch is in July”: the decision "
             "“Launch on 12 June” you recorded needs review.", "you recorded it", f"/w/{workspace.id}/decisions/{decision}/")  # fmt: skip
        told(workspace, admin, "“Send the launch announcement” was already done on a belief that changed: it needs "
             "a follow-up.", "you review this workspace", f"/w/{workspace.id}/review/")  # fmt: skip
        told(workspace, admin, "A claim you watch was corrected: “The launch is in June”.", "you watch it",
             f"/w/{workspace.id}/claims/{claim}/")  # fmt: skip
        page.goto(f"/w/{workspace.id}/")
        assert page.locator(".bell-count").inner_text() == "3"
        screenshot(page, "bell-in-header")

        page.locator("a.bell").click()
        page.get_by_role("heading", name="Notifications").wait_for()
        assert page.locator(".inbox-item.unread").count() == 3
        screenshot(page, "inbox")

        page.evaluate("window.__sameDocument = true")
        page.locator(".inbox-item").first.get_by_role("button", name="Mark read").click()
        page.wait_for_function("() => document.querySelectorAll('.inbox-item.unread').length === 2")
        settled(page)
        assert page.evaluate("() => window.__sameDocument") is True
        page.locator("a", has_text="needs review").click()
        page.wait_for_url(f"**/decisions/{decision}/")
        assert page.locator(".bell-count").inner_text() == "1"
        assert Notification.objects.filter(read_at__isnull=True).count() == 1
        page.goto("/notifications/?show=unread")
        screenshot(page, "inbox-unread")
