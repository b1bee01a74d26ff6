"""The agent pages: ask, the live run page, decisions with a status filter, a decision, actions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from agents.graph import actions as actions_graph
from agents.graph import decisions as decisions_graph
from agents.services import decisions as decision_services
from agents.services import runs as run_services
from tests.agents.conftest import Story
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


class AskPageTests:
    def test_asking_from_the_page_shows_the_run_with_its_trajectory(
        self, story: Story, no_llm: None, django_capture_on_commit_callbacks: Any
    ) -> None:
        ws = story.trio.workspace.id
        with django_capture_on_commit_callbacks(execute=True):
            response = client_for(story.trio.reviewer).post(
                f"/w/{ws}/ask/", {"question": "When is the product launch?"}
            )
        assert response.status_code == 302
        page = client_for(story.trio.viewer).get(response["Location"]).content.decode()
        assert "Searched" in page and "Retrieved" in page and "The product launch is in June" in page
        assert "offline rule-based agent" in page and '<mark class="ev d1">The product launch is in June</mark>' in page
        fragment = client_for(story.trio.viewer).get(response["Location"], headers=HTMX).content.decode()
        assert fragment.lstrip().startswith('<div id="run-body"') and "hx-trigger" not in fragment

    def test_a_running_run_polls_and_an_empty_question_is_explained(self, story: Story, no_llm: None) -> None:
        ws = story.trio.workspace.id
        run_id = run_services.ask(workspace=story.trio.workspace, question="launch?", actor=story.trio.reviewer)
        page = client_for(story.trio.viewer).get(f"/w/{ws}/runs/{run_id}/").content.decode()
        assert 'hx-trigger="every 1s"' in page and "Working" in page
        empty = client_for(story.trio.reviewer).post(f"/w/{ws}/ask/", {"question": "  "})
        assert empty.status_code == 422 and "This field is required" in empty.content.decode()

    def test_access(self, story: Story) -> None:
        ws = story.trio.workspace.id
        assert client_for(story.trio.viewer).get(f"/w/{ws}/ask/").status_code == 200
        assert client_for(story.trio.viewer).post(f"/w/{ws}/ask/", {"question": "x"}).status_code == 403
        assert client_for(story.trio.outsider).get(f"/w/{ws}/ask/").status_code == 404
        assert client_for(story.trio.viewer).get(f"/w/{ws}/runs/nope/").status_code == 404


class DecisionPagesTests:
    def make(self, story: Story) -> Any:
        return decision_services.decision_add(
            workspace=story.trio.workspace, title="Launch in June", rationale="Plan.",
            justifications=[[story.june], [story.ana, story.budget]], actor=story.trio.reviewer,
        )  # fmt: skip

    def test_the_decision_page_shows_each_justification_with_its_quotes_and_actions(self, story: Story) -> None:
        decision = self.make(story)
        decision_services.action_add(
            workspace=story.trio.workspace,
            title="Send the launch announcement",
            decision_ids=[decision.id],
            actor=story.trio.reviewer,
        )
        page = (
            client_for(story.trio.viewer).get(f"/w/{story.trio.workspace.id}/decisions/{decision.id}/").content.decode()
        )
        assert "Justification 1" in page and "Justification 2" in page and "all of these together" in page
        assert '<blockquote class="quote">The product launch is in June</blockquote>' in page
        assert "Send the launch announcement" in page and "Mark done" not in page  # viewers get no buttons

    def test_the_list_filters_by_status_and_serves_a_fragment(self, story: Story) -> None:
        self.make(story)
        client = client_for(story.trio.viewer)
        ws = story.trio.workspace.id
        assert "Launch in June" in client.get(f"/w/{ws}/decisions/?status=supported").content.decode()
        assert "Launch in June" not in client.get(f"/w/{ws}/decisions/?status=needs_review").content.decode()
        fragment = client.get(
            f"/w/{ws}/decisions/?status=supported", headers={**HTMX, "HX-Target": "decisions-list"}
        ).content.decode()
        assert fragment.lstrip().startswith('<section id="decisions-list"')
        # The filter comes with the list, so the chosen status is the one selected.
        assert '<option value="supported" selected>Supported</option>' in fragment

    def test_creating_a_decision_from_the_page_and_explaining_bad_support(self, story: Story) -> None:
        ws = story.trio.workspace.id
        client = client_for(story.trio.reviewer)
        good = client.post(
            f"/w/{ws}/decisions/new",
            {"title": "Launch in June", "justifications": f"{story.june}\n{story.ana}, {story.budget}"},
        )
        assert good.status_code == 302
        created = decisions_graph.decision_list(workspace=story.trio.workspace)[0]
        assert created.justifications == [[story.june], sorted([story.ana, story.budget])]
        bad = client.post(f"/w/{ws}/decisions/new", {"title": "Nope", "justifications": "no-such-id"})
        assert bad.status_code == 422 and "not claims or decisions of this workspace" in bad.content.decode()
        assert (
            client_for(story.trio.viewer)
            .post(f"/w/{ws}/decisions/new", {"title": "x", "justifications": story.june})
            .status_code
            == 403
        )


class ActionPagesTests:
    def test_marking_done_over_htmx_returns_the_row_and_held_ones_cannot_be_done(self, story: Story) -> None:
        ws = story.trio.workspace
        decision = decision_services.decision_add(
            workspace=ws, title="Launch", rationale="", justifications=[[story.june]], actor=story.trio.reviewer
        )
        action = decision_services.action_add(
            workspace=ws, title="Announce", decision_ids=[decision.id], actor=story.trio.reviewer
        )
        client = client_for(story.trio.reviewer)
        row = client.post(
            f"/w/{ws.id}/actions/{action.id}/status", {"status": "done", "confirmed": "yes"}, headers=HTMX
        ).content.decode()
        assert row.lstrip().startswith(f'<tr id="action-{action.id}">') and "done" in row
        from afterhack import graph

        graph.query(ws, "MATCH (d:Decision {id: $id}) SET d.status = 'needs_review'", {"id": decision.id})
        held = decision_services.action_add(
            workspace=ws, title="Hire", decision_ids=[decision.id], actor=story.trio.reviewer
        )
        refused = client.post(f"/w/{ws.id}/actions/{held.id}/status", {"status": "done"}, headers=HTMX).content.decode()
        assert "held" in refused and "Resolve that decision first" in refused
        listing = client_for(story.trio.viewer).get(f"/w/{ws.id}/actions/?status=held").content.decode()
        assert "Hire" in listing and "Announce" not in listing
        assert (
            client_for(story.trio.viewer)
            .post(f"/w/{ws.id}/actions/{held.id}/status", {"status": "cancelled", "confirmed": "yes"})
            .status_code
            == 403
        )

    @pytest.mark.parametrize(
        ("back", "target"),
        [("/w/", "/w/"), ("abc", None), ("https://elsewhere.example/", None), ("//elsewhere.example/", None)],
    )
    def test_marking_returns_to_a_page_of_this_site_only(self, story: Story, back: str, target: str | None) -> None:
        ws = story.trio.workspace
        decision = decision_services.decision_add(
            workspace=ws, title="Launch", rationale="", justifications=[[story.june]], actor=story.trio.reviewer
        )
        action = decision_services.action_add(
            workspace=ws, title="Announce", decision_ids=[decision.id], actor=story.trio.reviewer
        )
        response = client_for(story.trio.reviewer).post(
            f"/w/{ws.id}/actions/{action.id}/status", {"status": "done", "next": back, "confirmed": "yes"}
        )
        assert response.status_code == 302 and response["Location"] == (target or f"/w/{ws.id}/actions/")
        marked = actions_graph.action_get(workspace=ws, action_id=action.id)
        assert marked is not None and marked.status == "done"

    def test_the_pages_follow_the_access_rules(self, story: Story, make_user: Callable[..., Any]) -> None:
        ws = story.trio.workspace.id
        for url in (f"/w/{ws}/decisions/", f"/w/{ws}/actions/", f"/w/{ws}/decisions/nope/"):
            assert client_for(story.trio.outsider).get(url).status_code == 404
        assert client_for(story.trio.viewer).get(f"/w/{ws}/decisions/nope/").status_code == 404
