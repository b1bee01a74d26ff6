"""The staff audit in a browser, as staff who may not read the workspace: the audit trail and the correction history
in words, the workspace's titles and texts withheld, no PROV export to download, and the admin's list of audit events
narrowed by its own filters alone."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Permission

from claims.graph import search as search_graph
from tests.conftest import MakeUser
from tests.e2e.conftest import log_in, screenshot
from tests.e2e.test_review import correct_june_to_july

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


class StaffAuditIsolationInBrowserTests:
    def test_staff_outside_the_workspace_read_the_correction_history_but_not_the_workspace(
        self, page: Any, live_server: Any, demo_workspace: Any, make_user: MakeUser
    ) -> None:
        june = search_graph.claim_search_phrase(
            workspace=demo_workspace, phrase="the product launch is in june", limit=1
        )[0]
        correct_june_to_july(page, demo_workspace.id, june.id)
        page.context.clear_cookies()
        sam = make_user("sam", is_staff=True)
        log_in(page, live_server, sam)

        page.goto("/audit/")
        table = page.locator("table.events")
        table.get_by_text("added a source (title withheld: not a member)").first.wait_for()
        correction = "corrected “The product launch is in June.” to “The product launch is in July.”"
        assert table.get_by_text(correction).count() == 1
        assert "The board moved the launch on 2 April." in table.inner_text()
        page.get_by_text("Export a workspace's provenance as W3C PROV").click()
        page.get_by_text("you are neither for any workspace").wait_for()
        assert page.locator("a[href*='/audit/prov']").count() == 0
        screenshot(page, "audit-staff-outside")

        table.locator("tr", has_text=correction).get_by_role("link").first.click()
        page.get_by_role("heading", name="Correction").wait_for()
        facts = page.locator("dl.facts")
        assert "“The product launch is in June.”" in facts.inner_text() and "W3C PROV" not in facts.inner_text()
        screenshot(page, "audit-event-staff-outside")

        page.get_by_role("link", name="Its page, with its impact as it was when applied").click()
        page.get_by_role("heading", level=1).wait_for()
        body = page.locator("main").inner_text()
        assert "“The product launch is in June.” → “The product launch is in July.”" in body
        assert "No picture: it draws the source" in body and "Download" not in body
        assert "Its evidence, a quote from the source, is withheld" in body
        assert "Its evidence: the reviewer's correction." in body
        screenshot(page, "audit-correction-staff-outside")

        # The admin's list of audit events: its own filters, and nothing typed in the address besides.
        sam.user_permissions.add(Permission.objects.get(codename="view_auditevent"))
        page.goto("/admin/workspaces/auditevent/?verb=correction.applied")
        assert page.locator("#result_list tbody tr").count() == 1
        screenshot(page, "admin-audit-events-staff-outside")
        page.goto("/admin/workspaces/auditevent/?target__icontains=june")
        page.get_by_text("can be narrowed only by the filters beside the list").wait_for()
        screenshot(page, "admin-audit-events-filter-refused")
