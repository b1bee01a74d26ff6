"""The timeline of changes of belief and the diff between two moments in a browser, after a correction made on
its page: an auditor reads what changed, narrows it, and compares two moments."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

import pytest

from afterhack.clock import now_iso
from agents.services import decisions as agents_services
from claims.graph import search as search_graph
from tests.e2e.conftest import screenshot, settled
from tests.e2e.test_review import correct_june_to_july
from workspaces.models import Role

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

WIDTHS = (1280, 800)


class TimelineInBrowserTests:
    def test_the_timeline_and_the_diff_after_a_correction(self, page: Any, demo_workspace: Any) -> None:
        workspace = demo_workspace
        admin = workspace.memberships.get(role=Role.ADMIN).user
        june = search_graph.claim_search_phrase(workspace=workspace, phrase="the product launch is in june", limit=1)[0]
        decision = agents_services.decision_add(
            workspace=workspace, title="Launch in June", rationale="The plan says so.", justifications=[[june.id]],
            actor=admin,
        )  # fmt: skip
        agents_services.action_add(
            workspace=workspace, title="Print the June launch flyers", decision_ids=[decision.id], actor=admin
        )
        before = now_iso()
        correct_june_to_july(page, workspace.id, june.id)

        page.goto(f"/w/{workspace.id}/")
        page.get_by_role("link", name="History", exact=True).click()
        page.get_by_role("navigation", name="History").get_by_role("link", name="Timeline").click()
        page.wait_for_url(f"**/w/{workspace.id}/timeline/")
        rows = page.locator("table.timeline tbody tr")
        claim_row = rows.filter(has_text="The product launch is in June")
        assert re.search(r"current\s*→\s*superseded", claim_row.inner_text())
        assert "The product launch is in July." in claim_row.inner_text() and "admin" in claim_row.inner_text()
        decision_row = rows.filter(has_text="Launch in June")
        assert re.search(r"supported\s*→\s*needs review", decision_row.first.inner_text())
        flyers = rows.filter(has_text="Print the June launch flyers")
        assert re.search(r"pending\s*→\s*held", flyers.inner_text())
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 900})
            assert not page.evaluate("() => document.documentElement.scrollWidth > window.innerWidth"), width
            screenshot(page, f"timeline-{width}")

        # Narrowed to decisions, in place (htmx), the address keeping the filter.
        page.set_viewport_size({"width": 1280, "height": 900})
        page.locator("select[name=kind]").select_option(label="Decisions")
        page.get_by_role("button", name="Filter").click()
        page.get_by_text("match kind Decisions").wait_for()
        settled(page)
        assert "kind=decision" in page.url
        assert rows.count() == len([r for r in rows.all_inner_texts() if "decision" in r]) >= 1

        # The cause links to the correction; the diff of the last 7 days names what changed and what is new.
        page.get_by_role("navigation", name="History").get_by_role("link", name="What changed").click()
        page.wait_for_url(f"**/w/{workspace.id}/diff/")
        summary = page.locator(".diff-summary")
        summary.wait_for()
        assert "Decisions:" in summary.inner_text() and "Actions:" in summary.inner_text()
        assert page.get_by_role("link", name="The product launch is in July.").count() >= 1
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 900})
            assert not page.evaluate("() => document.documentElement.scrollWidth > window.innerWidth"), width
            screenshot(page, f"diff-{width}")

        # From the moment before the correction to now: what it changed, with its cause and who.
        page.set_viewport_size({"width": 1280, "height": 900})
        page.goto(f"/w/{workspace.id}/diff/?from={quote(before)}")
        changed = page.locator("section.diff-kind", has_text="Decisions")
        assert re.search(r"supported\s*→\s*needs review", changed.inner_text())
        assert "correction: “The product launch is in July.”, by admin" in changed.inner_text()
        claims = page.locator("section.diff-kind", has_text="Claims")
        assert re.search(r"current\s*→\s*superseded", claims.inner_text()) and "New (1)" in claims.inner_text()
        screenshot(page, "diff-window-1280")

        # A "from" after "to" is a sentence on the page, with the fields to fix it.
        page.locator("input[name=to]").fill("2020-01-01T00:00")
        page.get_by_role("button", name="Compare").click()
        page.get_by_role("alert").wait_for()
        page.set_viewport_size({"width": 800, "height": 900})
        assert "is after “to”" in page.get_by_role("alert").inner_text()
        screenshot(page, "diff-refused-800")

    def test_a_staff_auditor_finds_the_prov_export_on_the_audit_pages(self, page: Any, demo_workspace: Any) -> None:
        from workspaces.models import AuditEvent

        workspace = demo_workspace
        admin = workspace.memberships.get(role=Role.ADMIN).user
        june = search_graph.claim_search_phrase(workspace=workspace, phrase="the product launch is in june", limit=1)[0]
        correct_june_to_july(page, workspace.id, june.id)
        page.set_viewport_size({"width": 800, "height": 900})
        page.goto("/audit/")
        page.get_by_text("Export a workspace's provenance as W3C PROV").click()
        link = page.get_by_role("link", name=f"{workspace.name} as Turtle")
        link.wait_for()
        screenshot(page, "audit-prov-800")
        with page.expect_download() as download_info:
            link.click()
        assert download_info.value.suggested_filename == f"afterhack-prov-{workspace.id}.ttl"
        event = AuditEvent.objects.get(verb="correction.applied", actor=admin)
        page.goto(f"/audit/events/{event.pk}/")
        with page.expect_download() as download_info:
            page.get_by_role("link", name="PROV-JSON").click()
        assert download_info.value.suggested_filename == f"afterhack-prov-{june.id}.json"
        screenshot(page, "audit-event-prov-800")
