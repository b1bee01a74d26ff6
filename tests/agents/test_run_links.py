"""A run's page links the decision it recorded and the claims that decision cites; the decision links back."""

from __future__ import annotations

from typing import Any

import pytest

from agents.graph import runs as runs_graph
from agents.services import decisions as decision_services
from agents.services import runs as run_services
from tests.agents.conftest import Story
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


class RunLinksTests:
    def test_the_run_page_links_its_decision_and_the_claims_it_cites(
        self, story: Story, no_llm: None, django_capture_on_commit_callbacks: Any
    ) -> None:
        ws = story.trio.workspace
        with django_capture_on_commit_callbacks(execute=True):
            run_id = run_services.ask(workspace=ws, question="When is the product launch?", actor=story.trio.reviewer)
        run = runs_graph.run_get(workspace=ws, run_id=run_id)
        assert run is not None and run.decision_id
        action = decision_services.action_add(
            workspace=ws, title="Tell the team", decision_ids=[run.decision_id], actor=story.trio.reviewer
        )
        page = client_for(story.trio.viewer).get(f"/w/{ws.id}/runs/{run_id}/").content.decode()
        assert f'href="/w/{ws.id}/decisions/{run.decision_id}/"' in page
        cited = page.split("It cites")[1].split("</ul>")[0]
        assert f'<a href="/w/{ws.id}/claims/{story.june}/">The product launch is in June.</a>' in cited
        # The decision page links back to the run that made it, and on to the action added to it since.
        decision = client_for(story.trio.viewer).get(f"/w/{ws.id}/decisions/{run.decision_id}/").content.decode()
        assert f'href="/w/{ws.id}/runs/{run_id}/">agent run</a>' in decision
        assert f'<a href="/w/{ws.id}/actions/{action.id}/">Tell the team</a>' in decision
