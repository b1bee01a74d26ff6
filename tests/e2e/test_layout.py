"""Every page at 1280 and 800 pixels: nothing wider than the window, short words never broken, headings
whose buttons stay on one line; and the keyboard: "/" to search, a visible focus ring, a skip link."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlencode

import pytest

from afterhack.clock import now_iso
from agents.selectors import decisions as agents_selectors
from claims.graph import search as search_graph
from claims.graph import sources as sources_graph
from claims.services import sources as sources_services
from corrections.services import apply as apply_services
from corrections.services import preview as preview_services
from tests.e2e.conftest import screenshot, settled
from workspaces.models import Workspace

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

WIDTHS = (1280, 800)
LONG_TITLE = "Minutes of the quarterly board meeting on the launch budget, the vendor review and the hiring freeze"

# How many lines an element's text takes: the distinct tops of its line boxes.
LINES = """(element) => {
    const range = document.createRange();
    range.selectNodeContents(element);
    return new Set([...range.getClientRects()].map(rect => Math.round(rect.top))).size;
}"""


@pytest.fixture
def busy_demo(demo_workspace: Workspace) -> dict[str, str]:
    """The demo after a day's work: a correction applied, a source with a long title; the pages' addresses."""
    workspace = demo_workspace
    admin = workspace.memberships.get().user
    june = search_graph.claim_search_phrase(workspace=workspace, phrase="the product launch is in june", limit=1)[0]
    before = "?" + urlencode({"as_of": now_iso()})  # the pages as they were before the correction
    plan = preview_services.preview(workspace=workspace, claim_id=june.id, statement="The product launch is in July.")
    outcome = apply_services.apply(
        workspace=workspace, claim_id=june.id, statement="The product launch is in July.",
        reason="The board moved the launch on 2 April.", revision=plan.fingerprint, idempotency_key="layout-1",
        actor=admin,
    )  # fmt: skip
    long = sources_services.source_add(
        workspace=workspace, title=LONG_TITLE, text="The board approved the launch budget.", actor=admin
    )
    decision = agents_selectors.decisions_page(workspace=workspace, status="", limit=50, cursor=None).items[0]
    plan_source = next(s for s in sources_graph.source_list(workspace=workspace) if s.title.startswith("Launch plan"))
    ws = f"/w/{workspace.id}"
    return {
        "workspaces": "/w/",
        "dashboard": f"{ws}/",
        "sources": f"{ws}/sources/",
        "source-new": f"{ws}/sources/new",
        "source": f"{ws}/sources/{plan_source.id}/",
        "source-long-title": f"{ws}/sources/{long.id}/",
        "claims": f"{ws}/claims/",
        "claims-search": f"{ws}/claims/?q=launch",
        "claim": f"{ws}/claims/{june.id}/",
        "claim-replacement": f"{ws}/claims/{outcome.replacement_claim_id}/",
        "chain": f"{ws}/claims/{outcome.replacement_claim_id}/chain",
        "correct": f"{ws}/claims/{outcome.replacement_claim_id}/correct",
        "ask": f"{ws}/ask/",
        "decisions": f"{ws}/decisions/",
        "decision": f"{ws}/decisions/{decision.id}/",
        "actions": f"{ws}/actions/",
        "review": f"{ws}/review/",
        "corrections": f"{ws}/corrections/",
        "correction": f"{ws}/corrections/{outcome.correction_id}/",
        "members": f"{ws}/members/",
        "timeline": f"{ws}/timeline/",
        "diff": f"{ws}/diff/",
        "audit": "/audit/",
        "dashboard-as-of": f"{ws}/{before}",
        "claim-as-of": f"{ws}/claims/{june.id}/{before}",
        "decision-as-of": f"{ws}/decisions/{decision.id}/{before}",
    }


class LayoutTests:
    def test_no_page_is_wider_than_the_window_at_1280_and_800(self, page: Any, busy_demo: dict[str, str]) -> None:
        too_wide = []
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 900})
            for name, address in busy_demo.items():
                response = page.goto(address)
                assert response is not None and response.status == 200, (name, address)
                settled(page)
                if page.evaluate("() => document.documentElement.scrollWidth > window.innerWidth"):
                    too_wide.append((name, width))
                screenshot(page, f"layout-{name}-{width}")
        assert too_wide == []

    def test_who_columns_keep_admin_on_one_line(self, page: Any, busy_demo: dict[str, str]) -> None:
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 900})
            for name in ("dashboard", "corrections", "decisions", "members"):
                page.goto(busy_demo[name])
                cells = page.locator("table.list td", has_text=re.compile(r"^\s*admin(\s+\(you\))?\s*$"))
                cells.first.wait_for()
                for index in range(cells.count()):
                    assert cells.nth(index).evaluate(LINES) == 1, (name, width, cells.nth(index).inner_text())

    def test_a_long_title_wraps_and_its_button_stays_on_one_line(self, page: Any, busy_demo: dict[str, str]) -> None:
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 900})
            page.goto(busy_demo["source-long-title"])
            button = page.get_by_role("link", name="New version or retract")
            assert button.evaluate(LINES) == 1, width
            assert page.get_by_role("heading", level=1).evaluate(LINES) >= 2, width


class KeyboardTests:
    def test_slash_moves_to_the_search_box_unless_typing_in_a_field(self, page: Any, busy_demo: dict[str, str]) -> None:
        page.goto(busy_demo["claims"])
        box = page.get_by_role("searchbox", name="Search", exact=True)
        hint = page.locator(".slash-hint")
        hint.wait_for()
        assert hint.inner_text() == "Press / to search"
        page.get_by_role("link", name="Decisions").focus()
        page.keyboard.press("/")
        page.wait_for_function("() => document.activeElement && document.activeElement.type === 'search'")
        page.keyboard.type("budget")
        assert box.input_value() == "budget"
        # In a field, "/" is a character like any other.
        page.goto(busy_demo["source-long-title"])
        statement = page.get_by_label("Statement")
        statement.click()
        page.keyboard.type("40/60 split")
        assert statement.input_value() == "40/60 split"
        # A page without a search box: "/" does nothing at all.
        page.goto(busy_demo["dashboard"])
        page.keyboard.press("/")
        assert page.evaluate("() => document.activeElement === document.body")

    def test_tabbing_shows_where_the_focus_is_and_skips_the_menus(self, page: Any, busy_demo: dict[str, str]) -> None:
        page.goto(busy_demo["source"])
        page.keyboard.press("Tab")
        skip = page.get_by_role("link", name="Skip to the page")
        assert skip.evaluate("(link) => link === document.activeElement") and skip.is_visible()
        page.keyboard.press("Enter")
        page.keyboard.press("Tab")
        focused = page.evaluate_handle("() => document.activeElement")
        assert focused.evaluate("(element) => element.closest('main') !== null")
        ring = focused.evaluate("(element) => getComputedStyle(element).outlineStyle")
        assert ring != "none"
        # A highlighted passage is reached with Tab and opened with Enter.
        for _ in range(40):
            if page.evaluate("() => document.activeElement.matches('mark[data-claims]')"):
                break
            page.keyboard.press("Tab")
        page.keyboard.press("Enter")
        page.locator("#claim-panel .claim-card").first.wait_for()
        settled(page)
        screenshot(page, "keyboard-passage-opened")
