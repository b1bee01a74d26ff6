"""History and audit in a browser: the staff audit's filters and its CSV download, the correction history's
filters, and the workspace's activity with rows that link to what they name."""

from __future__ import annotations

import csv
from typing import Any

import pytest

from claims.services import sources as sources_services
from tests.conftest import MakeUser
from tests.e2e.conftest import screenshot, settled
from tests.e2e.test_review import correct_june_to_july
from workspaces.models import AuditEvent, Role
from workspaces.services import memberships as membership_services
from workspaces.services import workspaces as workspace_services

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


class AuditInBrowserTests:
    def test_an_auditor_filters_the_audit_and_downloads_exactly_those_rows(
        self, page: Any, live_server: Any, demo_workspace: Any, make_user: MakeUser
    ) -> None:
        admin = demo_workspace.memberships.get(role=Role.ADMIN).user
        rita = make_user("rita", first_name="Rita", last_name="Hayworth")
        membership_services.member_add(workspace=demo_workspace, username="rita", role=Role.REVIEWER, actor=admin)
        other = workspace_services.workspace_create(name="Hiring", creator=admin)
        for n in range(28):
            sources_services.source_add(workspace=demo_workspace, title=f"Note {n}", text=f"Note {n}.", actor=rita)
        sources_services.source_add(workspace=other, title="=HYPERLINK(1)", text="Job ad.", actor=rita)

        page.goto("/audit/")
        page.locator("nav.pager .range").wait_for()
        page.locator("select[name=workspace]").select_option(label=demo_workspace.name)
        page.get_by_label("Person", exact=True).fill("HAYW")
        page.locator("select[name=kind]").select_option(label="Source added")
        page.get_by_role("button", name="Filter").click()
        page.get_by_text("28 events match workspace").wait_for()
        settled(page)
        assert "actor=HAYW" in page.url and "kind=source.added" in page.url
        page.get_by_text("1–25 of 28 events").wait_for()
        screenshot(page, "audit-filtered")

        with page.expect_download() as download_info:
            page.get_by_role("link", name="Download these 28 events as CSV").click()
        download = download_info.value
        assert download.suggested_filename.startswith("afterhack-audit-") and download.suggested_filename.endswith(
            ".csv"
        )
        with open(download.path(), newline="", encoding="utf-8-sig") as handle:
            header, *rows = list(csv.reader(handle))
        assert header[:4] == ["time (UTC)", "workspace", "person", "kind"]
        expected = AuditEvent.objects.filter(workspace=demo_workspace, actor_name="rita", verb="source.added")
        assert sorted(row[4] for row in rows) == sorted(event.summary for event in expected) and len(rows) == 28
        assert {row[1] for row in rows} == {demo_workspace.name} and {row[3] for row in rows} == {"Source added"}

        page.get_by_role("link", name="Clear filters").first.click()
        page.locator("table.events td", has_text="Hiring").first.wait_for()
        settled(page)
        assert "actor=" not in page.url
        screenshot(page, "audit-all")

        page.locator("table.events tr", has_text="=HYPERLINK(1)").get_by_role("link").first.click()
        page.get_by_role("heading", name="Source added").wait_for()
        # The auditor made "Hiring", so they belong to it: its pages are links.
        assert page.locator("dl.facts").get_by_role("link", name="Hiring").is_visible()
        page.get_by_text("Everything the event recorded").click()
        page.locator("pre.recorded").wait_for()
        screenshot(page, "audit-event")


class HistoryAndActivityInBrowserTests:
    def test_a_reviewer_filters_the_history_and_follows_activity_links(
        self, page: Any, live_server: Any, demo_workspace: Any
    ) -> None:
        june = AuditEvent.objects.get(verb="claim.added", target="The product launch is in June.").payload["claim_id"]
        correct_june_to_july(page, demo_workspace.id, june)
        screenshot(page, "audit-correction-detail")
        history = f"/w/{demo_workspace.id}/corrections/"
        page.goto(history)
        page.get_by_label("Person", exact=True).fill("ADM")
        page.get_by_label("Kind").select_option(label="Sent decisions to review")
        page.get_by_role("button", name="Filter").click()
        page.get_by_text("1 correction matches person").wait_for()
        settled(page)
        assert "The product launch is in July." in page.locator("table.list").inner_text()
        screenshot(page, "history-filtered")

        page.get_by_label("Person", exact=True).fill("nobody")
        page.get_by_role("button", name="Filter").click()
        page.get_by_text("No corrections match person “nobody”").wait_for()
        settled(page)
        screenshot(page, "history-no-match")
        page.get_by_role("link", name="Clear filters").click()
        page.locator("table.list").wait_for()

        page.goto(f"/w/{demo_workspace.id}/")
        page.get_by_role("link", name="See all activity").wait_for()
        screenshot(page, "dashboard-activity")
        page.get_by_role("link", name="See all activity").click()
        page.wait_for_url("**/activity/")
        page.get_by_label("Kind").select_option(label="Decision created")
        page.get_by_role("button", name="Filter").click()
        page.get_by_text("match kind Decision created").wait_for()
        settled(page)
        screenshot(page, "activity-decisions")
        page.locator("table.events a", has_text="created the decision “Launch in June”").click()
        page.wait_for_url("**/decisions/*/")
        page.get_by_role("heading", level=1, name="Launch in June").wait_for()
        assert page.get_by_role("heading", level=1).count() == 1
