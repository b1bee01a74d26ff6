"""A reviewer pages through 120 claims and filters lists from the address, in the browser, with and without JavaScript."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from agents.services import decisions as decision_services
from agents.services import runs as run_services
from claims.services import claims as claims_services
from claims.services import sources as sources_services
from tests.conftest import Trio
from tests.e2e.conftest import log_in, screenshot, settled

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def fact(n: int) -> str:
    return f"Fact {n:03} holds"


def add_claims(trio: Trio, count: int) -> list[str]:
    """A source with `count` sentences and a claim on each, added oldest first; returns the claims' ids."""
    text = " ".join(f"{fact(n)}." for n in range(1, count + 1))
    source = sources_services.source_add(workspace=trio.workspace, title="Facts", text=text, actor=trio.reviewer)
    return [
        claims_services.claim_add(
            workspace=trio.workspace, source_id=source.id, statement=f"{fact(n)}.", evidence_quote=fact(n),
            actor=trio.reviewer,
        ).id
        for n in range(1, count + 1)
    ]  # fmt: skip


def rows(page: Any) -> Any:
    return page.locator("#claims-list tbody tr")


class ClaimPagingTests:
    def test_pagination_over_120_claims(self, page: Any, live_server: Any, trio: Trio) -> None:
        add_claims(trio, 120)
        log_in(page, live_server, trio.viewer)
        page.goto(f"/w/{trio.workspace.id}/claims/")
        pager = page.get_by_role("navigation", name="Pages of claims")
        expect(pager.locator(".range")).to_have_text("1–25 of 120 claims")
        expect(rows(page)).to_have_count(25)
        expect(rows(page).first).to_contain_text("Fact 120 holds.")
        screenshot(page, "lists-claims-page-1")
        # The pager swaps the list in place (htmx): the page itself is never reloaded.
        page.evaluate("window.__sameDocument = true")

        pager.get_by_role("link", name="Next ›").click()
        expect(pager.locator(".range")).to_have_text("26–50 of 120 claims")
        expect(rows(page).first).to_contain_text("Fact 095 holds.")
        assert page.url.endswith("/claims/?page=2")

        pager.get_by_role("link", name="‹ Previous").click()
        expect(pager.locator(".range")).to_have_text("1–25 of 120 claims")
        assert page.url.split("/claims/")[1] in ("", "?")

        pager.get_by_role("link", name="Page 5").click()
        expect(pager.locator(".range")).to_have_text("101–120 of 120 claims")
        expect(rows(page)).to_have_count(20)
        expect(rows(page).last).to_contain_text("Fact 001 holds.")
        expect(pager.locator("[aria-current=page]")).to_have_text("5")
        assert page.url.endswith("/claims/?page=5") and page.evaluate("window.__sameDocument") is True
        expect(pager.get_by_role("link", name="Next ›")).to_have_count(0)  # a plain word on the last page
        settled(page)
        screenshot(page, "lists-claims-page-5")

        # Back goes to the page before, as any address does.
        page.go_back()
        expect(pager.locator(".range")).to_have_text("1–25 of 120 claims")

        # A row's link is a plain link to its page (only the list's own controls swap the list).
        rows(page).first.get_by_role("link", name="Fact 120 holds.").click()
        expect(page.locator("main h1")).not_to_have_text("Claims")
        assert page.evaluate("window.__sameDocument") is None

    def test_the_pager_and_sort_work_without_javascript(self, browser: Any, live_server: Any, trio: Trio) -> None:
        add_claims(trio, 30)
        context = browser.new_context(
            base_url=live_server.url, java_script_enabled=False, viewport={"width": 1280, "height": 800}
        )
        page = context.new_page()
        log_in(page, live_server, trio.viewer)
        page.goto(f"/w/{trio.workspace.id}/claims/")
        page.get_by_role("link", name="Next ›").click()
        expect(page.locator("nav.pager .range")).to_have_text("26–30 of 30 claims")
        assert page.url.endswith("/claims/?page=2")
        page.get_by_role("link", name="Claim", exact=True).click()
        expect(page.locator("nav.pager .range")).to_have_text("1–25 of 30 claims")
        expect(rows(page).first).to_contain_text("Fact 001 holds.")
        assert page.url.endswith("/claims/?sort=statement")
        page.get_by_label("Source").fill("facts")
        page.get_by_role("button", name="Filter").click()
        expect(page.locator("p.filtered")).to_contain_text("30 claims match source “facts”.")
        assert "source=facts" in page.url and "sort=statement" in page.url
        context.close()


class FiltersInTheAddressTests:
    def test_filters_in_the_url(self, page: Any, browser: Any, live_server: Any, trio: Trio) -> None:
        add_claims(trio, 4)
        memo = sources_services.source_add(
            workspace=trio.workspace, title="Office memo", text="Berlin is the new office.", actor=trio.owner
        )
        claims_services.claim_add(
            workspace=trio.workspace, source_id=memo.id, statement="The office is in Berlin.",
            evidence_quote="Berlin is the new office", actor=trio.owner,
        )  # fmt: skip
        log_in(page, live_server, trio.viewer)
        page.goto(f"/w/{trio.workspace.id}/claims/")
        expect(page.locator("nav.pager .range")).to_have_text("1–5 of 5 claims")

        page.get_by_label("Status").select_option(label="Current")
        page.get_by_label("Source").fill("MEMO")
        page.get_by_label("Added by").fill(trio.owner.username[:3])
        page.get_by_role("button", name="Filter").click()
        filtered = page.locator("#claims-list p.filtered")
        expect(filtered).to_contain_text("1 claim matches status Current, source “MEMO”")
        expect(rows(page)).to_have_count(1)
        settled(page)
        address = page.url
        assert (
            "status=current" in address and "source=MEMO" in address and f"author={trio.owner.username[:3]}" in address
        )
        screenshot(page, "lists-claims-filtered")

        # Reloading keeps them: the form shows them and the list is the same.
        page.reload()
        expect(rows(page)).to_have_count(1)
        expect(rows(page).first).to_contain_text("The office is in Berlin.")
        expect(page.get_by_label("Status")).to_have_value("current")
        expect(page.get_by_label("Source")).to_have_value("MEMO")

        # The address shared with a colleague opens on the same rows.
        colleague = browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 800})
        other = colleague.new_page()
        log_in(other, live_server, trio.reviewer)
        other.goto(address)
        expect(other.locator("#claims-list tbody tr")).to_have_count(1)
        expect(other.locator("#claims-list p.filtered")).to_contain_text("1 claim matches status Current")
        colleague.close()

        # A sort header keeps the filters; Clear filters keeps the sort and drops the filters.
        page.get_by_role("link", name="Claim", exact=True).click()
        expect(page.locator("th[aria-sort=ascending]")).to_contain_text("Claim")
        assert "sort=statement" in page.url and "status=current" in page.url
        page.get_by_role("link", name="Clear filters").click()
        expect(page.locator("nav.pager .range")).to_have_text("1–5 of 5 claims")
        expect(page.get_by_label("Source")).to_have_value("")
        assert page.url.endswith("/claims/?sort=statement")

    def test_searching_as_one_types_and_the_other_lists(self, page: Any, live_server: Any, trio: Trio) -> None:
        first, second, _ = add_claims(trio, 3)
        run_services.ask(workspace=trio.workspace, question="Which facts hold?", actor=trio.reviewer)
        for title, claim in (("Trust fact one", first), ("Trust fact two", second)):
            decision = decision_services.decision_add(
                workspace=trio.workspace, title=title, rationale="", justifications=[[claim]], actor=trio.reviewer
            )
            decision_services.action_add(
                workspace=trio.workspace, title=f"Tell the team: {title.lower()}", decision_ids=[decision.id],
                actor=trio.reviewer,
            )  # fmt: skip
        log_in(page, live_server, trio.viewer)
        page.goto(f"/w/{trio.workspace.id}/claims/")
        page.get_by_label("Search", exact=True).fill("fact 002")
        expect(rows(page)).to_have_count(1)
        expect(rows(page).first).to_contain_text("Fact 002 holds.")
        expect(page.locator("#claims-list p.filtered")).to_contain_text("1 claim matches search “fact 002”.")
        settled(page)
        assert page.url.endswith("/claims/?q=fact+002")
        screenshot(page, "lists-claims-searched")

        page.goto(f"/w/{trio.workspace.id}/sources/?extraction=none")
        expect(page.locator("p.filtered")).to_contain_text("1 source matches extraction Never extracted.")
        screenshot(page, "lists-sources")
        page.goto(f"/w/{trio.workspace.id}/ask/")
        page.get_by_role("link", name="See all runs, with filters").click()
        expect(page.locator("#runs-list tbody tr")).to_have_count(1)
        page.locator("select[name=origin]").select_option(label="An outside agent (MCP)")
        page.get_by_role("button", name="Filter").click()
        expect(page.locator("#runs-list p.filtered")).to_contain_text("0 runs match origin An outside agent (MCP).")
        screenshot(page, "lists-runs-filtered")

        # A decision's action count opens the actions list filtered by that decision, named by its title.
        page.goto(f"/w/{trio.workspace.id}/decisions/")
        screenshot(page, "lists-decisions")
        page.locator("tr", has_text="Trust fact one").get_by_role(
            "link", name="1 action resting on this decision"
        ).click()
        expect(page.locator("#actions-list p.filtered")).to_contain_text(
            "1 action matches depends on decision “Trust fact one”."
        )
        expect(page.locator("#actions-list tbody tr")).to_have_count(1)
        screenshot(page, "lists-actions-of-a-decision")
