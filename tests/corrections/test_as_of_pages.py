"""The pages as of a moment (issue 13): the picker and banner, read-only pages in the past, the dashboard then —
the June → July story on the real stores."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pytest

from afterhack import graph
from afterhack.clock import now_iso
from corrections import review
from tests.conftest import client_for
from tests.corrections.conftest import World, june_to_july

pytestmark = pytest.mark.django_db

BANNER = "You are looking at the memory as it was"


@dataclass
class Story:
    """The June → July correction, with the moments just before and just after it."""

    world: World
    launch: str
    announce: str
    before: str
    after: str

    def get(self, path: str, as_of: str | None = None, user: Any = None) -> Any:
        client = client_for(user or self.world.trio.reviewer)
        return client.get(path, {"as_of": as_of} if as_of is not None else {})

    def world_client(self) -> Any:
        return client_for(self.world.trio.reviewer)

    @property
    def ws(self) -> str:
        return f"/w/{self.world.ws}"


@pytest.fixture
def story(world: World) -> Story:
    launch = world.decision("Launch in June", [world.june])
    announce = world.action("Send the launch announcement", launch)
    before = now_iso()
    assert world.apply(world.june, world.preview(world.june).json()["revision"]).status_code == 201
    return Story(world, launch, announce, before, now_iso())


def text(response: Any) -> str:
    """The page's words, tags dropped and white space folded."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


def writing_forms(response: Any) -> list[str]:
    """The page's forms that post (every one writes), except the menu's Log out and the Watch toggle (a person's own
    preference: it writes nothing in the workspace, and the past's pages leave it out anyway)."""
    forms = re.findall(r"<form\b[^>]*>", response.content.decode())
    return [f for f in forms if 'method="post"' in f and "logout" not in f and "watch-toggle" not in f]


class DashboardAsOfTests:
    def test_before_and_after_the_correction(self, story: Story) -> None:
        then = story.get(story.ws + "/", as_of=story.before)
        assert then.status_code == 200
        words = text(then)
        assert BANNER in words and "Nothing can be changed here" in words
        assert "0 decisions that had lost support" in words and "0 held actions" in words
        assert "5 claims 5 current" in words and "1 decision 1 supported" in words
        assert "1 action 1 pending" in words and "0 corrections" in words
        # The menu's badges stay the present's, and the banner says so.
        assert 'aria-label="Review, 1 needs attention"' in then.content.decode()
        assert "The counts in the menu above are today's" in words
        # Counts of a moment are plain numbers: no link to a present list from the counts.
        counts = then.content.decode().split('id="totals-heading"')[1].split("</section>")[0]
        assert "<a " not in counts

        later = text(story.get(story.ws + "/", as_of=story.after))
        assert "1 decision that had lost support" in later and "1 held action" in later
        assert "6 claims 5 current 1 superseded" in later and "1 decision 1 needs review" in later
        assert "1 action 1 held" in later and "1 correction" in later

    def test_a_migrated_workspace_says_its_history_began_later(self, story: Story) -> None:
        # A graph written before the history: history_since is when the migration ran, after the workspace began.
        graph.query(story.world.trio.workspace, "MATCH (w:Workspace) SET w.history_since = $at", {"at": story.after})
        words = text(story.get(story.ws + "/", as_of=story.before))
        assert "This workspace's history began on" in words and "changes before then were not recorded" in words
        # A migration's baseline (docs/history.md) knows the status it found, not the one before.
        graph.query(
            story.world.trio.workspace,
            "MATCH (c:Claim {id: $id}) CREATE (:Change {at: $at, kind: 'claim', id: c.id, from_status: null, "
            "to_status: 'current', cause: 'migration', cause_id: null, actor: null, migrated: true})-[:OF]->(c)",
            {"id": story.world.ana, "at": story.after},
        )
        claim = text(story.get(f"{story.ws}/claims/{story.world.ana}/", as_of=story.before))
        assert "This workspace's history began on" in claim
        assert "current when the history began (what it was before is not known), the state found when" in claim
        assert "This workspace's history began" not in text(story.get(story.ws + "/", as_of=story.after))

    def test_the_present_dashboard_is_as_it_was(self, story: Story) -> None:
        now = story.get(story.ws + "/")
        assert BANNER not in text(now) and "Needs attention" in text(now)
        assert 'href="/w/' + story.world.ws + '/review/#lost-support"' in now.content.decode()

    def test_a_moment_before_the_workspace_says_when_its_history_began(self, story: Story) -> None:
        words = text(story.get(story.ws + "/", as_of="2020-01-01"))
        assert "as it was at the end of 1 January 2020 (UTC)" in words
        assert "This workspace was created on" in words and "there was nothing in it before then" in words
        assert "0 claims" in words
        assert "Nothing had happened here yet." in words

    @pytest.mark.parametrize(
        ("as_of", "said"),
        [
            ("yesterday", "“as_of” must be a moment in ISO 8601"),
            ("2026-13-45", "“as_of” must be a moment in ISO 8601"),
            ("9999-12-31", "has not come yet: this is the present."),
            ("x" * 5000, "is not a moment (it is 5,000 characters long)"),
        ],
    )
    def test_a_bad_moment_shows_the_present_with_a_sentence(self, story: Story, as_of: str, said: str) -> None:
        response = story.get(story.ws + "/", as_of=as_of)
        assert response.status_code == 200
        words = text(response)
        assert said in words and BANNER not in words and "Needs attention" in words


class ClaimAsOfTests:
    def test_before_the_correction_it_was_current_and_said_june(self, story: Story) -> None:
        path = f"{story.ws}/claims/{story.world.june}/"
        then = story.get(path, as_of=story.before)
        assert then.status_code == 200
        words = text(then)
        assert BANNER in words and "The launch is in June." in words
        assert re.search(r'class="badge st-current">current<', then.content.decode())
        # The quote highlighted in the version it was in then.
        assert '<mark class="ev d1">The launch is in June</mark>' in then.content.decode()
        # Nothing that writes, not even the way to the correction form; the present's sections are left out.
        assert "Correct this claim" not in words and writing_forms(then) == []
        assert '/correct"' not in then.content.decode()
        # What rested on it then, with the statuses then, its links staying in the past.
        html = then.content.decode()
        rested = html.split("What rested on it</h2>")[1].split("<h2>")[0]
        assert re.search(r'decisions/' + story.launch + r'/\?as_of=[^"]+">Launch in June</a> '
                         r'<span class="badge st-supported">', rested)  # fmt: skip
        assert re.search(r'actions/' + story.announce + r'/\?as_of=[^"]+">Send the launch announcement</a> '
                         r'<span class="badge st-pending">', rested)  # fmt: skip
        # Its recorded changes include the correction made since, marked as later.
        assert "from current to superseded" in words and "after this moment" in words
        # The present page still offers the correction's way (the reviewer can write), and no banner.
        now = story.get(path)
        assert BANNER not in text(now) and "superseded" in text(now)
        ana = f"{story.ws}/claims/{story.world.ana}/"
        assert '/correct"' in story.get(ana).content.decode()
        assert '/correct"' not in story.get(ana, as_of=story.before).content.decode()

    def test_after_the_correction_it_was_superseded_with_its_replacement_in_the_past(self, story: Story) -> None:
        path = f"{story.ws}/claims/{story.world.june}/"
        then = story.get(path, as_of=story.after)
        html, words = then.content.decode(), text(then)
        assert re.search(r'class="badge st-superseded">superseded<', html)
        assert "Superseded by then" in words and "after this moment" not in words
        # The link to the replacement keeps the moment: one stays in the past following the chain.
        replacement = re.search(r'href="(/w/[^"]+/claims/[^"/]+/\?as_of=[^"]+)">the claim that replaced it', html)
        assert replacement is not None
        followed = story.world_client().get(replacement.group(1).replace("&amp;", "&"))
        assert followed.status_code == 200 and "The launch is in July." in text(followed) and BANNER in text(followed)

    def test_what_came_to_rest_on_it_later_is_not_shown_in_the_past(self, story: Story) -> None:
        path = f"{story.ws}/claims/{story.world.ana}/"
        story.world.decision("Ana runs the launch checklist", [story.world.ana])
        assert "Nothing rested on this claim yet." in text(story.get(path, as_of=story.after))
        assert "Ana runs the launch checklist" in text(story.get(path))

    def test_a_decision_that_came_to_rest_on_it_by_a_later_rejustification_did_not_rest_on_it_then(
        self, story: Story
    ) -> None:
        review.decision_rejustify(
            workspace=story.world.trio.workspace, decision_id=story.launch, justifications=[[story.world.ana]],
            actor=story.world.trio.reviewer,
        )  # fmt: skip
        path = f"{story.ws}/claims/{story.world.ana}/"
        assert "Launch in June" in text(story.get(path))
        assert "Nothing rested on this claim yet." in text(story.get(path, as_of=story.after))

    def test_a_moment_before_it_existed_is_a_404_page_in_words(self, story: Story) -> None:
        response = story.get(f"{story.ws}/claims/{story.world.june}/", as_of="2020-01-01")
        assert response.status_code == 404
        words = text(response)
        assert "This claim did not exist yet" in words
        assert "“The launch is in June.” did not exist yet at the end of 1 January 2020 (UTC); it was added on" in words

    def test_a_bad_moment_shows_the_present_claim_with_a_sentence(self, story: Story) -> None:
        response = story.get(f"{story.ws}/claims/{story.world.june}/", as_of="12 May")
        assert response.status_code == 200
        words = text(response)
        assert "“as_of” must be a moment in ISO 8601" in words and "This is the present." in words
        assert BANNER not in words and "Corrected" in words  # the present's fate section

    def test_an_unknown_claim_in_the_past_is_the_plain_404(self, story: Story) -> None:
        response = story.get(f"{story.ws}/claims/00000000-0000-0000-0000-000000000000/", as_of=story.before)
        assert response.status_code == 404 and "did not exist yet" not in text(response)


class DecisionAsOfTests:
    def test_before_the_correction_it_was_supported_with_no_form(self, story: Story) -> None:
        then = story.get(f"{story.ws}/decisions/{story.launch}/", as_of=story.before)
        html, words = then.content.decode(), text(then)
        assert then.status_code == 200 and BANNER in words
        assert re.search(r'<p class="meta"><span class="badge st-supported">supported<', html)
        assert "Re-justify or revise it" not in words and "Dismiss" not in words and "Add action" not in words
        assert writing_forms(then) == []
        # Its claim as it was then (current), linked in the past; its action pending then, linked in the past.
        assert re.search(r'claims/' + story.world.june + r'/\?as_of=[^"]+">The launch is in June\.</a> '
                         r'<span class="badge st-current">', html)  # fmt: skip
        assert re.search(r"actions/" + story.announce + r'/\?as_of=[^"]+">Send the launch announcement</a>', html)
        assert "st-pending" in html and "st-held" not in html

    def test_after_the_correction_it_needed_review_without_the_review_forms(self, story: Story) -> None:
        then = story.get(f"{story.ws}/decisions/{story.launch}/", as_of=story.after)
        words = text(then)
        assert "needs review" in words and "flagged by the correction" in words
        assert writing_forms(then) == [] and "Re-justify or revise it" not in words
        now = story.get(f"{story.ws}/decisions/{story.launch}/")
        assert "Re-justify or revise it" in text(now) and len(writing_forms(now)) >= 2  # dismiss, add action


class ActionAsOfTests:
    def test_before_and_after_the_correction(self, story: Story) -> None:
        path = f"{story.ws}/actions/{story.announce}/"
        before = story.get(path, as_of=story.before)
        assert before.status_code == 200 and "Pending: still to do" in text(before)
        assert writing_forms(before) == [] and "Mark done" not in text(before)
        after = story.get(path, as_of=story.after)
        assert "Held: it waits" in text(after) and "Review it" not in text(after)
        assert "from pending to held" in text(after)
        now = story.get(path)
        assert "Mark done" not in text(now) and len(writing_forms(now)) == 1  # held: it can be cancelled

    def test_a_post_to_a_past_page_acts_on_the_present(self, story: Story) -> None:
        client = story.world_client()
        path = f"{story.ws}/actions/{story.announce}/status?as_of={story.before}"
        # Before the correction the action was pending, and "done" could be marked; now it is held: refused.
        client.post(path, {"status": "done", "next": "/w/", "confirmed": "yes"})
        assert "Held: it waits" in text(story.get(f"{story.ws}/actions/{story.announce}/"))
        answer = client.post(path, {"status": "cancelled", "next": "/w/", "confirmed": "yes"})
        assert answer.status_code == 302
        assert "Cancelled: it will not be done" in text(story.get(f"{story.ws}/actions/{story.announce}/"))
        # ...and the page as of before still shows it pending: the past is not rewritten.
        assert "Pending: still to do" in text(story.get(f"{story.ws}/actions/{story.announce}/", as_of=story.before))
        # The page itself only reads: a POST to it is not allowed, as before.
        assert client.post(f"{story.ws}/claims/{story.world.june}/?as_of={story.before}").status_code == 405


def test_a_page_that_cannot_show_the_past_says_it_shows_the_present(world: World) -> None:
    june_to_july(world)
    page = client_for(world.trio.viewer)
    source = page.get(f"/w/{world.ws}/sources/").content.decode()
    assert "This page shows the present" not in source
    asked = page.get(f"/w/{world.ws}/sources/?as_of=2026-01-01").content.decode()
    assert "This page shows the present" in asked
    # Pages that can show the past do, without that sentence.
    past = page.get(f"/w/{world.ws}/claims/{world.june}/?as_of=2026-01-01").content.decode()
    assert "This page shows the present" not in past
