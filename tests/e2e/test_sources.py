"""A reviewer adds a source, extracts claims with a real worker, sees the highlights and clicks one."""

from __future__ import annotations

from typing import Any

import pytest

from claims.graph import sources as sources_graph
from tests.conftest import Trio
from tests.e2e.conftest import ARTIFACTS, log_in, screenshot, settled

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

TEXT = """Launch plan 🚀

The launch is in June. Ana owns the launch checklist.

The launch budget is 40,000 EUR, approved on 3 March. <b>Not bold</b> & <script>window.pwned = 1</script>"""


def add_source(page: Any, live_server: Any, trio: Trio, title: str, text: str, *, extract: bool = False) -> None:
    """Logs the reviewer in and adds a source through the form (extracting its claims at once only if `extract`: the
    box is checked to begin with); its page is shown."""
    log_in(page, live_server, trio.reviewer)
    page.goto(f"/w/{trio.workspace.id}/sources/new")
    page.get_by_label("Title").fill(title)
    page.get_by_label("Text").fill(text)
    page.get_by_label("Extract its claims now").set_checked(extract)
    page.get_by_role("button", name="Add source").click()
    page.get_by_role("heading", name=title).wait_for()


class SourceFlowTests:
    def test_it_adds_extracts_highlights_and_shows_a_claim(
        self, page: Any, live_server: Any, trio: Trio, no_llm: None, celery_worker_thread: Any
    ) -> None:
        add_source(page, live_server, trio, "Launch plan", TEXT)
        assert page.evaluate("window.pwned") is None
        assert "<b>Not bold</b>" in page.locator("#source-text").inner_text()

        page.get_by_role("button", name="Extract claims").click()
        # The worker runs it; the box polls, then the page reloads with the highlights.
        page.get_by_text("Done:").wait_for(timeout=30_000)
        # "Done:" is first swapped into the box, then the page reloads (HX-Refresh) with the marks:
        # wait for the third mark rather than counting before the reload lands.
        marks = page.locator("#source-text mark")
        marks.nth(2).wait_for(timeout=30_000)
        assert marks.count() >= 3
        screenshot(page, "source-highlighted")

        page.locator("#source-text mark", has_text="The launch is in June.").click()
        card = page.locator("#claim-panel .claim-card")
        card.first.wait_for()
        assert "The launch is in June." in card.first.inner_text() and "rule-based" in card.first.inner_text()
        screenshot(page, "source-claim-clicked")

    def test_a_highlight_names_its_claims_when_pointed_at_or_focused(
        self, page: Any, live_server: Any, trio: Trio
    ) -> None:
        from claims.services import claims as claims_services
        from claims.services import sources as sources_services

        source = sources_services.source_add(workspace=trio.workspace, title="Named", text=TEXT, actor=trio.reviewer)
        for statement, quote in [("Ana owns it.", "Ana owns the launch checklist"), ("Ana <owns> & more.", "Ana owns")]:
            claims_services.claim_add(
                workspace=trio.workspace, source_id=source.id, statement=statement, evidence_quote=quote,
                actor=trio.reviewer,
            )  # fmt: skip
        log_in(page, live_server, trio.reviewer)
        page.goto(f"/w/{trio.workspace.id}/sources/{source.id}/")
        both = page.locator("#source-text mark", has_text="Ana owns").first
        assert both.get_attribute("title") is None  # named from the list under the text, not in the page's HTML
        both.hover()
        assert both.get_attribute("title") == "2 claims: Ana owns it.; Ana <owns> & more."
        one = page.locator("#source-text mark", has_text="checklist")
        one.focus()
        assert one.get_attribute("title") == "Claim: Ana owns it."

    def test_selecting_text_fills_the_quote_with_code_point_offsets(
        self, page: Any, live_server: Any, trio: Trio
    ) -> None:
        from claims.services import sources as sources_services

        source = sources_services.source_add(workspace=trio.workspace, title="Emoji", text=TEXT, actor=trio.reviewer)
        log_in(page, live_server, trio.reviewer)
        page.goto(f"/w/{trio.workspace.id}/sources/{source.id}/")
        quote = "Ana owns the launch checklist"
        page.evaluate(
            """(quote) => {
                const node = [...document.getElementById('source-text').childNodes].find(n => n.textContent.includes(quote));
                const at = node.textContent.indexOf(quote);
                const range = document.createRange();
                range.setStart(node, at); range.setEnd(node, at + quote.length);
                const selection = window.getSelection(); selection.removeAllRanges(); selection.addRange(range);
                document.dispatchEvent(new MouseEvent('mouseup', {bubbles: true}));
            }""",
            quote,
        )
        assert page.locator("#quote-input").input_value() == quote
        assert page.locator("#start-input").input_value() == str(TEXT.index(quote))
        page.get_by_label("Statement").fill("Ana owns the checklist.")
        page.get_by_role("button", name="Add claim").click()
        page.get_by_text("Claim added").wait_for()
        settled(page)
        version = sources_graph.source_get(workspace=trio.workspace, source_id=source.id)
        assert version is not None
        spans = sources_graph.version_claim_spans(workspace=trio.workspace, version_id=version.id)
        assert [(s.start, s.end) for s in spans] == [(TEXT.index(quote), TEXT.index(quote) + len(quote))]


LONG_TEXT = "\n\n".join(
    [
        "Launch plan, second draft",
        "The launch is in June. Ana owns the launch checklist. The launch budget is 40,000 EUR.",
        "Marketing starts in May. The press kit is due on 20 May. Bruno writes the press release.",
        *(
            f"Week {n} of the plan covers the vendor review, the hiring freeze and the office move."
            for n in range(1, 9)
        ),
        "Support hours grow to 18 hours a day in the launch week, paid from the operations budget.",
    ]
)

SELECT_QUOTE = """(quote) => {
    // The quote lies in one text node (inside a highlight or not): select it as a person would.
    const walker = document.createTreeWalker(document.getElementById('source-text'), NodeFilter.SHOW_TEXT);
    let node;
    while ((node = walker.nextNode()) && !node.textContent.includes(quote)) {}
    const at = node.textContent.indexOf(quote);
    const range = document.createRange();
    range.setStart(node, at); range.setEnd(node, at + quote.length);
    const selection = window.getSelection(); selection.removeAllRanges(); selection.addRange(range);
    document.dispatchEvent(new MouseEvent('mouseup', {bubbles: true}));
}"""


def in_view(page: Any, name: str) -> None:
    """Saves what the browser window shows (not the whole page): where a sticky panel is, is the point."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


class SourceWorkflowTests:
    def test_extract_see_the_new_claims_then_quote_a_selection_into_a_new_claim(
        self, page: Any, live_server: Any, trio: Trio, no_llm: None, celery_worker_thread: Any
    ) -> None:
        from playwright.sync_api import expect

        add_source(page, live_server, trio, "Launch plan, second draft", LONG_TEXT)
        page.get_by_role("button", name="Extract claims").click()

        # The worker extracts; the box polls, then the page reloads with the list of what was added.
        new_claims = page.get_by_role("list", name="Claims this extraction added")
        new_claims.wait_for(timeout=30_000)
        done = page.locator("#extraction p.ok").inner_text()
        added = int(done.split("Done: ")[1].split(" ")[0])
        assert added >= 5 and new_claims.get_by_role("link").count() == min(added, 10)
        expect(page.locator("#claims")).to_have_text(f"Claims from this text ({added})")
        assert page.locator("ol.source-claims li").count() == added
        # Claims side by side are told apart: two shades in turn, each passage with its own left edge.
        shades = page.locator("#source-text mark.from").evaluate_all(
            "marks => marks.slice(0, 3).map(m => getComputedStyle(m).backgroundColor)"
        )
        assert shades[0] != shades[1] and shades[0] == shades[2]
        screenshot(page, "source-workflow-extracted-1280")

        # Far down the text, the form is out of sight until words are selected.
        page.locator("#source-text").get_by_text("Support hours grow").scroll_into_view_if_needed()
        form = page.locator("#claim-form")
        expect(form).not_to_be_in_viewport()
        quote = "Support hours grow to 18 hours a day in the launch week"
        page.evaluate(SELECT_QUOTE, quote)
        expect(page.locator("#quote-picked")).to_contain_text("Quote selected (55 characters)")
        expect(form).to_be_in_viewport()
        expect(page.locator("#quote-picked")).to_be_in_viewport()
        expect(page.get_by_label("Statement")).to_have_value(quote)
        expect(page.get_by_label("Exact quote from the text")).to_have_value(quote)
        assert page.locator("#start-input").input_value() == str(LONG_TEXT.index(quote))
        # The position is behind a toggle, closed.
        expect(page.locator("#start-input")).to_be_hidden()
        in_view(page, "source-workflow-selected-1280")

        page.get_by_label("Statement").fill("Support works 18 hours a day in the launch week.")
        page.get_by_role("button", name="Add claim").click()
        page.get_by_text("Claim added").wait_for()
        settled(page)
        expect(page.locator("ol.source-claims")).to_contain_text("Support works 18 hours a day in the launch week.")

        # At 800 pixels the columns stack: the form is scrolled to, with the same confirmation.
        page.set_viewport_size({"width": 800, "height": 800})
        page.reload()
        page.locator("#source-text").get_by_text("The press kit is due").scroll_into_view_if_needed()
        page.evaluate(SELECT_QUOTE, "The press kit is due on 20 May")
        expect(page.locator("#quote-picked")).to_be_in_viewport()
        expect(page.get_by_label("Statement")).to_have_value("The press kit is due on 20 May")
        in_view(page, "source-workflow-selected-800")
        screenshot(page, "source-workflow-800")
