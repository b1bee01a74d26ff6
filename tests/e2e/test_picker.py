"""The picker in a browser: a new decision's justifications, re-justify, derive, the history's claim filter and the
actions' decision filter — each chosen by typing words and picking, never by typing or pasting an id."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from agents.graph import decisions as decisions_graph
from claims.graph import search as search_graph
from corrections.services import apply as apply_services
from corrections.services import preview as preview_services
from tests.e2e.conftest import screenshot, settled
from tests.e2e.test_csp import WATCH_VIOLATIONS, Watch
from workspaces.models import Workspace

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@pytest.fixture
def watch(page: Any, live_server: Any) -> Iterator[Watch]:
    page.context.add_init_script(WATCH_VIOLATIONS)
    yield Watch(page, live_server.url)


def claim_id(workspace: Workspace, statement: str) -> str:
    return search_graph.claim_search_phrase(workspace=workspace, phrase=statement.lower(), limit=1)[0].id


def correct(workspace: Workspace, statement: str, replacement: str, actor: Any) -> None:
    """A correction applied as the page applies it: preview, then apply what was previewed."""
    old = claim_id(workspace, statement)
    preview = preview_services.preview(workspace=workspace, claim_id=old, statement=replacement)
    apply_services.apply(
        workspace=workspace, claim_id=old, statement=replacement, reason="The board moved it.",
        revision=preview.fingerprint, idempotency_key=f"e2e-{old}", actor=actor,
    )  # fmt: skip


def search(picker: Any, words: str) -> None:
    """Types into the picker's search box and waits for its own results (not the newest, shown before)."""
    picker.locator("[data-picker-q]").fill("")
    picker.locator("[data-picker-q]").press_sequentially(words, delay=20)
    picker.locator(".pick-caption", has_text=f"matching “{words}”").wait_for()


def no_id_typed(page: Any) -> None:
    """No field a person can see holds an id: they were all chosen by their words."""
    for field in page.locator("input:visible, textarea:visible").all():
        assert not UUID.search(field.input_value() or ""), field.evaluate("node => node.outerHTML")


class PickerTests:
    def test_pick_claims_into_a_decision_without_typing_an_id(
        self, page: Any, watch: Watch, demo_workspace: Workspace
    ) -> None:
        workspace = demo_workspace
        watch.visit(f"/w/{workspace.id}/decisions/")
        form = page.locator("#new-decision")
        form.get_by_label("Title").fill("Ship the launch kits in June")
        first = page.locator("#justification-1 .picker").first
        # Before typing, focusing the box offers the newest claims.
        first.locator("[data-picker-q]").focus()
        first.locator(".pick-caption", has_text="The newest claims").wait_for()
        search(first, "launch is in June")
        # The keyboard alone: down to the first result, Enter picks it.
        first.locator("[data-picker-q]").press("ArrowDown")
        active = first.locator(".pick-results li.is-active")
        assert "The product launch is in June." in active.inner_text()
        first.locator("[data-picker-q]").press("Enter")
        first.locator("ul.chosen li.chosen-item", has_text="The product launch is in June.").wait_for()
        first.locator("[data-picker-q]").press("Escape")
        assert not first.locator(".pick-results").is_visible()

        form.get_by_role("button", name="Add another justification").click()
        second = page.locator("#justification-2 .picker").first
        second.wait_for()
        settled(page)
        search(second, "Northwind")
        second.locator(".pick-results li", has_text="Northwind expects the launch in June.").get_by_role(
            "button", name="Add"
        ).click()
        second.locator("ul.chosen li.chosen-item", has_text="Northwind expects the launch in June.").wait_for()
        # A decision can rest on a decision too: the budget line of the second justification is the plan's decision.
        page.locator("#justification-2 summary", has_text="Rest on decisions too").click()
        decisions = page.locator("#justification-2 .picker").nth(1)
        search(decisions, "Launch in June")
        decisions.locator(".pick-results li", has_text="Launch in June").get_by_role("button", name="Add").click()
        decisions.locator("ul.chosen li.chosen-item", has_text="Launch in June").wait_for()
        settled(page)
        no_id_typed(page)
        screenshot(page, "picker-new-decision-two-justifications")
        watch.assert_clean()

        form.get_by_role("button", name="Create decision").click()
        page.wait_for_url("**/decisions/*/")
        assert page.locator("h1").inner_text() == "Ship the launch kits in June"
        created = decisions_graph.decision_list(workspace=workspace)[0]
        june = claim_id(workspace, "The product launch is in June.")
        northwind = claim_id(workspace, "Northwind expects the launch in June.")
        launch = next(d for d in decisions_graph.decision_list(workspace=workspace) if d.title == "Launch in June")
        assert sorted(created.justifications) == sorted([[june], sorted([northwind, launch.id])])
        screenshot(page, "picker-new-decision-created")
        watch.assert_clean()

    def test_a_refused_decision_keeps_what_was_picked_and_reloading_shows_the_form(
        self, page: Any, watch: Watch, demo_workspace: Workspace
    ) -> None:
        workspace = demo_workspace
        watch.visit(f"/w/{workspace.id}/decisions/")
        page.locator("#new-decision").get_by_label("Title").fill("Nothing chosen")
        page.locator("#new-decision").get_by_role("button", name="Create decision").click()
        page.get_by_text("Choose what it rests on").wait_for()
        assert page.locator("#new-decision").get_by_label("Title").input_value() == "Nothing chosen"
        # Opening the address the refused form was posted to (Enter in the address bar) shows the form, not a
        # blank 405.
        assert page.url.endswith(f"/w/{workspace.id}/decisions/new")
        response = page.goto(page.url)
        assert response.status == 200 and page.locator("#new-decision h2").inner_text() == "New decision"
        assert page.get_by_text("Choose what it rests on").count() == 0
        screenshot(page, "picker-new-decision-reloaded")
        watch.assert_clean()

    def test_rejustify_with_the_picker(self, page: Any, watch: Watch, demo_workspace: Workspace) -> None:
        workspace = demo_workspace
        owner = workspace.memberships.get(role="admin").user
        correct(workspace, "The marketing campaign starts in May.", "The marketing campaign starts in April.", owner)
        watch.visit(f"/w/{workspace.id}/review/")
        item = page.locator(".review-item", has_text="Book the May campaign slots")
        picker = item.locator(".picker")
        search(picker, "campaign starts")
        superseded = picker.locator(".pick-results li", has_text="The marketing campaign starts in May.")
        assert "cannot support: it is superseded" in superseded.inner_text()
        assert superseded.get_by_role("button", name="Add").count() == 0
        picker.locator("[data-picker-q]").press("ArrowDown")
        assert "starts in April" in picker.locator(".pick-results li.is-active").inner_text()
        picker.locator("[data-picker-q]").press("Enter")
        picker.locator("ul.chosen li.chosen-item", has_text="starts in April").wait_for()
        screenshot(page, "picker-rejustify-picked")
        item.get_by_role("button", name="Re-justify with the chosen claims").click()
        page.get_by_text("“Book the May campaign slots” is supported again").wait_for()
        screenshot(page, "picker-rejustified")
        watch.assert_clean()

    def test_derive_with_the_picker_and_a_failed_derive_keeps_what_was_typed(
        self, page: Any, watch: Watch, demo_workspace: Workspace
    ) -> None:
        workspace = demo_workspace
        owner = workspace.memberships.get(role="admin").user
        watch.visit(f"/w/{workspace.id}/claims/")
        page.get_by_text("Derive a claim from other claims").click()
        derive = page.locator("#derive")
        derive.get_by_label("Statement").fill("The launch is a summer launch.")
        picker = derive.locator(".picker")
        search(picker, "launch is in June")
        picker.locator(".pick-results li", has_text="The product launch is in June.").get_by_role(
            "button", name="Add"
        ).click()
        picker.locator("ul.chosen li.chosen-item", has_text="The product launch is in June.").wait_for()
        screenshot(page, "picker-derive-picked")
        # Meanwhile someone corrects the chosen claim: the derive is refused, and nothing typed is lost.
        correct(workspace, "The product launch is in June.", "The product launch is in July.", owner)
        derive.get_by_role("button", name="Derive").click()
        page.get_by_text("Nothing was derived:").wait_for()
        derive = page.locator("#derive")
        assert derive.get_by_label("Statement").input_value() == "The launch is a summer launch."
        assert "The product launch is in June." in derive.locator("ul.chosen").inner_text()
        screenshot(page, "picker-derive-refused-kept")
        # Remove the superseded claim, pick its replacement, and derive.
        derive.locator("ul.chosen").get_by_role("button", name="Remove").click()
        search(derive.locator(".picker"), "in July")
        derive.locator(".pick-results li", has_text="The product launch is in July.").get_by_role(
            "button", name="Add"
        ).click()
        derive.locator("ul.chosen li.chosen-item", has_text="The product launch is in July.").wait_for()
        derive.get_by_label("Statement").fill("The launch is a summer launch.")
        derive.get_by_role("button", name="Derive").click()
        page.wait_for_url("**/claims/*/")
        assert "derived from" in page.locator("main").inner_text().lower()
        assert "The product launch is in July." in page.locator("main").inner_text()
        watch.assert_clean()

    def test_history_filtered_by_a_picked_claim(self, page: Any, watch: Watch, demo_workspace: Workspace) -> None:
        workspace = demo_workspace
        owner = workspace.memberships.get(role="admin").user
        correct(workspace, "The product launch is in June.", "The product launch is in July.", owner)
        correct(workspace, "The launch budget is 40,000 EUR.", "The launch budget is 45,000 EUR.", owner)
        june = claim_id(workspace, "The product launch is in June.")
        watch.visit(f"/w/{workspace.id}/corrections/")
        picker = page.locator(".filters-form .picker")
        search(picker, "launch is in June")
        # A superseded claim is what one looks for here: it can be picked.
        picker.locator(".pick-results li", has_text="The product launch is in June.").get_by_role(
            "button", name="Add"
        ).click()
        page.wait_for_url(re.compile(rf"/corrections/\?(.*&)?claim={june}"))
        # Shareable: the claim's id, and no empty search box, in the address.
        assert "claim_q" not in page.url
        chosen = page.locator(".filters-form ul.chosen")
        assert "The product launch is in June." in chosen.inner_text() and june not in chosen.inner_text()
        table = page.locator("table.list")
        assert "The product launch is in July." in table.inner_text() and "45,000" not in table.inner_text()
        screenshot(page, "picker-history-by-claim")
        # The address can be shared: opened again, it shows the same.
        page.goto(page.url)
        assert "The product launch is in June." in page.locator(".filters-form ul.chosen").inner_text()
        watch.assert_clean()

    def test_actions_filtered_by_a_picked_decision(self, page: Any, watch: Watch, demo_workspace: Workspace) -> None:
        workspace = demo_workspace
        booking = next(d for d in decisions_graph.decision_list(workspace=workspace) if d.title.startswith("Book"))
        watch.visit(f"/w/{workspace.id}/actions/")
        picker = page.locator("#decision-picker")
        search(picker, "campaign")
        picker.locator("[data-picker-q]").press("ArrowDown")
        picker.locator("[data-picker-q]").press("Enter")
        page.wait_for_url(re.compile(rf"/actions/\?decision={booking.id}$"))
        assert "Book the May campaign slots" in page.locator("#decision-picker ul.chosen").inner_text()
        rows = page.locator("#actions-list tbody tr")
        assert rows.count() == 1 and "Pay the ad agency deposit" in rows.first.inner_text()
        screenshot(page, "picker-actions-by-decision")
        page.locator("#decision-picker ul.chosen").get_by_role("button", name="Remove").click()
        page.wait_for_url(re.compile(rf"/w/{workspace.id}/actions/\??$"))
        page.locator("#actions-list tbody tr", has_text="Send the launch announcement").wait_for()
        watch.assert_clean()


class WithoutJavaScriptTests:
    def test_a_decision_is_made_with_the_pickers_buttons_alone(
        self, browser: Any, live_server: Any, demo_workspace: Workspace
    ) -> None:
        from tests.e2e.conftest import log_in

        context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
        page = context.new_page()
        page.set_default_timeout(15_000)
        owner = demo_workspace.memberships.get(role="admin").user
        log_in(page, live_server, owner)
        page.goto(f"/w/{demo_workspace.id}/decisions/new")
        form = page.locator("#new-decision")
        form.get_by_label("Title").fill("Tell Northwind the date")
        # The results are shown as they are, the newest first; Search asks the server, keeping what was typed.
        first = page.locator("#justification-1 .picker").first
        first.locator("[data-picker-q]").fill("Northwind")
        first.get_by_role("button", name="Search").click()
        first = page.locator("#justification-1 .picker").first
        first.locator(".pick-caption", has_text="Claims matching “Northwind”").wait_for()
        assert form.get_by_label("Title").input_value() == "Tell Northwind the date"
        first.locator(".pick-results li", has_text="Northwind expects the launch in June.").get_by_role(
            "button", name="Add"
        ).click()
        page.locator("#justification-1 ul.chosen li.chosen-item", has_text="Northwind expects").wait_for()
        screenshot(page, "picker-without-javascript")
        page.locator("#new-decision").get_by_role("button", name="Create decision").click()
        page.wait_for_url("**/decisions/*/")
        assert page.locator("h1").inner_text() == "Tell Northwind the date"
        context.close()
