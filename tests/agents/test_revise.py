"""Revising a flagged decision, the review queue's two parts, and decision kinds, through the API."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from afterhack import graph
from benchmarks.llm_server import json_reply
from tests.agents.conftest import last_tool_result, tool_call
from tests.conftest import api_for
from tests.corrections.conftest import World
from tests.corrections.conftest import world as world  # the launch story
from workspaces.models import AuditEvent

pytestmark = pytest.mark.django_db

Ask = Callable[..., dict[str, Any]]


def get(world: World, path: str) -> dict[str, Any]:
    response = api_for(world.trio.viewer).get(f"/workspaces/{world.ws}/{path}")
    assert response.status_code == 200, response.content
    return dict(response.json())


def revise(world: World, decision_id: str, user: Any = None, **body: Any) -> Any:
    return api_for(user or world.trio.reviewer).post(f"/workspaces/{world.ws}/decisions/{decision_id}/revise", body)


def correct_june(world: World) -> str:
    """Corrects “The launch is in June” to July; returns the replacement claim's id."""
    revision = world.preview(world.june).json()["revision"]
    return str(world.apply(world.june, revision).json()["replacement_claim_id"])


def written(world: World) -> tuple[Any, ...]:
    """What a refused revision must leave as it was: the graph's nodes, edges and revision, and the audit trail."""
    rows = graph.ro_query(
        world.trio.workspace,
        "MATCH (n) WITH count(n) AS n MATCH ()-[r]->() WITH n, count(r) AS r MATCH (w:Workspace) "
        "RETURN n, r, w.revision",
    )
    statuses = graph.ro_query(world.trio.workspace, "MATCH (x) WHERE x:Decision OR x:Action RETURN x.id, x.status")
    return tuple(rows[0]), sorted(map(tuple, statuses)), AuditEvent.objects.exclude(verb__startswith="token.").count()


class ReviseTests:
    def story(self, world: World) -> dict[str, str]:
        """Two decisions on June; one action on the first only, one on both, one already done; June corrected."""
        launch = world.decision("Launch in June", [world.june])
        hiring = world.decision("Hire the June crew", [world.june])
        ids = {
            "launch": launch, "hiring": hiring,
            "announce": world.action("Send the launch announcement", launch),
            "both": world.action("Book the launch party", launch, hiring),
            "done": world.action("Draft the press release", launch),
        }  # fmt: skip
        api_for(world.trio.reviewer).post(f"/workspaces/{world.ws}/actions/{ids['done']}/status", {"status": "done"})
        ids["july"] = correct_june(world)
        assert get(world, f"actions/{ids['announce']}")["status"] == "held"
        return ids

    def test_it_moves_the_open_actions_and_re_evaluates_each(self, world: World) -> None:
        ids = self.story(world)
        response = revise(
            world, ids["launch"], title="Launch in July", rationale="The board moved it.",
            justifications=[[ids["july"]]], actions="move",
        )  # fmt: skip
        assert response.status_code == 201, response.content
        new = response.json()
        assert new["title"] == "Launch in July" and new["status"] == "supported" and new["kind"] == "manual"
        assert new["supersedes"] == ids["launch"] and new["superseded_by"] is None
        assert new["justifications"] == [[ids["july"]]] and new["question"] is None
        old = get(world, f"decisions/{ids['launch']}")
        assert old["status"] == "superseded" and old["superseded_by"] == new["id"] and old["title"] == "Launch in June"
        # Its only decision is now supported: pending again, on the new decision.
        assert get(world, f"actions/{ids['announce']}") | {"origin": None} == {
            "id": ids["announce"], "title": "Send the launch announcement", "status": "pending",
            "decision_ids": [new["id"]], "origin": None, "follow_up": None,
        }  # fmt: skip
        # Its other decision still needs review: held, on the new decision and that one.
        both = get(world, f"actions/{ids['both']}")
        assert both["status"] == "held" and sorted(both["decision_ids"]) == sorted([new["id"], ids["hiring"]])
        # A finished action stays with the decision it was done for.
        assert get(world, f"actions/{ids['done']}")["decision_ids"] == [ids["launch"]]
        # It happened on a decision that lost its support: it still needs a follow-up after the revision.
        assert get(world, f"actions/{ids['done']}")["follow_up"] == "needed"
        event = AuditEvent.objects.get(verb="decision.revised")
        assert event.payload == {
            "decision_id": ids["launch"], "new_decision_id": new["id"], "justifications": [[ids["july"]]],
            "actions": "move", "moved": sorted([ids["announce"], ids["both"]]), "pending": [ids["announce"]],
            "cancelled": [],
        }  # fmt: skip
        queue = get(world, "review")
        assert [d["id"] for d in queue["lost_support"]] == [ids["hiring"]] and queue["unanswered"] == []

    def test_it_cancels_the_open_actions_which_stay_with_the_old_decision(self, world: World) -> None:
        ids = self.story(world)
        response = revise(
            world, ids["launch"], title="Launch in July", justifications=[[ids["july"]]], actions="cancel"
        )
        assert response.status_code == 201, response.content
        for action in ("announce", "both"):
            cancelled = get(world, f"actions/{ids[action]}")
            assert cancelled["status"] == "cancelled" and ids["launch"] in cancelled["decision_ids"]
        assert get(world, f"decisions/{response.json()['id']}")["action_ids"] == []
        payload = AuditEvent.objects.get(verb="decision.revised").payload
        assert payload["cancelled"] == sorted([ids["announce"], ids["both"]]) and payload["moved"] == []

    def test_a_superseded_decision_cannot_be_revised_rejustified_dismissed_or_built_on(self, world: World) -> None:
        ids = self.story(world)
        new = revise(world, ids["launch"], title="Launch in July", justifications=[[ids["july"]]], actions="move")
        before = written(world)
        again = revise(world, ids["launch"], title="Launch in August", justifications=[[world.ana]], actions="move")
        assert again.status_code == 409
        assert "was revised by rita" in again.json()["detail"] and "“Launch in July”" in again.json()["detail"]
        assert new.json()["id"] in again.json()["detail"]
        client = api_for(world.trio.reviewer)
        rejustify = client.post(
            f"/workspaces/{world.ws}/decisions/{ids['launch']}/justifications", {"justifications": [[world.ana]]}
        )
        assert rejustify.status_code == 409 and "superseded by “Launch in July”" in rejustify.json()["detail"]
        dismiss = client.post(f"/workspaces/{world.ws}/decisions/{ids['launch']}/dismiss")
        assert dismiss.status_code == 409 and "cannot be dismissed" in dismiss.json()["detail"]
        on_it = client.post(
            f"/workspaces/{world.ws}/decisions", {"title": "Later", "justifications": [[ids["launch"]]]}
        )
        assert on_it.status_code == 422 and on_it.json()["error"] == "invalid_support"
        assert "superseded: it was revised, rest on the decision that replaced it" in on_it.json()["detail"]
        action = client.post(f"/workspaces/{world.ws}/actions", {"title": "Late", "decision_ids": [ids["launch"]]})
        assert action.status_code == 409 and "add it to that one" in action.json()["detail"]
        assert written(world) == before

    @pytest.mark.parametrize("state", ["supported", "dismissed"])
    def test_only_a_decision_waiting_for_review_can_be_revised(self, world: World, state: str) -> None:
        ids = self.story(world)
        decision = world.decision("Ana runs it", [world.ana]) if state == "supported" else ids["launch"]
        if state == "dismissed":
            api_for(world.trio.reviewer).post(f"/workspaces/{world.ws}/decisions/{decision}/dismiss")
        before = written(world)
        response = revise(world, decision, title="Other", justifications=[[ids["july"]]], actions="move")
        words = "does not need review" if state == "supported" else "was dismissed by rita"
        assert response.status_code == 409 and words in response.json()["detail"]
        assert written(world) == before

    def test_a_support_resting_on_the_old_decision_is_a_cycle(self, world: World) -> None:
        ids = self.story(world)
        # A decision resting on the launch and on the board, still supported through the board.
        on_top = world.decision("Tell the board", [world.board])
        graph.query(
            world.trio.workspace,
            "MATCH (a:Decision {id: $a}), (b:Decision {id: $b}) CREATE (a)-[:SUPPORTS {justification: 1}]->(b)",
            {"a": ids["launch"], "b": on_top},
        )
        before = written(world)
        for support in (on_top, ids["launch"]):
            response = revise(world, ids["launch"], title="Launch", justifications=[[support]], actions="move")
            assert response.status_code == 422 and response.json()["error"] == "invalid_support"
            assert "cannot rest on the one it replaces" in response.json()["detail"]
        assert written(world) == before

    @pytest.mark.parametrize(
        ("body", "status", "code", "words"),
        [
            ({"justifications": [["00000000-0000-0000-0000-000000000000"]]}, 422, "invalid_support", "not claims"),
            ({"justifications": [["{june}"]]}, 422, "invalid_support", "claim is superseded"),
            ({"justifications": []}, 422, "invalid_support", "justifications"),
            ({"actions": "keep"}, 422, "invalid_input", "“actions” must be “move”"),
            ({"actions": None}, 422, "invalid_input", "“actions” must be “move”"),
            ({"title": "  "}, 422, "invalid_input", "title"),
        ],
    )
    def test_bad_input_is_refused_in_words_and_writes_nothing(
        self, world: World, body: dict[str, Any], status: int, code: str, words: str
    ) -> None:
        ids = self.story(world)
        full = {"title": "Launch in July", "justifications": [[ids["july"]]], "actions": "move", **body}
        full["justifications"] = [[world.june if i == "{june}" else i for i in g] for g in full["justifications"]]
        before = written(world)
        response = revise(world, ids["launch"], **full)
        assert response.status_code == status and response.json()["error"] == code
        assert words in response.json()["detail"]
        assert written(world) == before

    def test_without_actions_it_asks_what_to_do_with_them(self, world: World) -> None:
        ids = self.story(world)
        response = revise(world, ids["launch"], title="Launch in July", justifications=[[ids["july"]]])
        assert response.status_code == 422 and "Say what happens to its open actions" in response.json()["detail"]

    def test_access_and_unknown_decisions(self, world: World) -> None:
        ids = self.story(world)
        body = {"title": "Launch in July", "justifications": [[ids["july"]]], "actions": "move"}
        assert revise(world, ids["launch"], world.trio.viewer, **body).status_code == 403
        assert revise(world, ids["launch"], world.trio.outsider, **body).status_code == 404
        assert revise(world, "00000000-0000-0000-0000-000000000000", **body).status_code == 404
        assert revise(world, "not-an-id", **body).status_code == 404
        assert api_for(world.trio.outsider).get(f"/workspaces/{world.ws}/review").status_code == 404


class KindTests:
    def test_an_unanswered_question_is_its_own_kind_in_its_own_list(self, world: World, no_llm: None, ask: Ask) -> None:
        answered = ask(world.trio, "When is the launch?")
        unanswered = ask(world.trio, "What is the capital of France?")
        assert answered["decision"]["kind"] == "agent" and answered["decision"]["question"] == "When is the launch?"
        decision = unanswered["decision"]
        assert decision["kind"] == "unanswered" and decision["question"] == "What is the capital of France?"
        assert decision["status"] == "needs_review" and decision["title"] == "No source-backed answer yet"
        launch = world.decision("Launch in June", [world.june])
        correct_june(world)
        queue = get(world, "review")
        assert [d["id"] for d in queue["unanswered"]] == [decision["id"]]
        # The agent's answer still holds through the other June claims it cited.
        assert [(d["id"], d["kind"]) for d in queue["lost_support"]] == [(launch, "manual")]
        api_for(world.trio.reviewer).post(f"/workspaces/{world.ws}/decisions/{decision['id']}/dismiss")
        assert get(world, "review")["unanswered"] == []

    def test_answering_a_question_keeps_the_question_on_the_new_decision(
        self, world: World, no_llm: None, ask: Ask
    ) -> None:
        decision = ask(world.trio, "What is the capital of France?")["decision"]
        response = revise(world, decision["id"], title="Ana owns it", justifications=[[world.ana]], actions="move")
        assert response.status_code == 201
        assert response.json()["question"] == "What is the capital of France?" and response.json()["kind"] == "manual"
        assert get(world, "review")["unanswered"] == []

    def test_a_model_that_finds_nothing_makes_an_unanswered_question(self, world: World, llm: Any, ask: Ask) -> None:
        def nothing_found(request: dict[str, Any]) -> dict[str, Any]:
            assert last_tool_result(request) == {"claims": []}
            return json_reply({"answer": "Nothing.", "claim_ids": [], "actions": []})

        coordinator = json_reply({"title": "Paris", "rationale": "Known.", "claim_ids": [], "actions": []})
        llm.script(tool_call("search_claims", query="capital of France"), nothing_found, coordinator)
        decision = ask(world.trio, "What is the capital of France?")["decision"]
        assert decision["kind"] == "unanswered" and decision["question"] == "What is the capital of France?"

    def test_decisions_stored_before_kinds_get_theirs_on_read(self, world: World, no_llm: None, ask: Ask) -> None:
        answered = ask(world.trio, "When is the launch?")["decision"]
        unanswered = ask(world.trio, "What is the capital of France?")["decision"]
        manual = world.decision("Launch in June", [world.june])
        graph.query(world.trio.workspace, "MATCH (d:Decision) REMOVE d.kind, d.question")
        stored = graph.ro_query(world.trio.workspace, "MATCH (d:Decision) RETURN d.kind, d.question")
        assert stored == [[None, None]] * 3
        kinds = {d: (get(world, f"decisions/{d}")["kind"], get(world, f"decisions/{d}")["question"]) for d in (
            answered["id"], unanswered["id"], manual)}  # fmt: skip
        assert kinds == {
            answered["id"]: ("agent", "When is the launch?"),
            unanswered["id"]: ("unanswered", "What is the capital of France?"),
            manual: ("manual", None),
        }
        assert [d["id"] for d in get(world, "review")["unanswered"]] == [unanswered["id"]]
