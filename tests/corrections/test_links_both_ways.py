"""Everything a reviewer reads is linked both ways: claims ↔ decisions ↔ actions ↔ corrections ↔ runs, and the
action page that says where an action stands and why."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.conftest import client_for
from tests.corrections.conftest import World

pytestmark = pytest.mark.django_db


@dataclass(frozen=True)
class Corrected:
    """The launch story after June was corrected: "Launch in June" lost its only support and its action is held,
    "Board approves" still holds through the board's own words."""

    world: World
    launch: str
    announce: str
    approved: str
    correction: str
    replacement: str


@pytest.fixture
def corrected(world: World) -> Corrected:
    launch = world.decision("Launch in June", [world.june])
    announce = world.action("Send the launch announcement", launch)
    approved = world.decision("Board approves", [world.june], [world.board])
    body = world.preview(world.june).json()
    applied = world.apply(world.june, body["revision"]).json()
    return Corrected(world, launch, announce, approved, applied["correction_id"], applied["replacement_claim_id"])


def page(c: Corrected, tail: str) -> str:
    response = client_for(c.world.trio.viewer).get(f"/w/{c.world.ws}/{tail}")
    assert response.status_code == 200
    return response.content.decode()


class ActionPageTests:
    def test_it_says_the_action_is_held_and_why_linking_the_decision_and_the_correction(
        self, corrected: Corrected
    ) -> None:
        c, ws = corrected, corrected.world.ws
        body = page(c, f"actions/{c.announce}/")
        assert "<h1>Send the launch announcement</h1>" in body
        assert '<span class="badge st-held">held</span>' in body
        assert f'<a href="/w/{ws}/decisions/{c.launch}/">Launch in June</a>' in body
        assert f'href="/w/{ws}/corrections/{c.correction}/">correction by rita on' in body
        assert "“The launch is in June.” → “The launch is in July.”" in body
        # Its history: added, then held by the correction (with a link to it).
        assert (
            "added the action" in body and f'(<a href="/w/{ws}/corrections/{c.correction}/">the correction</a>)' in body
        )

    def test_its_history_names_the_dismissal_that_cancelled_it(self, corrected: Corrected) -> None:
        from corrections import review

        c = corrected
        review.decision_dismiss(workspace=c.world.trio.workspace, decision_id=c.launch, actor=c.world.trio.reviewer)
        body = page(c, f"actions/{c.announce}/")
        assert '<span class="badge st-cancelled">cancelled</span>' in body
        assert "dismissed “Launch in June”" in body

    def test_it_offers_the_moves_the_action_can_make_to_a_writer_only(self, corrected: Corrected) -> None:
        c = corrected
        reviewer = client_for(c.world.trio.reviewer).get(f"/w/{c.world.ws}/actions/{c.announce}/").content.decode()
        assert f'action="/w/{c.world.ws}/actions/{c.announce}/status"' in reviewer
        assert 'value="cancelled"' in reviewer and 'value="done"' not in reviewer
        assert f'name="next" value="/w/{c.world.ws}/actions/{c.announce}/"' in reviewer
        assert "/status" not in page(c, f"actions/{c.announce}/")

    def test_marking_it_done_from_its_page_asks_then_comes_back_to_it(self, world: World) -> None:
        decision = world.decision("Launch in June", [world.june])
        action = world.action("Send the launch announcement", decision)
        url = f"/w/{world.ws}/actions/{action}/"
        client = client_for(world.trio.reviewer)
        asked = client.post(url + "status", {"status": "done", "next": url})
        assert asked.status_code == 200 and "Mark “Send the launch announcement” done?" in asked.content.decode()
        done = client.post(url + "status", {"status": "done", "next": url, "confirmed": "yes"})
        assert done.status_code == 302 and done["Location"] == url
        assert '<span class="badge st-done">done</span>' in client.get(url).content.decode()

    def test_an_unknown_action_is_a_page_in_words_and_an_outsider_sees_nothing(self, corrected: Corrected) -> None:
        c = corrected
        missing = client_for(c.world.trio.viewer).get(f"/w/{c.world.ws}/actions/not-an-id/")
        assert missing.status_code == 404 and "action" in missing.content.decode().lower()
        outsider = client_for(c.world.trio.outsider).get(f"/w/{c.world.ws}/actions/{c.announce}/")
        assert outsider.status_code == 404 and "Send the launch" not in outsider.content.decode()


class LinksTests:
    def test_the_action_list_and_the_decision_page_link_each_action_to_its_page(self, corrected: Corrected) -> None:
        c, ws = corrected, corrected.world.ws
        link = f'<a href="/w/{ws}/actions/{c.announce}/">Send the launch announcement</a>'
        assert link in page(c, "actions/")
        decision = page(c, f"decisions/{c.launch}/")
        assert link in decision
        # The decision names the correction that flagged it, as a link.
        assert f'href="/w/{ws}/corrections/{c.correction}/">correction by rita on' in decision

    def test_a_claims_page_lists_the_decisions_and_the_actions_resting_on_it_as_links(
        self, corrected: Corrected
    ) -> None:
        c, ws = corrected, corrected.world.ws
        body = page(c, f"claims/{c.world.june}/")
        rests = body.split("<h2>What rests on it</h2>")[1].split("<h2>")[0]
        assert f'<a href="/w/{ws}/decisions/{c.launch}/">Launch in June</a>' in rests
        assert f'<a href="/w/{ws}/decisions/{c.approved}/">Board approves</a>' in rests
        assert f'<a href="/w/{ws}/actions/{c.announce}/">Send the launch announcement</a>' in rests

    def test_the_replacement_links_back_to_the_claim_it_replaces_and_its_correction(self, corrected: Corrected) -> None:
        c, ws = corrected, corrected.world.ws
        body = page(c, f"claims/{c.replacement}/")
        assert f'Replaces <a href="/w/{ws}/claims/{c.world.june}/">“The launch is in June.”</a>' in body
        assert f'<a href="/w/{ws}/corrections/{c.correction}/">correction by rita on' in body

    def test_the_correction_links_everything_it_touched(self, corrected: Corrected) -> None:
        c, ws = corrected, corrected.world.ws
        body = page(c, f"corrections/{c.correction}/")
        impact = body.split("Impact when it was applied")[1]
        assert f'<a href="/w/{ws}/decisions/{c.launch}/">Launch in June</a>' in impact
        assert f'Still supported: <a href="/w/{ws}/decisions/{c.approved}/">Board approves</a>' in impact
        assert f'Actions held: <a href="/w/{ws}/actions/{c.announce}/">Send the launch announcement</a>' in impact
        assert "revision" not in body.split("<main")[1].lower().replace("revised", "")

    def test_the_correction_links_the_derived_claims_it_left_unsupported(self, world: World) -> None:
        derived = world.derived("The launch is before July.", world.june)
        body = world.preview(world.june).json()
        applied = world.apply(world.june, body["revision"]).json()
        detail = client_for(world.trio.viewer).get(f"/w/{world.ws}/corrections/{applied['correction_id']}/")
        assert (
            f'Derived claims unsupported: <a href="/w/{world.ws}/claims/{derived}/">The launch is before July.</a>'
            in (detail.content.decode())
        )

    def test_the_review_queue_links_each_held_action_to_its_page(self, corrected: Corrected) -> None:
        c, ws = corrected, corrected.world.ws
        assert f'<a href="/w/{ws}/actions/{c.announce}/">Send the launch announcement</a>' in page(c, "review/")
