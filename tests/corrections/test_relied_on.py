"""What changed in what I relied on (`GET …/changes?cited_by=me`; docs/api.md, "What changed in what you relied
on"): an agent's session cites June, a reviewer corrects it to July, and the agent is told to use July and to
re-check its decision — on the real stores."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

import pytest

from agents.services import mcp as agents_services
from agents.statuses import TrajectoryEventKind
from claims.services import claims as claims_services
from corrections import review
from corrections.models import CorrectionIntent
from tests.conftest import api_for
from tests.corrections.conftest import World

pytestmark = pytest.mark.django_db


def feed(world: World, user: Any, **params: str) -> Any:
    query = urlencode({"cited_by": "me", **params})
    return api_for(user).get(f"/workspaces/{world.ws}/changes?{query}")


def session_of(world: World, user: Any, name: str = "s1") -> agents_services.McpRun:
    return agents_services.McpRun(name, f"MCP session {name} of {user.get_username()}", user)


def read(world: World, run: agents_services.McpRun, *claim_ids: str) -> None:
    """The session finds the claims with a search and reads each one's passage (what rule 2 asks before citing)."""
    workspace = world.trio.workspace
    agents_services.mcp_record(workspace=workspace, run=run, kind=TrajectoryEventKind.SEARCH, searched=list(claim_ids))
    for claim_id in claim_ids:
        fragment = claims_services.claim_required(workspace, claim_id).fragments[0].id
        agents_services.mcp_record(
            workspace=workspace, run=run, kind=TrajectoryEventKind.RETRIEVE,
            retrieved=[{"claim_id": claim_id, "fragment_id": fragment}],
        )  # fmt: skip


def decide(world: World, run: agents_services.McpRun, title: str, *claim_ids: str) -> str:
    made = agents_services.mcp_decide(
        workspace=world.trio.workspace, run=run, title=title, justifications=[list(claim_ids)], rationale=None
    )
    assert made.decision.status == "supported"
    return made.decision.id


def correct(world: World, claim_id: str, statement: str, key: str) -> str:
    """The reviewer corrects the claim; returns the replacement's id."""
    answer = world.apply(claim_id, world.preview(claim_id, statement).json()["revision"], key=key)
    assert answer.status_code == 201, answer.content
    return str(answer.json()["replacement_claim_id"])


@pytest.fixture
def cited(world: World) -> str:
    """Olivia's agent, in an MCP session, read June and decided on it; rita then corrected June to July."""
    run = session_of(world, world.trio.owner)
    read(world, run, world.june)
    launch = decide(world, run, "Launch in June", world.june)
    correct(world, world.june, "The launch is in July.", "key-1")
    return launch


class ReliedOnTests:
    def test_the_agent_is_told_to_use_the_replacement_and_to_recheck_its_decision(
        self, world: World, cited: str
    ) -> None:
        replacement = str(CorrectionIntent.objects.get().replacement_claim_id)
        answer = feed(world, world.trio.owner)
        assert answer.status_code == 200, answer.content
        body = answer.json()
        assert body["count"] == 2 and body["next"] is None and body["resume"]
        claim, decision = body["results"]
        assert (claim["kind"], claim["id"], claim["from_status"], claim["to_status"]) == (
            "claim", world.june, "current", "superseded"
        )  # fmt: skip
        assert claim["cause"]["kind"] == "correction" and claim["actor"] == "rita"
        assert claim["next_step"] == {
            "do": "use_claim", "claim_id": replacement, "statement": "The launch is in July.",
            "text": "It was corrected: cite the claim that replaced it instead, “The launch is in July.”.",
        }  # fmt: skip
        assert (decision["kind"], decision["id"], decision["to_status"]) == ("decision", cited, "needs_review")
        step = decision["next_step"]
        assert (step["do"], step["decision_id"], step["title"]) == ("recheck_decision", cited, "Launch in June")
        assert "re-check “Launch in June”" in step["text"]

    def test_another_users_feed_does_not_name_them(self, world: World, cited: str) -> None:
        answer = feed(world, world.trio.viewer)
        assert answer.status_code == 200
        assert answer.json()["results"] == [] and answer.json()["count"] == 0 and answer.json()["resume"]

    def test_the_plain_list_of_changes_has_no_next_step(self, world: World, cited: str) -> None:
        body = api_for(world.trio.owner).get(f"/workspaces/{world.ws}/changes").json()
        assert body["count"] == 2 and all("next_step" not in change for change in body["results"])

    def test_a_non_member_is_not_found(self, world: World, cited: str) -> None:
        answer = feed(world, world.trio.outsider)
        assert answer.status_code == 404 and answer.json()["error"] == "not_found"

    def test_a_claim_only_retrieved_counts_and_a_claim_only_searched_does_not(self, world: World) -> None:
        run = session_of(world, world.trio.owner)
        read(world, run, world.ana)
        agents_services.mcp_record(
            workspace=world.trio.workspace, run=run, kind=TrajectoryEventKind.SEARCH, searched=[world.may]
        )
        correct(world, world.ana, "Bo owns the checklist.", "key-ana")
        correct(world, world.may, "Marketing starts in April.", "key-may")
        results = feed(world, world.trio.owner).json()["results"]
        assert [(c["id"], c["next_step"]["do"]) for c in results] == [(world.ana, "use_claim")]


class NextStepTests:
    def test_a_revised_decision_points_to_the_new_one_and_its_flag_to_the_later_change(
        self, world: World, cited: str
    ) -> None:
        replacement = str(CorrectionIntent.objects.get().replacement_claim_id)
        new = api_for(world.trio.reviewer).post(
            f"/workspaces/{world.ws}/decisions/{cited}/revise",
            {"title": "Launch in July", "justifications": [[replacement]], "actions": "move"},
        )
        assert new.status_code == 201, new.content
        steps = [(c["kind"], c["to_status"], c["next_step"]) for c in feed(world, world.trio.owner).json()["results"]]
        assert [(kind, status, step["do"]) for kind, status, step in steps] == [
            ("claim", "superseded", "use_claim"), ("decision", "needs_review", "see_later_change"),
            ("decision", "superseded", "use_decision"),
        ]  # fmt: skip
        assert (steps[2][2]["decision_id"], steps[2][2]["title"]) == (new.json()["id"], "Launch in July")

    def test_a_dismissed_decision_is_to_be_dropped(self, world: World, cited: str) -> None:
        review.decision_dismiss(workspace=world.trio.workspace, decision_id=cited, actor=world.trio.reviewer)
        results = feed(world, world.trio.owner).json()["results"]
        assert [c["next_step"]["do"] for c in results] == ["use_claim", "see_later_change", "drop_decision"]
        assert results[2]["next_step"]["decision_id"] == cited

    def test_a_replacement_corrected_again_points_to_the_newest_and_a_retraction_to_stop(self, world: World) -> None:
        run = session_of(world, world.trio.owner)
        read(world, run, world.june, world.northwind)
        decide(world, run, "Launch in June", world.june)
        decide(world, run, "Northwind expects June", world.northwind)
        july = correct(world, world.june, "The launch is in July.", "key-1")
        august = correct(world, july, "The launch is in August.", "key-2")
        email = claims_services.claim_required(world.trio.workspace, world.northwind).source_id
        retracted = api_for(world.trio.reviewer).post(f"/workspaces/{world.ws}/sources/{email}/retract")
        assert retracted.status_code == 200, retracted.content
        steps = {
            c["id"]: c["next_step"] for c in feed(world, world.trio.owner).json()["results"] if c["kind"] == "claim"
        }
        assert (steps[world.june]["do"], steps[world.june]["claim_id"]) == ("use_claim", august)
        assert steps[world.june]["statement"] == "The launch is in August."
        assert steps[world.northwind]["do"] == "stop_citing" and "retracted" in steps[world.northwind]["text"]
        # July was rita's correction, not olivia's: olivia is not told of it; rita made it, so she is.
        assert july not in steps
        rita = {c["id"]: c["next_step"]["do"] for c in feed(world, world.trio.reviewer).json()["results"]}
        assert rita[july] == "use_claim"


class CursorTests:
    def test_a_change_is_listed_once_it_has_settled_and_a_resume_waits_for_it(
        self, world: World, cited: str, settings: Any
    ) -> None:
        owner = world.trio.owner
        settings.AFTERHACK_CHANGES_SETTLE_SECONDS = 3600.0  # every change here is younger than that
        young = feed(world, owner).json()
        assert (young["results"], young["count"], young["next"]) == ([], 0, None)
        settings.AFTERHACK_CHANGES_SETTLE_SECONDS = 0.0
        # The position it gave did not pass them: from it, both changes come once they have settled.
        assert feed(world, owner, since=young["resume"]).json()["count"] == 2

    def test_two_pages_then_a_resume_gives_each_change_once(self, world: World, cited: str) -> None:
        owner = world.trio.owner
        everything = feed(world, owner).json()["results"]
        first = feed(world, owner, limit="1").json()
        assert first["count"] == 2 and len(first["results"]) == 1
        second = feed(world, owner, limit="1", since=first["next"]).json()
        assert second["count"] == 1 and len(second["results"]) == 1
        # The last page: no `next` (a pager that follows it stops), and `resume` for the next session.
        assert second["next"] is None and second["resume"] and first["resume"]
        assert first["results"] + second["results"] == everything
        # `cursor` is read as `since`, as a generic pager sends it.
        assert feed(world, owner, limit="1", cursor=first["next"]).json()["results"] == second["results"]
        # Nothing new since: an empty page that still says where to go on from.
        third = feed(world, owner, limit="1", since=second["resume"]).json()
        assert third["results"] == [] and third["count"] == 0 and third["next"] is None
        assert feed(world, owner, since=third["resume"]).json()["results"] == []
        # Something new: exactly it, and the page after it is empty again.
        review.decision_dismiss(workspace=world.trio.workspace, decision_id=cited, actor=world.trio.reviewer)
        fourth = feed(world, owner, since=third["resume"]).json()
        assert [(c["id"], c["cause"]["kind"]) for c in fourth["results"]] == [(cited, "dismissal")]
        assert feed(world, owner, since=fourth["resume"]).json()["results"] == []

    def test_from_starts_at_a_moment_and_after_now_holds_nothing(self, world: World, cited: str) -> None:
        assert feed(world, world.trio.owner, **{"from": "2000-01-01"}).json()["count"] == 2
        assert feed(world, world.trio.owner, **{"from": "2999-01-01"}).json()["count"] == 0

    @pytest.mark.parametrize(
        ("params", "words"),
        [
            ({"since": "not-a-cursor"}, "“since” must be the `next` or `resume` of an earlier answer"),
            ({"cited_by": "you"}, "“cited_by” can only be “me”"),
            ({"to": "2999-01-01"}, "leave out “to”"),
            ({"since": "x" * 1001}, "“since” must be the `next` or `resume` value"),
        ],
    )
    def test_bad_input_is_refused_in_words(self, world: World, params: dict[str, str], words: str) -> None:
        answer = feed(world, world.trio.owner, **params)
        assert answer.status_code == 422 and answer.json()["error"] == "invalid_input"
        assert words in answer.json()["detail"]

    def test_a_cursor_of_another_person_or_list_is_refused(self, world: World, cited: str) -> None:
        others = feed(world, world.trio.viewer).json()["resume"]
        answer = feed(world, world.trio.owner, since=others)
        assert answer.status_code == 422 and "for you" in answer.json()["detail"]
        plain = api_for(world.trio.owner).get(f"/workspaces/{world.ws}/changes?limit=1").json()["next"]
        assert feed(world, world.trio.owner, since=plain).status_code == 422
        both = feed(world, world.trio.owner, since=others, **{"from": "2000-01-01"})
        assert both.status_code == 422 and "not both" in both.json()["detail"]
        alone = api_for(world.trio.owner).get(f"/workspaces/{world.ws}/changes?since={others}")
        assert alone.status_code == 422 and "cited_by=me" in alone.json()["detail"]


class BuiltInAgentTests:
    def test_a_run_of_the_built_in_agent_counts_as_the_asker_s(
        self, world: World, no_llm: None, django_capture_on_commit_callbacks: Callable[..., Any]
    ) -> None:
        client = api_for(world.trio.owner)
        with django_capture_on_commit_callbacks(execute=True):
            asked = client.post(f"/workspaces/{world.ws}/ask", {"question": "When is the launch?"})
        assert asked.status_code == 202, asked.content
        run = client.get(f"/workspaces/{world.ws}/runs/{asked.json()['run_id']}").json()
        assert run["status"] == "done" and world.june in run["retrieved_claim_ids"], run
        decision = run["decision"]
        assert decision["status"] == "supported" and [world.june] in decision["justifications"]
        correct(world, world.june, "The launch is in July.", "key-1")
        results = feed(world, world.trio.owner).json()["results"]
        # Its other justifications hold: the decision stands, only the claim changed.
        assert [(c["id"], c["next_step"]["do"]) for c in results] == [(world.june, "use_claim")]
        for key, claim_id in enumerate(
            sorted({i for group in decision["justifications"] for i in group} - {world.june})
        ):
            correct(world, claim_id, "The launch is in July, they say.", f"key-{key + 2}")
        steps = {c["id"]: c["next_step"]["do"] for c in feed(world, world.trio.owner).json()["results"]}
        assert steps[decision["id"]] == "recheck_decision" and len(steps) == 1 + len(decision["justifications"])
