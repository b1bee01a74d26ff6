"""A reviewer corrects June to July in the demo, citing the launch plan's own words by selecting them."""

from __future__ import annotations

from typing import Any

import pytest

from claims.graph import search as search_graph
from config.demo import LAUNCH_PLAN
from tests.e2e.conftest import screenshot, settled

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PASSAGE = "if it does, the launch moves to July"

# Where the passage's first and last characters are on the screen, found through the text's nodes
# (the claim's own quote is a <mark> inside the same text).
CHARACTER_BOXES = """
([selector, passage]) => {
  const text = document.querySelector(selector);
  const walker = document.createTreeWalker(text, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const at = node.data.indexOf(passage);
    if (at === -1) continue;
    const box = (from) => {
      const range = document.createRange();
      range.setStart(node, from);
      range.setEnd(node, from + 1);
      const r = range.getBoundingClientRect();
      return {left: r.left, right: r.right, middle: r.top + r.height / 2};
    };
    return {first: box(at), last: box(at + passage.length - 1)};
  }
  return null;
}
"""


def select_with_the_mouse(page: Any, selector: str, passage: str) -> None:
    """Drags the mouse over the passage in the text, as a person selects it."""
    page.locator(selector).scroll_into_view_if_needed()
    boxes = page.evaluate(CHARACTER_BOXES, [selector, passage])
    assert boxes is not None, f"{passage!r} is not in {selector}"
    page.mouse.move(boxes["first"]["left"] + 1, boxes["first"]["middle"])
    page.mouse.down()
    page.mouse.move(boxes["last"]["right"] - 1, boxes["last"]["middle"], steps=8)
    page.mouse.up()


class CorrectionWithEvidenceTests:
    def test_correct_june_to_july_citing_the_plans_own_words(self, page: Any, demo_workspace: Any) -> None:
        workspace = demo_workspace
        june = search_graph.claim_search_phrase(workspace=workspace, phrase="the product launch is in june", limit=1)[0]
        page.goto(f"/w/{workspace.id}/claims/{june.id}/correct")
        picker = page.locator("#passage-picker")
        # The claim's own source is chosen, its text shown with the claim's quote marked.
        assert "Launch plan (March update)" in picker.get_by_label("Source").locator("option:checked").inner_text()
        assert picker.locator("mark.own-quote").inner_text() == "The product launch is in June"
        assert page.locator("#cited-passage").is_hidden()
        page.get_by_label("Corrected statement").fill("The product launch is in July.")
        page.get_by_label("Why the claim is wrong").fill("The payment provider's certification slipped.")
        # Another source's text comes in its place, and back.
        page.get_by_label("Source").select_option(label="Email from Northwind Logistics")
        page.locator("#cite-text", has_text="we were told the launch is in June").wait_for()
        settled(page)
        page.get_by_label("Source").select_option(label="Launch plan (March update) (the claim's source)")
        page.locator("#cite-text mark.own-quote").wait_for()
        settled(page)

        select_with_the_mouse(page, "#cite-text", PASSAGE)
        cited = page.locator("#cited-passage")
        cited.wait_for()
        assert cited.inner_text().startswith(f"This correction will also cite: “{PASSAGE}”")
        assert page.locator("#evidence-quote").input_value() == PASSAGE
        assert page.locator("#evidence-start").input_value() == str(LAUNCH_PLAN.index(PASSAGE))
        screenshot(page, "correction-evidence-selected")

        # Remove takes it back; selecting it again cites it again.
        cited.get_by_role("button", name="Remove").click()
        assert cited.is_hidden() and page.locator("#evidence-quote").input_value() == ""
        select_with_the_mouse(page, "#cite-text", PASSAGE)
        cited.wait_for()

        page.get_by_role("button", name="Preview the impact").click()
        page.locator("#impact").wait_for()
        settled(page)
        assert cited.is_visible() and PASSAGE in cited.inner_text()
        screenshot(page, "correction-evidence-preview")
        page.get_by_role("button", name="Apply the correction").click()
        page.wait_for_url("**/corrections/*/")
        assert "The correction also cites" in page.locator("main").inner_text()
        assert page.locator("blockquote.cited-passage mark").inner_text() == PASSAGE
        screenshot(page, "correction-evidence-detail")

        page.locator("section", has_text="After").get_by_role("link", name="The product launch is in July.").click()
        page.wait_for_url("**/claims/*/")
        chain = page.locator("ol.chain")
        # Both citations: the correction's own words, and the plan's passage with a link to the plan.
        assert "The product launch is in July." in chain.locator("li", has_text="Evidence").inner_text()
        also = chain.locator("li", has_text="Also cites")
        assert also.locator("mark").inner_text() == PASSAGE
        assert "version 1" in also.inner_text()
        screenshot(page, "correction-evidence-claim")
        also.get_by_role("link", name="Launch plan (March update)").click()
        page.wait_for_url("**/sources/*/")
        assert PASSAGE in page.locator("#source-text").inner_text()
