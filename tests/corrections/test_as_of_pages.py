"""The pages as of a moment (issue 13): the picker and banner, read-only pages in the past, the dashboard then —
the June → July story on the real stores."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pytest

from afterhack.clock import now_iso
from tests.conftest import client_for
from tests.corrections.conftest import World

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
    """The page's forms that post (every one writes), except the menu's Log out."""
    forms = re.findall(r"<form\b[^>]*>", response.content.decode())
    return [f for f in forms if 'method="post"' in f and "logout" not in f]


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

    def test_the_present_dashboard_is_as_it_was(self, story: Story) -> None:
        now = story.get(story.ws + "/")
        assert BANNER not in text(now) and "Needs attention" in text(now)
        assert 'href="/w/' + story.world.ws + '/review/#lost-support"' in now.content.decode()

    def test_a_moment_before_the_workspace_says_when_its_history_began(self, story: Story) -> None:
        words = text(story.get(story.ws + "/", as_of="2020-01-01"))
        assert "as it was at the end of 1 January 2020 (UTC)" in words
        assert "This workspace's history began on" in words and "0 claims" in words
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
