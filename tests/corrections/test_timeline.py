"""The timeline of changes of belief and the diff between two moments (docs/history.md), on the real stores: the
June → July story as an auditor reads it on the pages."""

from __future__ import annotations

import html
import re
from typing import Any
from urllib.parse import quote

import pytest

from afterhack.clock import now_iso
from agents.services import decisions as agents_services
from corrections.selectors import timeline as timeline_selectors
from tests.conftest import client_for
from tests.corrections.conftest import World

pytestmark = pytest.mark.django_db


def text(response: Any) -> str:
    """The page's text as a person reads it: tags dropped, entities decoded, white space folded."""
    body = re.sub(r"<script.*?</script>|<[^>]+>", " ", response.content.decode(), flags=re.S)
    return " ".join(html.unescape(body).split())


class Story:
    """June → July: a decision rests on June with an action; rita corrects June to July."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.decision = world.decision("Launch in June", [world.june])
        self.action = world.action("Send the launch announcement", self.decision)
        self.before = now_iso()
        revision = world.preview(world.june).json()["revision"]
        applied = world.apply(world.june, revision).json()
        self.after = now_iso()
        self.correction, self.july = applied["correction_id"], applied["replacement_claim_id"]

    def page(self, path: str, user: Any = None) -> Any:
        return client_for(user or self.world.trio.viewer).get(f"/w/{self.world.ws}{path}")


@pytest.fixture
def story(world: World) -> Story:
    return Story(world)


def rows(response: Any) -> list[str]:
    """Each row of the timeline's table as its text."""
    body = response.content.decode()
    table = body[body.index("<tbody") : body.index("</tbody>")]
    return [" ".join(html.unescape(re.sub(r"<[^>]+>", " ", row)).split()) for row in table.split("<tr>")[1:]]


class TimelineTests:
    def test_it_lists_each_change_of_the_correction_with_its_cause_and_reviewer(self, story: Story) -> None:
        page = story.page("/timeline/")
        assert page.status_code == 200
        found = rows(page)
        assert len(found) == 3
        assert any(
            "claim The launch is in June." in r and "current → superseded" in r
            and "correction: “The launch is in July.”" in r and r.endswith("rita")
            for r in found
        ), found  # fmt: skip
        assert any("decision Launch in June" in r and "supported → needs review" in r for r in found), found
        assert any("action Send the launch announcement" in r and "pending → held" in r for r in found), found
        # One write, one moment: the cause first (the claim), then what rested on it.
        assert [r.split()[3] for r in found] == ["claim", "decision", "action"], found
        body = page.content.decode()
        ws = story.world.ws
        # What changed links to its page; the cause to the correction's page.
        assert f'href="/w/{ws}/claims/{story.world.june}/"' in body
        assert f'href="/w/{ws}/decisions/{story.decision}/"' in body
        assert body.count(f'href="/w/{ws}/corrections/{story.correction}/"') == 3
        assert "3 changes" in text(page) and "UTC" in text(page)

    def test_filters_narrow_it(self, story: Story) -> None:
        assert [r.split()[3] for r in rows(story.page("/timeline/?kind=decision"))] == ["decision"]
        only = rows(story.page("/timeline/?kind=action&actor=RIT"))
        assert len(only) == 1 and "Send the launch announcement" in only[0]
        assert len(rows(story.page("/timeline/?q=announcement"))) == 1
        assert len(rows(story.page("/timeline/?cause=correction"))) == 3
        none = story.page("/timeline/?cause=retraction")
        assert "No changes match these filters" in text(none)
        assert "No changes match" in text(story.page("/timeline/?actor=victor"))
        assert "No changes match" in text(story.page("/timeline/?until=2000-01-01"))
        today = story.after[:10]
        assert len(rows(story.page(f"/timeline/?since={today}&until={today}"))) == 3
        # Values the list does not know are said in a sentence, and ignored.
        odd = story.page("/timeline/?kind=rumour&cause=gossip&since=yesterday&sort=size")
        assert odd.status_code == 200 and len(rows(odd)) == 3
        words = text(odd)
        assert "“rumour” is not a kind" in words and "“gossip” is not a cause" in words
        assert "“yesterday” is not a date" in words and "cannot be sorted by “size”" in words

    def test_newest_first_by_default_and_oldest_first_when_asked(self, story: Story) -> None:
        world = story.world
        steady = world.decision("The board meets", [world.board])
        chairs = world.action("Book the chairs", steady)
        agents_services.action_mark(
            workspace=world.trio.workspace, action_id=chairs, status="cancelled", actor=world.trio.reviewer
        )
        newest = rows(story.page("/timeline/"))
        oldest = rows(story.page("/timeline/?sort=when"))
        assert len(newest) == 4 and "Book the chairs" in newest[0] and "pending → cancelled" in newest[0]
        assert "a person's mark" in newest[0] and newest[0].endswith("rita")
        assert "Book the chairs" in oldest[-1] and sorted(newest) == sorted(oldest)

    def test_the_menu_leads_to_history_whose_tabs_lead_to_it(self, story: Story) -> None:
        ws = story.world.ws
        assert f'href="/w/{ws}/corrections/" >History</a>' in story.page("/").content.decode()
        for page in ("/corrections/", "/timeline/", "/diff/"):
            html = story.page(page).content.decode()
            tabs = html[html.index('<nav class="tabs" aria-label="History">') :]
            tabs = tabs[: tabs.index("</nav>")]
            for path in ("corrections", "timeline", "diff"):
                assert f'href="/w/{ws}/{path}/"' in tabs
            assert tabs.count('aria-current="page"') == 1

    def test_outsiders_get_the_404(self, story: Story) -> None:
        assert story.page("/timeline/", user=story.world.trio.outsider).status_code == 404
        assert story.page("/diff/", user=story.world.trio.outsider).status_code == 404


class DiffTests:
    def test_over_the_correction_it_names_what_changed_and_what_is_new(self, story: Story) -> None:
        world = story.world
        result = timeline_selectors.beliefs_diff(workspace=world.trio.workspace, start=story.before, end=story.after)
        by_kind = {k.kind: k for k in result.kinds}
        assert [(i.id, i.before, i.after) for i in by_kind["claim"].changed] == [(world.june, "current", "superseded")]
        assert [(i.id, i.before, i.after) for i in by_kind["decision"].changed] == [
            (story.decision, "supported", "needs_review")
        ]
        assert [(i.id, i.before, i.after) for i in by_kind["action"].changed] == [(story.action, "pending", "held")]
        assert [(i.id, i.after) for i in by_kind["claim"].created] == [(story.july, "current")]
        assert by_kind["claim"].made == 1 and by_kind["decision"].made == 0
        step = by_kind["claim"].changed[0].steps[0]
        assert (step.cause, step.cause_id, step.actor) == ("correction", story.correction, "rita")
        assert step.named.title == "The launch is in July." and not result.truncated

        page = story.page(f"/diff/?from={quote(story.before)}&to={quote(story.after)}")
        assert page.status_code == 200
        words = text(page)
        assert "Claims: 1 current → superseded, 1 new" in words
        assert "Decisions: 1 supported → needs review" in words
        assert "Actions: 1 pending → held" in words
        assert "The launch is in July." in words and "by rita" in words
        body = page.content.decode()
        assert f'href="/w/{world.ws}/claims/{story.july}/"' in body
        assert f'href="/w/{world.ws}/corrections/{story.correction}/"' in body
        assert f"/w/{world.ws}/?as_of=" in body  # "open this moment" is an address on the dashboard

    def test_before_the_correction_nothing_changed(self, story: Story) -> None:
        start = "2000-01-01T00:00:00Z"
        result = timeline_selectors.beliefs_diff(
            workspace=story.world.trio.workspace, start="2000-01-01T00:00:00.000000+00:00", end=story.before
        )
        assert all(not k.changed and not k.came_back for k in result.kinds)
        page = story.page(f"/diff/?from={start}&to={quote(story.before)}")
        assert page.status_code == 200
        # What existed before the correction was made in that window: new, nothing changed status.
        assert "changed status" not in text(page).lower()
        empty = story.page("/diff/?from=2000-01-01T00:00&to=2000-01-02T00:00")
        assert "nothing changed" in text(empty)
        # A window that has ended opens the workspace as it was at its end...
        assert f"/w/{story.world.ws}/?as_of=2000-01-02T00%3A00%3A00.000000%2B00%3A00" in empty.content.decode()

    def test_by_default_the_last_seven_days(self, story: Story) -> None:
        page = story.page("/diff/")
        assert page.status_code == 200
        words = text(page)
        # Everything of the story was made this week: new beliefs are changes of belief, with their status now.
        assert "Claims: 6 new" in words and "Decisions: 1 new" in words and "Actions: 1 new" in words
        assert "The launch is in June. superseded made" in words
        assert "Launch in June needs review made" in words
        # ...the default one ends at the coming minute: the workspace now, not "a moment that has not come".
        assert "Open the workspace now" in words and "?as_of=" not in page.content.decode().split("diff-moments")[-1]

    def test_a_change_and_back_is_listed_apart(self, story: Story) -> None:
        world = story.world
        steady = world.decision("The board meets", [world.board])
        chairs = world.action("Book the chairs", steady)
        start = now_iso()
        for status in ("cancelled", "pending"):
            agents_services.action_mark(
                workspace=world.trio.workspace, action_id=chairs, status=status, actor=world.trio.reviewer
            )
        result = timeline_selectors.beliefs_diff(workspace=world.trio.workspace, start=start, end=now_iso())
        action = next(k for k in result.kinds if k.kind == "action")
        assert action.changed == [] and action.moved == [] and action.back == 1
        assert [(i.id, i.before, i.after) for i in action.came_back] == [(chairs, "pending", "pending")]
        assert [(s.from_status, s.to_status, s.cause) for s in action.came_back[0].steps] == [
            ("pending", "cancelled", "person"), ("cancelled", "pending", "person"),
        ]  # fmt: skip
        page = story.page(f"/diff/?from={quote(start)}")
        words = text(page)
        assert "Actions: 1 changed and back" in words and "Changed and back" in words
        assert "pending → cancelled — a person's mark, by rita" in words

    @pytest.mark.parametrize(
        ("query", "sentence"),
        [
            ("from=yesterday", "“from” must be a moment in ISO 8601"),
            ("to=2026-13-45T00:00", "“to” must be a moment in ISO 8601"),
            ("from=2026-05-12T00:00&to=2026-05-01T00:00", "“from” (2026-05-12 00:00 UTC) is after “to”"),
        ],
    )
    def test_bad_moments_are_a_sentence_on_the_page(self, story: Story, query: str, sentence: str) -> None:
        page = story.page(f"/diff/?{query}")
        assert page.status_code == 422
        assert sentence in text(page)
        assert 'name="from"' in page.content.decode()  # the fields are there to fix it


class HistoryBeganTests:
    def test_a_migrated_workspace_says_where_its_history_began(self, story: Story) -> None:
        from afterhack import graph
        from workspaces.services import workspaces as workspace_services

        world = story.world
        # As a graph written before the history: no changes, no beginning; then migrated.
        graph.query(world.trio.workspace, "MATCH (x:Change) DETACH DELETE x")
        graph.query(world.trio.workspace, "MATCH (w:Workspace) SET w.history_since = null")
        workspace_services.graph_ensure(workspace=world.trio.workspace)
        found = rows(story.page("/timeline/"))
        assert len(found) == 3
        claim = next(r for r in found if "The launch is in June." in r)
        assert "history began: current → superseded" in claim and "correction: “The launch is in July.”" in claim
        action = next(r for r in found if "Send the launch announcement" in r)
        assert "history began: held (what it was before is not known)" in action
        assert "history began (the state found when the history of changes began)" in action
        assert len(rows(story.page("/timeline/?cause=migration"))) == 2

        page = story.page(f"/diff/?from={quote(story.before)}&to={quote(story.after)}")
        words = text(page)
        assert "Actions: 1 now held (history began)" in words and "Claims: 1 current → superseded" in words
