"""A reviewer adds a source, extracts claims with a real worker, sees the highlights and clicks one."""

from __future__ import annotations

from typing import Any

import pytest

from claims import graph as claims_graph
from tests.conftest import Trio
from tests.e2e.conftest import log_in, screenshot, settled

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

TEXT = """Launch plan 🚀

The launch is in June. Ana owns the launch checklist.

The launch budget is 40,000 EUR, approved on 3 March. <b>Not bold</b> & <script>window.pwned = 1</script>"""


class SourceFlowTests:
    def test_it_adds_extracts_highlights_and_shows_a_claim(
        self, page: Any, live_server: Any, trio: Trio, no_llm: None, celery_worker_thread: Any
    ) -> None:
        log_in(page, live_server, trio.reviewer)
        page.goto(f"/w/{trio.workspace.id}/sources/new")
        page.get_by_label("Title").fill("Launch plan")
        page.get_by_label("Text").fill(TEXT)
        page.get_by_role("button", name="Add source").click()
        page.get_by_role("heading", name="Launch plan").wait_for()
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

    def test_selecting_text_fills_the_quote_with_code_point_offsets(
        self, page: Any, live_server: Any, trio: Trio
    ) -> None:
        from claims import services

        source = services.source_add(workspace=trio.workspace, title="Emoji", text=TEXT, actor=trio.reviewer)
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
        version = claims_graph.source_get(workspace=trio.workspace, source_id=source.id)
        assert version is not None
        spans = claims_graph.version_claim_spans(workspace=trio.workspace, version_id=version.id)
        assert [(s.start, s.end) for s in spans] == [(TEXT.index(quote), TEXT.index(quote) + len(quote))]
