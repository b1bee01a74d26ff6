"""The pictures of a claim's because-chain and of a correction's impact (the JSON graph.js draws), and the plain
words of the chain naming a derived claim between a claim and the decision resting on it."""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest
from django.contrib.auth.models import Permission

from corrections.picture import NodeKind, Picture
from mcp_server.explain import explained
from tests.conftest import client_for
from tests.corrections.conftest import World
from tests.corrections.test_pages import HTMX, apply_fields, preview_over_htmx
from workspaces.models import AUDIT_EVERY_WORKSPACE

pytestmark = pytest.mark.django_db


def picture_in(page: str, picture_id: str) -> dict[str, Any]:
    """The JSON a page embedded for graph.js (json_script), as graph.js reads it."""
    found = re.search(rf'<script id="{picture_id}-data" type="application/json">(.*?)</script>', page, re.S)
    assert found is not None, f"no {picture_id} data in the page"
    return json.loads(found.group(1))


def statuses(picture: dict[str, Any]) -> dict[str, str]:
    return {node["id"]: node["status"] for node in picture["nodes"]}


def kinds(picture: dict[str, Any], kind: str) -> set[str]:
    return {node["id"] for node in picture["nodes"] if node["kind"] == kind}


def edges(picture: dict[str, Any]) -> set[tuple[str, str, str]]:
    return {(edge["source"], edge["target"], edge["kind"]) for edge in picture["edges"]}


class LaunchStory:
    """The June claim; a claim derived from it that a decision rests on (whose action is held by a correction);
    a decision that also rests on the board's minutes (still supported after the correction)."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.date_set = world.derived("The launch date is set.", world.june)
        self.venue = world.decision("Book the venue", [self.date_set])
        self.booking = world.action("Sign the venue contract", self.venue)
        self.launch = world.decision("Launch in June", [world.june], [world.board])


class ChainWordsTests:
    def test_the_chain_page_names_the_derived_claim_between_the_claim_and_its_decision(self, world: World) -> None:
        story = LaunchStory(world)
        page = client_for(world.trio.viewer).get(f"/w/{world.ws}/claims/{world.june}/chain").content.decode()
        text = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())
        assert "Is the basis of the derived claim The launch date is set. current" in text
        assert "through the derived claim The launch date is set. , the decision Book the venue" in text
        assert f'href="/w/{world.ws}/claims/{story.date_set}/"' in page
        # The decision resting on the claim directly is said without a "through".
        assert (
            "Launch in June" in text
            and "through the derived claim The launch date is set. , the decision Launch" not in text
        )

    def test_a_derived_claims_chain_links_the_claims_it_comes_from_as_its_picture_does(self, world: World) -> None:
        story = LaunchStory(world)
        page = client_for(world.trio.viewer).get(f"/w/{world.ws}/claims/{story.date_set}/chain").content.decode()
        assert f'<a href="/w/{world.ws}/claims/{world.june}/">The launch is in June.</a>' in page
        assert (world.june, story.date_set, "derived_from") in edges(picture_in(page, "chain-picture"))

    def test_the_plain_words_for_agents_name_the_derived_claim_too(self, world: World) -> None:
        story = LaunchStory(world)
        answer = explained(world.trio.workspace, world.june)
        assert answer is not None
        assert "It is the basis of the derived claim “The launch date is set.” (current)." in answer["text"]
        assert (
            "Through the derived claim “The launch date is set.”, it supports the decision “Book the venue”"
            in (answer["text"])
        )
        links = {(link["link"], link.get("id")) for link in answer["chain"]}
        assert ("basis_of", story.date_set) in links and ("supports", story.venue) in links
        venue = next(link for link in answer["chain"] if link.get("id") == story.venue)
        assert venue["via"] == [story.date_set]


class ChainPictureTests:
    def test_the_chain_picture_draws_source_claim_derived_claim_decisions_and_action(self, world: World) -> None:
        story = LaunchStory(world)
        page = client_for(world.trio.viewer).get(f"/w/{world.ws}/claims/{world.june}/chain").content.decode()
        picture = picture_in(page, "chain-picture")
        source = next(node for node in picture["nodes"] if node["kind"] == NodeKind.SOURCE)
        assert source["label"] == "Launch plan" and source["href"].startswith(f"/w/{world.ws}/sources/")
        assert statuses(picture) == {
            source["id"]: "active", world.june: "current", story.date_set: "current",
            story.venue: "supported", story.launch: "supported", story.booking: "pending",
        }  # fmt: skip
        assert edges(picture) == {
            (source["id"], world.june, "cites"),
            (world.june, story.date_set, "derived_from"),
            (story.date_set, story.venue, "supports"),
            (world.june, story.launch, "supports"),
            (story.venue, story.booking, "leads_to"),
        }
        hrefs = {node["id"]: node["href"] for node in picture["nodes"]}
        assert hrefs[story.venue] == f"/w/{world.ws}/decisions/{story.venue}/"
        assert hrefs[story.booking] == f"/w/{world.ws}/actions/{story.booking}/"
        assert (
            'role="img"' in page
            and 'aria-label="A picture of the because-chain of this claim: 1 source, 2 claims' in page
        )
        assert "needs_review" not in re.sub(r"<script.*?</script>", "", page, flags=re.S)


class ImpactPictureTests:
    def test_the_impact_picture_shows_exactly_what_the_preview_and_apply_reported(self, world: World) -> None:
        story = LaunchStory(world)
        reported = world.preview(world.june).json()["affected"]
        assert reported == {
            "decisions_needing_review": [story.venue], "decisions_still_supported": [story.launch],
            "actions_held": [story.booking], "claims_unsupported": [story.date_set], "actions_already_done": [],
        }  # fmt: skip
        fragment = preview_over_htmx(world, world.june)
        previewed = picture_in(fragment, "impact-picture")
        expected = {
            world.june: "superseded", story.date_set: "unsupported", story.venue: "needs_review",
            story.launch: "supported", story.booking: "held",
        }  # fmt: skip
        assert {i: s for i, s in statuses(previewed).items() if i in expected} == expected
        # Nothing else is drawn as touched: the decisions and actions drawn are exactly those reported.
        assert kinds(previewed, "decision") == set(
            reported["decisions_needing_review"] + reported["decisions_still_supported"]
        )
        assert kinds(previewed, "action") == set(reported["actions_held"])
        assert {i for i, s in statuses(previewed).items() if s == "unsupported"} == set(reported["claims_unsupported"])
        proposed = next(node for node in previewed["nodes"] if node["status"] == "replacement")
        assert proposed["text"] == "The launch is in July." and proposed["href"] is None
        # What keeps "Launch in June" up is drawn too: the board's claim supports it.
        assert statuses(previewed)[world.board] == "current"
        structure = {
            (world.june, story.date_set, "derived_from"), (story.date_set, story.venue, "supports"),
            (story.venue, story.booking, "leads_to"), (world.june, story.launch, "supports"),
        }  # fmt: skip
        assert structure | {(world.board, story.launch, "supports")} <= edges(previewed)

        applied = client_for(world.trio.reviewer).post(
            f"/w/{world.ws}/claims/{world.june}/correct/apply", apply_fields(fragment), headers=HTMX
        )
        detail_page = client_for(world.trio.viewer).get(applied["HX-Redirect"]).content.decode()
        after = picture_in(detail_page, "impact-picture")
        correction_id = applied["HX-Redirect"].rstrip("/").rsplit("/", 1)[1]
        correction = next(node for node in after["nodes"] if node["kind"] == NodeKind.CORRECTION)
        replacement = next(e["target"] for e in after["edges"] if e["kind"] == "superseded_by")
        assert correction["id"] == correction_id and statuses(after)[replacement] == "current"
        assert {i: s for i, s in statuses(after).items() if i in expected} == expected
        assert kinds(after, "decision") | kinds(after, "action") == {story.venue, story.launch, story.booking}
        assert structure <= edges(after)

    def test_a_decision_rejustified_since_is_still_drawn_as_reached_then(self, world: World) -> None:
        from corrections import review

        story = LaunchStory(world)
        fragment = preview_over_htmx(world, world.june)
        applied = client_for(world.trio.reviewer).post(
            f"/w/{world.ws}/claims/{world.june}/correct/apply", apply_fields(fragment), headers=HTMX
        )
        review.decision_rejustify(
            workspace=world.trio.workspace, decision_id=story.venue, justifications=[[world.ana]],
            actor=world.trio.reviewer,
        )  # fmt: skip
        after = picture_in(client_for(world.trio.viewer).get(applied["HX-Redirect"]).content.decode(), "impact-picture")
        assert statuses(after)[story.venue] == "needs_review"
        assert any(e["target"] == story.venue for e in after["edges"])

    def test_the_staff_audit_draws_the_picture_only_for_those_who_may_read_the_workspace(
        self, world: World, make_user: Any
    ) -> None:
        LaunchStory(world)
        fragment = preview_over_htmx(world, world.june)
        applied = client_for(world.trio.reviewer).post(
            f"/w/{world.ws}/claims/{world.june}/correct/apply", apply_fields(fragment), headers=HTMX
        )
        correction_id = applied["HX-Redirect"].rstrip("/").rsplit("/", 1)[1]
        path = f"/audit/corrections/{world.ws}/{correction_id}/"
        # The picture draws the source and what the correction left standing: not for staff who may not read them.
        page = client_for(make_user("auditor", is_staff=True)).get(path).content.decode()
        assert 'id="impact-picture-data"' not in page and "No picture: it draws the source" in page
        reader = make_user("reader", is_staff=True)
        reader.user_permissions.add(Permission.objects.get(codename=AUDIT_EVERY_WORKSPACE))
        page = client_for(reader).get(path).content.decode()
        assert f"/w/{world.ws}/claims/{world.june}/" in {
            node["href"] for node in picture_in(page, "impact-picture")["nodes"]
        }

    def test_a_done_action_the_correction_marks_is_drawn_as_needing_a_follow_up(self, world: World) -> None:
        from agents.services import decisions as agents_services

        announce = world.decision("Announce the June launch", [world.june])
        sent = world.action("Send the launch announcement", announce)
        agents_services.action_mark(
            workspace=world.trio.workspace, action_id=sent, status="done", actor=world.trio.owner
        )
        fragment = preview_over_htmx(world, world.june)
        previewed = picture_in(fragment, "impact-picture")
        assert statuses(previewed)[sent] == "follow_up_needed" and statuses(previewed)[announce] == "needs_review"
        assert (announce, sent, "leads_to") in edges(previewed)
        legend = dict(re.findall(r'<li data-status="([a-z_]+)">.*?</span>([^<]+)</li>', fragment))
        assert legend["follow_up_needed"] == "done, needs a follow-up"

        applied = client_for(world.trio.reviewer).post(
            f"/w/{world.ws}/claims/{world.june}/correct/apply", apply_fields(fragment), headers=HTMX
        )
        after = picture_in(client_for(world.trio.viewer).get(applied["HX-Redirect"]).content.decode(), "impact-picture")
        assert statuses(after)[sent] == "follow_up_needed"


class CapTests:
    def test_a_big_picture_draws_the_first_nodes_and_says_what_it_left_out(self) -> None:
        picture = Picture("00000000-0000-0000-0000-000000000000", "c0", linked=False)
        for number in range(5):
            picture.node(node_id=f"c{number}", kind=NodeKind.CLAIM, text=f"Claim {number}", status="current")
        for number in range(4):
            picture.edge(source=f"c{number}", target=f"c{number + 1}", kind=picture_edge())
        drawn = picture.drawn(what="a test", cap=3)
        assert [node["id"] for node in drawn.data["nodes"]] == ["c0", "c1", "c2"]
        assert [(e["source"], e["target"]) for e in drawn.data["edges"]] == [("c0", "c1"), ("c1", "c2")]
        assert drawn.left_out == "The picture shows the first 3 of 5 things; the list below names them all."
        assert picture.drawn(what="a test").left_out == ""


def picture_edge() -> Any:
    from corrections.picture import EdgeKind

    return EdgeKind.DERIVED_FROM
