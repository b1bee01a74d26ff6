"""The offline agent end to end; decisions and actions made by people through the API."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from afterhack import graph
from claims.services import embeddings as embeddings_services
from tests.agents.conftest import Story
from tests.conftest import api_for
from workspaces.models import AuditEvent

pytestmark = pytest.mark.django_db

Ask = Callable[..., dict[str, Any]]


class OfflineAgentTests:
    def test_it_searches_retrieves_and_decides_on_what_it_retrieved(self, story: Story, no_llm: None, ask: Ask) -> None:
        run = ask(story.trio, "When is the product launch?")
        assert run["status"] == "done" and run["agent"] == "offline" and run["model_calls"] == 0
        assert story.june in run["searched_claim_ids"] and story.june in run["retrieved_claim_ids"]
        decision = run["decision"]
        assert decision["status"] == "supported" and [story.june] in decision["justifications"]
        assert decision["title"] == "The product launch is in June"
        assert run["actions"] == []
        # Every cited claim was both searched and retrieved.
        cited = {i for group in decision["justifications"] for i in group}
        assert cited <= set(run["searched_claim_ids"]) & set(run["retrieved_claim_ids"])

    def test_with_an_embeddings_model_it_finds_a_claim_by_meaning(
        self, story: Story, no_llm: None, embedder: Any, ask: Ask
    ) -> None:
        assert embeddings_services.claims_embed(workspace=story.trio.workspace) == 4
        run = ask(story.trio, "When is the release?")
        search = next(e for e in run["trajectory"] if e["kind"] == "search")
        assert search["mode"] == "hybrid" and search["degraded"] is False and story.june in search["result_ids"]
        decision = run["decision"]
        assert decision["status"] == "supported" and decision["justifications"] == [[story.june]]
        embedder.embeddings_reply = {"status": 500}
        run = ask(story.trio, "When is the release?")
        search = next(e for e in run["trajectory"] if e["kind"] == "search")
        assert search["degraded"] is True and run["decision"]["title"] == "No source-backed answer yet"

    def test_without_evidence_it_says_so(self, story: Story, no_llm: None, ask: Ask) -> None:
        run = ask(story.trio, "What is the capital of France?")
        assert run["decision"]["status"] == "needs_review" and run["decision"]["title"] == "No source-backed answer yet"
        assert run["searched_claim_ids"] == [] and run["actions"] == []

    @pytest.mark.parametrize(
        ("question", "words"),
        [("", "empty"), ("   ", "empty"), ("x" * 2001, "at most"), (None, "empty"), (5, "must be text")],
    )
    def test_it_refuses_a_bad_question_and_starts_nothing(
        self, story: Story, no_llm: None, question: Any, words: str
    ) -> None:
        response = api_for(story.trio.reviewer).post(
            f"/workspaces/{story.trio.workspace.id}/ask", {"question": question}
        )
        assert response.status_code == 422 and words in response.json()["detail"]
        assert graph.ro_query(story.trio.workspace, "MATCH (r:AgentRun) RETURN count(r)") == [[0]]

    def test_access_rules_for_asking_and_reading_runs(self, story: Story, no_llm: None, ask: Ask) -> None:
        ws = story.trio.workspace.id
        assert api_for(story.trio.viewer).post(f"/workspaces/{ws}/ask", {"question": "launch?"}).status_code == 403
        assert api_for(story.trio.outsider).post(f"/workspaces/{ws}/ask", {"question": "launch?"}).status_code == 404
        run = ask(story.trio, "When is the launch?")
        assert api_for(story.trio.viewer).get(f"/workspaces/{ws}/runs/{run['id']}").status_code == 200
        assert api_for(story.trio.outsider).get(f"/workspaces/{ws}/runs/{run['id']}").status_code == 404
        assert api_for(story.trio.viewer).get(f"/workspaces/{ws}/runs/nope").status_code == 404


class PeopleDecisionTests:
    def post(self, story: Story, path: str, body: dict[str, Any], user: Any = None) -> Any:
        return api_for(user or story.trio.reviewer).post(f"/workspaces/{story.trio.workspace.id}{path}", body)

    def test_a_reviewer_creates_a_decision_with_two_justifications_and_an_action(self, story: Story) -> None:
        response = self.post(
            story,
            "/decisions",
            {
                "title": "Launch in June",
                "rationale": "Plan.",
                "justifications": [[story.june], [story.ana, story.budget]],
            },
        )
        assert response.status_code == 201
        decision = response.json()
        assert decision["status"] == "supported" and decision["review_reason"] is None
        assert decision["justifications"] == [[story.june], sorted([story.ana, story.budget])]
        action = self.post(
            story, "/actions", {"title": "Send the launch announcement", "decision_ids": [decision["id"]]}
        )
        assert (
            action.status_code == 201
            and action.json()["status"] == "pending"
            and action.json()["decision_ids"] == [decision["id"]]
        )
        fetched = (
            api_for(story.trio.viewer).get(f"/workspaces/{story.trio.workspace.id}/decisions/{decision['id']}").json()
        )
        assert fetched["action_ids"] == [action.json()["id"]]
        assert AuditEvent.objects.filter(verb__in=["decision.created", "action.created"]).count() == 2

    def test_a_decision_can_rest_on_a_decision(self, story: Story) -> None:
        base = self.post(story, "/decisions", {"title": "Launch in June", "justifications": [[story.june]]}).json()
        on_top = self.post(story, "/decisions", {"title": "Hire in May", "justifications": [[base["id"], story.ana]]})
        assert on_top.status_code == 201 and on_top.json()["justifications"] == [sorted([base["id"], story.ana])]

    @pytest.mark.parametrize(
        "justifications",
        [[], [[]], "x", [["no-such-claim"]], [[None]], [["a", 3]]],
    )
    def test_it_refuses_missing_or_malformed_support(self, story: Story, justifications: Any) -> None:
        before = graph.ro_query(story.trio.workspace, "MATCH (d:Decision) RETURN count(d)")
        response = self.post(story, "/decisions", {"title": "Bad", "justifications": justifications})
        assert response.status_code == 422 and response.json()["error"] == "invalid_support"
        assert graph.ro_query(story.trio.workspace, "MATCH (d:Decision) RETURN count(d)") == before

    def test_it_refuses_a_superseded_claim_or_a_decision_needing_review(self, story: Story) -> None:
        graph.query(story.trio.workspace, "MATCH (c:Claim {id: $id}) SET c.status = 'superseded'", {"id": story.june})
        response = self.post(story, "/decisions", {"title": "Launch", "justifications": [[story.june]]})
        assert response.status_code == 422 and "superseded" in response.json()["detail"]

    def test_viewers_and_outsiders_cannot_create(self, story: Story) -> None:
        body = {"title": "Launch", "justifications": [[story.june]]}
        assert self.post(story, "/decisions", body, story.trio.viewer).status_code == 403
        assert self.post(story, "/decisions", body, story.trio.outsider).status_code == 404


class ActionStatusTests:
    def make(self, story: Story, decision_status: str = "supported") -> tuple[str, str]:
        client = api_for(story.trio.reviewer)
        ws = story.trio.workspace.id
        decision = client.post(
            f"/workspaces/{ws}/decisions", {"title": "Launch", "justifications": [[story.june]]}
        ).json()["id"]
        if decision_status != "supported":
            graph.query(
                story.trio.workspace,
                "MATCH (d:Decision {id: $id}) SET d.status = $s",
                {"id": decision, "s": decision_status},
            )
        action = client.post(f"/workspaces/{ws}/actions", {"title": "Announce", "decision_ids": [decision]}).json()[
            "id"
        ]
        return decision, action

    def mark(self, story: Story, action: str, status: str, user: Any = None) -> Any:
        return api_for(user or story.trio.reviewer).post(
            f"/workspaces/{story.trio.workspace.id}/actions/{action}/status", {"status": status}
        )

    def test_a_pending_action_can_be_marked_done_once(self, story: Story) -> None:
        _, action = self.make(story)
        assert self.mark(story, action, "done").json()["status"] == "done"
        again = self.mark(story, action, "cancelled")
        assert again.status_code == 409 and "already done" in again.json()["detail"]

    def test_a_held_action_cannot_be_marked_done_but_can_be_cancelled(self, story: Story) -> None:
        _, action = self.make(story, decision_status="needs_review")
        assert (
            api_for(story.trio.viewer).get(f"/workspaces/{story.trio.workspace.id}/actions/{action}").json()["status"]
            == "held"
        )
        refused = self.mark(story, action, "done")
        assert refused.status_code == 409 and "held" in refused.json()["detail"]
        assert self.mark(story, action, "cancelled").json()["status"] == "cancelled"

    def test_bad_status_and_access(self, story: Story) -> None:
        _, action = self.make(story)
        assert self.mark(story, action, "exploded").status_code == 422
        assert self.mark(story, action, "done", story.trio.viewer).status_code == 403
        assert self.mark(story, action, "done", story.trio.outsider).status_code == 404
        assert self.mark(story, "nope", "done").status_code == 404

    def test_an_action_needs_existing_decisions(self, story: Story) -> None:
        response = api_for(story.trio.reviewer).post(
            f"/workspaces/{story.trio.workspace.id}/actions", {"title": "x", "decision_ids": [story.june]}
        )
        assert response.status_code == 422 and "not decisions" in response.json()["detail"]


class ListApiTests:
    def test_decisions_and_actions_are_listed_with_a_status_filter(self, story: Story) -> None:
        client = api_for(story.trio.viewer)
        ws = story.trio.workspace.id
        writer = api_for(story.trio.reviewer)
        decision = writer.post(
            f"/workspaces/{ws}/decisions", {"title": "Launch", "justifications": [[story.june]]}
        ).json()
        writer.post(f"/workspaces/{ws}/actions", {"title": "Announce", "decision_ids": [decision["id"]]})
        assert [d["title"] for d in client.get(f"/workspaces/{ws}/decisions?status=supported").json()["results"]] == [
            "Launch"
        ]
        assert client.get(f"/workspaces/{ws}/decisions?status=needs_review").json()["results"] == []
        assert [a["title"] for a in client.get(f"/workspaces/{ws}/actions?status=pending").json()["results"]] == [
            "Announce"
        ]
        assert client.get(f"/workspaces/{ws}/actions?status=held").json()["results"] == []
        assert api_for(story.trio.outsider).get(f"/workspaces/{ws}/decisions").status_code == 404
