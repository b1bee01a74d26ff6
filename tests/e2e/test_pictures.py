"""The graph pictures in a browser: the because-chain and a correction's impact are drawn (vendored cytoscape,
under the Content-Security-Policy, no console error), match the data, and a click on a node opens its page."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from claims.graph import search as search_graph
from tests.e2e.conftest import ARTIFACTS, preview_correction, screenshot, settled
from tests.e2e.test_csp import WATCH_VIOLATIONS, Watch
from workspaces.models import Workspace

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

# The drawn picture as graph.js holds it: each node's id, status and where a click on it goes.
DRAWN = """(id) => window.afterhackGraphs[id].nodes().map(
  (node) => ({id: node.id(), status: node.data("status"), label: node.data("label"), href: node.data("href")}))"""

# Where a node is on the screen: cytoscape's rendered position plus the container's place in the viewport.
NODE_AT = """([id, label]) => {
  const node = window.afterhackGraphs[id].nodes().filter((n) => n.data("label") === label)[0];
  const box = document.getElementById(id).getBoundingClientRect();
  const at = node.renderedPosition();
  return {x: box.left + at.x, y: box.top + at.y, href: node.data("href")};
}"""

# Scrolls the node to the middle of the viewport, and resolves once the browser has drawn a frame after the
# scroll (cytoscape refreshes where its container is on the scroll event: a click before would land elsewhere).
SCROLL_TO = """([id, label]) => new Promise((resolve) => {
  const node = window.afterhackGraphs[id].nodes().filter((n) => n.data("label") === label)[0];
  const top = document.getElementById(id).getBoundingClientRect().top;
  window.scrollTo(0, window.scrollY + top + node.renderedPosition().y - window.innerHeight / 2);
  requestAnimationFrame(() => requestAnimationFrame(resolve));
})"""


class Errors:
    """Console errors and uncaught exceptions of a tab."""

    def __init__(self, page: Any) -> None:
        self.seen: list[str] = []
        page.on("console", lambda message: self.seen.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: self.seen.append(str(error)))


@pytest.fixture
def watch(page: Any, live_server: Any) -> Iterator[Watch]:
    page.context.add_init_script(WATCH_VIOLATIONS)
    yield Watch(page, live_server.url)


def drawn(page: Any, picture_id: str) -> list[dict[str, Any]]:
    """Waits until graph.js drew the picture, and returns its nodes."""
    page.locator(f"#{picture_id}[data-graph-drawn] canvas").first.wait_for()
    nodes: list[dict[str, Any]] = page.evaluate(DRAWN, picture_id)
    return nodes


def embedded(page: Any, picture_id: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(page.locator(f"#{picture_id}-data").text_content())
    return data


def click_node(page: Any, picture_id: str, label: str) -> str:
    """Clicks the node with this label where it is drawn; the page it should open."""
    page.evaluate(SCROLL_TO, [picture_id, label])
    at = page.evaluate(NODE_AT, [picture_id, label])
    page.mouse.click(at["x"], at["y"])
    href: str = at["href"]
    return href


class PictureTests:
    def test_the_chain_and_impact_pictures_draw_match_and_open_what_is_clicked(
        self, page: Any, watch: Watch, demo_workspace: Workspace
    ) -> None:
        errors = Errors(page)
        workspace = demo_workspace
        june = search_graph.claim_search_phrase(workspace=workspace, phrase="the product launch is in june", limit=1)[0]
        base = f"/w/{workspace.id}"

        watch.visit(f"{base}/claims/{june.id}/chain")
        nodes = drawn(page, "chain-picture")
        data = embedded(page, "chain-picture")
        assert {(n["id"], n["status"]) for n in nodes} == {(n["id"], n["status"]) for n in data["nodes"]}
        labels = {n["label"] for n in nodes}
        assert {"Launch plan (March update)", "Launch in June", "Announce the June launch"} <= labels
        assert {"Book the May campaign slots", "Send the launch announcement"} <= labels
        assert "The campaign must be ready in May because the launch is in June." in labels
        assert len(nodes) == 9 and page.locator("#chain-picture").get_attribute("role") == "img"
        assert page.locator(".graph-legend").get_by_text("supported", exact=True).is_visible()
        # Left to right: the source, then the claim, then what was derived from it, then the decision.
        x = {n["label"]: page.evaluate(NODE_AT, ["chain-picture", n["label"]])["x"] for n in nodes}
        assert x["Launch plan (March update)"] < x[june.statement]
        assert x[june.statement] < x["The campaign must be ready in May because the launch is in June."]
        assert x["The campaign must be ready in May because the launch is in June."] < x["Book the May campaign slots"]
        screenshot(page, "picture-chain")
        watch.assert_clean()

        target = click_node(page, "chain-picture", "Book the May campaign slots")
        page.wait_for_url(f"**{target}")
        page.get_by_role("heading", name="Book the May campaign slots").wait_for()

        watch.visit(f"{base}/claims/{june.id}/correct")
        preview_correction(page, "The product launch is in July.", "The board moved the launch.", wait_for="#impact")
        nodes = drawn(page, "impact-picture")
        statuses = {n["label"]: n["status"] for n in nodes}
        assert statuses["Book the May campaign slots"] == statuses["Announce the June launch"] == "needs_review"
        assert statuses["Pay the ad agency deposit"] == "held"
        assert statuses["Launch in June"] == "supported" and statuses["The product launch is in July."] == "replacement"
        # The announcement already sent on June: drawn too, as needing a follow-up (it stays done).
        assert statuses["Send the launch announcement"] == "follow_up_needed"
        screenshot(page, "picture-impact-preview")
        watch.assert_clean()

        page.get_by_role("button", name="Apply the correction").click()
        page.get_by_text("Correction applied.").wait_for()
        after = {n["label"]: n["status"] for n in drawn(page, "impact-picture")}
        # Applied, the picture shows what the preview promised (the proposed claim is now the current replacement;
        # what kept a decision up is drawn in the preview only, as the correction does not record it).
        promised = {label: status for label, status in statuses.items() if status != "replacement"}
        assert {label: promised[label] for label in after if label in promised} == {
            label: status for label, status in after.items() if label in promised
        }
        assert {"Book the May campaign slots", "Pay the ad agency deposit", "Launch in June"} <= set(after)
        assert after["Send the launch announcement"] == "follow_up_needed"
        assert after["The product launch is in July."] == "current"
        screenshot(page, "picture-impact-applied")
        watch.assert_clean()

        target = click_node(page, "impact-picture", "The product launch is in July.")
        page.wait_for_url(f"**{target}")
        settled(page)

        # The replacement's own chain: the correction it cites, and the claim it superseded.
        watch.visit(f"{target}chain")
        replaced = {n["label"]: n["status"] for n in drawn(page, "chain-picture")}
        assert replaced[june.statement] == "superseded" and replaced["The board moved the launch."] == "applied"
        screenshot(page, "picture-chain-replacement")
        # A derived claim's chain starts at the claims it was derived from.
        derived = next(n for n in nodes if n["label"].startswith("The campaign must be ready"))
        watch.visit(f"{base}/claims/{derived['id']}/chain")
        premises = {n["label"]: n["status"] for n in drawn(page, "chain-picture")}
        assert (
            premises[june.statement] == "superseded" and premises["The marketing campaign starts in May."] == "current"
        )
        screenshot(page, "picture-chain-derived")
        watch.assert_clean()
        assert errors.seen == []

    def test_without_javascript_the_text_list_shows_and_the_picture_does_not(
        self, browser: Any, live_server: Any, demo_workspace: Workspace
    ) -> None:
        from django.test import Client

        june = search_graph.claim_search_phrase(
            workspace=demo_workspace, phrase="the product launch is in june", limit=1
        )[0]
        client = Client()
        client.force_login(demo_workspace.memberships.get().user)
        context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
        context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}])
        page = context.new_page()
        page.goto(f"/w/{demo_workspace.id}/claims/{june.id}/chain")
        assert page.locator(".product-chain").get_by_text("Book the May campaign slots").is_visible()
        assert not page.locator("[data-graph-figure]").is_visible()
        context.close()

    def test_a_big_chain_draws_the_first_200_and_says_what_it_left_out(
        self, page: Any, watch: Watch, demo_workspace: Workspace
    ) -> None:
        from agents.services import decisions as agents_services

        errors = Errors(page)
        workspace = demo_workspace
        owner = workspace.memberships.get().user
        ana = search_graph.claim_search_phrase(workspace=workspace, phrase="ana costa owns", limit=1)[0]
        for number in range(1, 231):
            agents_services.decision_add(
                workspace=workspace, title=f"Checklist step {number}", rationale="", justifications=[[ana.id]],
                actor=owner,
            )  # fmt: skip
        watch.visit(f"/w/{workspace.id}/claims/{ana.id}/chain")
        nodes = drawn(page, "chain-picture")
        assert len(nodes) == 200
        page.get_by_text("The picture shows the first 200 of 232 things; the list below names them all.").wait_for()
        assert page.locator(".product-chain").get_by_text("Checklist step 230", exact=True).is_visible()
        # The figure alone: the full page is as long as the 232 lines of the list.
        page.locator("[data-graph-figure]").screenshot(path=str(ARTIFACTS / "picture-chain-big.png"))
        watch.assert_clean()
        assert errors.seen == []
