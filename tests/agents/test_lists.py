"""The decisions, actions and runs lists: filters, sorts, counts and pages from the address, hostile addresses, access."""

from __future__ import annotations

import re

import pytest

from afterhack import graph
from agents import lists
from agents import statuses as vocabulary
from agents.services import decisions as decision_services
from agents.services import runs as run_services
from tests.agents.conftest import Story
from tests.claims.test_lists import backdate, titles
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def page(story: Story, address: str, **headers: str) -> str:
    response = client_for(story.trio.viewer).get(f"/w/{story.trio.workspace.id}{address}", headers=headers)
    assert response.status_code == 200, response.status_code
    return " ".join(response.content.decode().split())


def action_titles(html: str) -> list[str]:
    """The titles of an actions list's rows, in order."""
    return re.findall(r'<tr id="action-[^"]+"> <td>(?:<a [^>]*>)?([^<]+)', html)


def decide(story: Story, title: str, claim: str, actor: object = None) -> str:
    return decision_services.decision_add(
        workspace=story.trio.workspace, title=title, rationale="", justifications=[[claim]],
        actor=actor or story.trio.reviewer,
    ).id  # fmt: skip


def act(story: Story, title: str, decision: str) -> str:
    return decision_services.action_add(
        workspace=story.trio.workspace, title=title, decision_ids=[decision], actor=story.trio.reviewer
    ).id


class DecisionListTests:
    def test_it_searches_filters_and_sorts(self, story: Story) -> None:
        launch = decide(story, "Launch in June", story.june)
        decide(story, "Ana runs the checklist", story.ana, actor=story.trio.owner)
        decide(story, "budget is fixed", story.budget)
        graph.query(story.trio.workspace, "MATCH (d:Decision {id: $id}) SET d.status = 'needs_review'", {"id": launch})
        backdate(story.trio, "Decision", launch, "2026-02-01T09:00:00+00:00")
        assert titles(page(story, "/decisions/")) == ["budget is fixed", "Ana runs the checklist", "Launch in June"]
        assert titles(page(story, "/decisions/?sort=title")) == [
            "Ana runs the checklist", "budget is fixed", "Launch in June",
        ]  # fmt: skip
        assert titles(page(story, "/decisions/?q=JUNE")) == ["Launch in June"]
        flagged = page(story, "/decisions/?status=needs_review")
        assert titles(flagged) == ["Launch in June"] and "1 decision matches status Needs review." in flagged
        assert titles(page(story, f"/decisions/?author={story.trio.owner.username.upper()}")) == [
            "Ana runs the checklist"
        ]
        assert titles(page(story, "/decisions/?to=2026-02-01")) == ["Launch in June"]
        assert titles(page(story, "/decisions/?kind=manual&sort=-title")) == [
            "Launch in June", "budget is fixed", "Ana runs the checklist",
        ]  # fmt: skip
        assert titles(page(story, "/decisions/?kind=unanswered")) == []

    def test_a_hostile_address_is_explained_and_outsiders_get_nothing(self, story: Story) -> None:
        decide(story, "Launch in June", story.june)
        html = page(story, "/decisions/?status=maybe&kind=%27%7D&sort=rationale&page=0&from=2026-13-01")
        assert "“maybe” is not a status" in html and "“&#x27;}” is not a kind" in html
        assert "cannot be sorted by “rationale”" in html and "There is no page “0”" in html
        assert "not a date like" in html and titles(html) == ["Launch in June"]
        assert client_for(story.trio.outsider).get(f"/w/{story.trio.workspace.id}/decisions/").status_code == 404


class ActionListTests:
    def test_it_filters_by_decision_status_and_search_and_names_the_decision(self, story: Story) -> None:
        launch = decide(story, "Launch in June", story.june)
        budget = decide(story, "Budget is fixed", story.budget)
        act(story, "Announce the launch", launch)
        act(story, "Book the venue", launch)
        act(story, "Freeze spending", budget)
        assert action_titles(page(story, "/actions/")) == ["Freeze spending", "Book the venue", "Announce the launch"]
        by_decision = page(story, f"/actions/?decision={launch}&sort=title")
        assert action_titles(by_decision) == ["Announce the launch", "Book the venue"]
        assert "2 actions match depends on decision “Launch in June”." in by_decision
        assert action_titles(page(story, "/actions/?decision=not-an-id")) == []
        assert action_titles(page(story, "/actions/?q=venue&status=pending")) == ["Book the venue"]
        held = page(story, "/actions/?status=held")
        assert action_titles(held) == []
        # The empty state of a filtered list (afterhack/templatetags/listing.py, list_empty): a way out.
        assert "No actions match these filters." in held and f'href="/w/{story.trio.workspace.id}/actions/"' in held
        assert "No actions yet." not in held
        decisions = page(story, "/decisions/")
        actions_link = (
            f'/w/{story.trio.workspace.id}/actions/?decision={launch}" aria-label="2 actions resting on this decision"'
        )
        assert actions_link in decisions

    def test_a_writer_gets_the_row_buttons_inside_the_list_and_a_viewer_none(self, story: Story) -> None:
        act(story, "Announce the launch", decide(story, "Launch in June", story.june))
        mine = client_for(story.trio.reviewer).get(f"/w/{story.trio.workspace.id}/actions/").content.decode()
        assert "Mark done" in mine and '<tbody hx-boost="false" hx-select="unset">' in mine
        assert "Mark done" not in page(story, "/actions/")
        assert client_for(story.trio.outsider).get(f"/w/{story.trio.workspace.id}/actions/").status_code == 404


class RunListTests:
    def test_it_lists_every_run_with_filters_and_the_ask_page_links_to_it(self, story: Story) -> None:
        workspace = story.trio.workspace
        run_services.ask(workspace=workspace, question="When is the launch?", actor=story.trio.reviewer)
        session = run_services.ask(workspace=workspace, question="Who owns the budget?", actor=story.trio.owner)
        # Tests only: an MCP session's run is written by the MCP server; here a run is marked as one.
        graph.query(
            workspace, "MATCH (r:AgentRun {id: $id}) SET r.origin = 'mcp', r.status = 'running'", {"id": session}
        )
        html = page(story, "/runs/")
        assert titles(html) == ["Who owns the budget?", "When is the launch?"] and "1–2 of 2 runs" in html
        assert "open MCP session" in html
        assert titles(page(story, "/runs/?origin=mcp")) == ["Who owns the budget?"]
        assert titles(page(story, "/runs/?origin=agent&status=queued")) == ["When is the launch?"]
        assert titles(page(story, "/runs/?q=LAUNCH")) == ["When is the launch?"]
        assert titles(page(story, f"/runs/?person={story.trio.owner.username[:3]}")) == ["Who owns the budget?"]
        assert titles(page(story, "/runs/?sort=question")) == ["When is the launch?", "Who owns the budget?"]
        assert f'href="/w/{workspace.id}/runs/"' in page(story, "/ask/")

    def test_a_hostile_address_is_explained_and_outsiders_get_nothing(self, story: Story) -> None:
        html = page(story, "/runs/?origin=email&status=%F0%9F%92%A5&sort=--created&page=99999999999")
        assert "“email” is not a origin this list knows" in html and "cannot be sorted by “--created”" in html
        assert "No runs yet." in html
        assert client_for(story.trio.outsider).get(f"/w/{story.trio.workspace.id}/runs/").status_code == 404


class DeclaredOnceTests:
    """A status filter is declared once (agents/lists.py) for the page, the Cypher and the API's `?status=`."""

    @pytest.mark.parametrize(
        ("declared", "statuses"),
        [("DECISION_STATUS", "DecisionStatus"), ("ACTION_STATUS", "ActionStatus")],
    )
    def test_the_page_offers_every_status_the_api_takes_and_refuses_others_naming_them(
        self, declared: str, statuses: str
    ) -> None:
        status, enum = getattr(lists, declared), getattr(vocabulary, statuses)
        assert [value for value, _ in status.choices] == list(enum)
        assert status.refuse("status").words == f"“status” must be one of: {', '.join(enum)}."
