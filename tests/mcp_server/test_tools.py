"""The MCP tools through the official SDK client over streamable HTTP, against the app served by a real server."""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import anyio

from agents.coordinator import NO_ANSWER_TITLE
from claims.services import claims as claims_services
from claims.services import sources as sources_services
from tests.conftest import api_for
from tests.mcp_server.conftest import PLAN, Agent, Launch, http_agent
from workspaces.models import Role
from workspaces.services import memberships as membership_services
from workspaces.services import workspaces as workspace_services


def api_error(response: Any) -> dict[str, str]:
    body = response.json()
    return {"error": body["error"], "detail": body["detail"]}


@dataclass(frozen=True)
class Other:
    """A second workspace with the same plan (its own claims), where rita is a reviewer too."""

    ws: str
    budget: str


def second_workspace(launch: Launch) -> Other:
    trio = launch.trio
    workspace = workspace_services.workspace_create(name="Second", creator=trio.owner)
    membership_services.member_add(workspace=workspace, username="rita", role=Role.REVIEWER, actor=trio.owner)
    source = sources_services.source_add(workspace=workspace, title="Launch plan", text=PLAN, actor=trio.owner)
    quote = "The launch budget is 40,000 EUR"
    budget = claims_services.claim_add(workspace=workspace, source_id=source.id, statement=quote + ".",
                                       evidence_quote=quote, actor=trio.owner)  # fmt: skip
    return Other(str(workspace.id), budget.id)


def budget_read(launch: Launch, mcp_url: str) -> Agent:
    """Rita's agent, having searched for the budget and retrieved its claim (it may cite it)."""
    agent = http_agent(mcp_url, launch.tokens["reviewer"])
    agent.call("search_claims", workspace_id=launch.ws, query="budget")
    agent.call("get_fragment", workspace_id=launch.ws, claim_id=launch.budget)
    return agent


class AgentLoopTests:
    def test_it_lists_exactly_the_issues_tools_each_asking_for_its_session_back(
        self, launch: Launch, mcp_url: str
    ) -> None:
        agent = http_agent(mcp_url, launch.tokens["viewer"])

        async def listing() -> Any:
            async with agent.connect() as client:
                return await client.list_tools()

        with ThreadPoolExecutor(max_workers=1) as thread:
            tools = thread.submit(anyio.run, listing).result().tools
        assert [tool.name for tool in tools] == [
            "list_workspaces", "what_changed", "search_claims", "get_fragment", "add_source", "propose_claim",
            "record_decision", "explain", "preview_correction", "flag_contradiction",
        ]  # fmt: skip
        assert all(tool.description.endswith("Pass back the `session` this result gives you with every later call.")
                   for tool in tools)  # fmt: skip
        assert all("session" in tool.input_schema["properties"] for tool in tools)
        assert "apply" not in " ".join(tool.name for tool in tools)

    def test_it_runs_the_whole_agent_loop_in_one_session(self, launch: Launch, mcp_url: str) -> None:
        agent = http_agent(mcp_url, launch.tokens["reviewer"])
        listed = agent.call("list_workspaces")
        assert listed["results"] == [{"id": launch.ws, "name": "Launch planning", "role": "reviewer"}]
        session = agent.session
        assert session and session.startswith("ahmcp_")

        added = agent.call("add_source", workspace_id=launch.ws, title="Board notes", text="The board met on Monday.")
        assert set(added.body) == {"source_id", "version", "length", "session"}
        assert (added["version"], added["length"]) == (1, 24)
        created = agent.call(
            "propose_claim", workspace_id=launch.ws, source_id=added["source_id"], statement="The board met.",
            evidence_quote="The board met on Monday",
        )  # fmt: skip
        assert created["status"] == "created"
        rejected = agent.call(
            "propose_claim", workspace_id=launch.ws, source_id=added["source_id"], statement="The board met twice.",
            evidence_quote="The board met on Tuesday",
        )  # fmt: skip
        assert set(rejected.body) == {"status", "reason", "code", "session"}
        assert (rejected["status"], rejected["code"]) == ("rejected", "not_found")
        assert rejected["reason"] == "The quote does not occur in the source text, character for character."

        found = agent.call("search_claims", workspace_id=launch.ws, query="launch", limit=2)
        assert len(found["results"]) == 2
        first = found["results"][0]
        assert set(first) == {"claim_id", "statement", "status", "source_title", "match"}
        assert first["source_title"] == "Launch plan" and first["status"] == "current"
        # No embeddings model here: the search is by words, as the API's is, and nothing is degraded.
        assert first["match"] == "lexical" and found["degraded"] is False
        june = agent.call("search_claims", workspace_id=launch.ws, query="When is the product launch?")
        assert [r["claim_id"] for r in june["results"]][:1] == [launch.june]

        fragment = agent.call("get_fragment", workspace_id=launch.ws, claim_id=launch.june)
        assert fragment["evidence_quote"] == "The product launch is in June"
        assert "The product launch is in June. Ana owns the launch checklist." in fragment["fragment_text"]
        assert (fragment["end"] - fragment["start"], fragment["status"]) == (29, "current")
        at = fragment["start"] - fragment["fragment_start"]
        assert fragment["fragment_text"][at : at + 29] == fragment["evidence_quote"]
        assert {k: fragment[k] for k in ("claim_id", "source_id", "source_title")} == {
            "claim_id": launch.june, "source_id": launch.source_id, "source_title": "Launch plan",
        }  # fmt: skip

        decided = agent.call(
            "record_decision", workspace_id=launch.ws, title="Launch in June", justifications=[[launch.june]],
            rationale="The plan says so.",
        )  # fmt: skip
        assert (decided["status"], decided["kept"], decided["dropped"]) == ("supported", [[launch.june]], [])
        assert {answer["session"] for answer in agent.seen} == {session}

        chain = agent.call("explain", workspace_id=launch.ws, id=launch.june)
        assert "Launch plan" in chain["text"] and "Launch in June" in chain["text"]
        assert [link["link"] for link in chain["chain"]][:3] == ["comes_from", "states", "supports"]
        because = agent.call("explain", workspace_id=launch.ws, id=decided["decision_id"])
        assert "The product launch is in June" in because["text"]

        preview = agent.call("preview_correction", workspace_id=launch.ws, claim_id=launch.june, statement="July.")
        api = api_for(launch.trio.reviewer).post(
            f"/workspaces/{launch.ws}/claims/{launch.june}/correction-preview", {"statement": "July."}
        )
        assert {k: v for k, v in preview.body.items() if k != "session"} == api.json()
        assert preview["affected"]["decisions_needing_review"] == [decided["decision_id"]]

    def test_the_decision_is_audited_and_shown_like_the_apis(self, launch: Launch, mcp_url: str) -> None:
        agent = budget_read(launch, mcp_url)
        decided = agent.call("record_decision", workspace_id=launch.ws, title="Budget is fine",
                             justifications=[[launch.budget]])  # fmt: skip
        from workspaces.models import AuditEvent

        audited = AuditEvent.objects.filter(workspace=launch.trio.workspace, verb="decision.created").get()
        assert (audited.actor_name, audited.payload["decision_id"]) == ("rita", decided["decision_id"])
        decision = api_for(launch.trio.viewer).get(f"/workspaces/{launch.ws}/decisions/{decided['decision_id']}").json()
        assert (decision["status"], decision["kind"], decision["justifications"]) == (
            "supported", "agent", [[launch.budget]],
        )  # fmt: skip


class RuleTwoTests:
    def test_a_claim_searched_but_not_retrieved_is_dropped(self, launch: Launch, mcp_url: str) -> None:
        agent = http_agent(mcp_url, launch.tokens["reviewer"])
        agent.call("search_claims", workspace_id=launch.ws, query="launch")
        agent.call("get_fragment", workspace_id=launch.ws, claim_id=launch.june)
        decided = agent.call("record_decision", workspace_id=launch.ws, title="June, Ana",
                             justifications=[[launch.june], [launch.ana]])  # fmt: skip
        assert decided["status"] == "supported"
        assert decided["kept"] == [[launch.june]]
        assert decided["dropped"] == [{"claim_id": launch.ana, "why": "not retrieved in this session"}]

    def test_a_claim_retrieved_but_not_searched_is_dropped(self, launch: Launch, mcp_url: str) -> None:
        agent = http_agent(mcp_url, launch.tokens["reviewer"])
        agent.call("get_fragment", workspace_id=launch.ws, claim_id=launch.berlin)
        decided = agent.call("record_decision", workspace_id=launch.ws, title="Where is the office?",
                             justifications=[[launch.berlin]])  # fmt: skip
        assert decided["dropped"] == [{"claim_id": launch.berlin, "why": "not searched in this session"}]
        assert (decided["status"], decided["kept"]) == ("needs_review", [])
        decision = api_for(launch.trio.viewer).get(f"/workspaces/{launch.ws}/decisions/{decided['decision_id']}").json()
        assert (decision["title"], decision["kind"], decision["question"]) == (
            NO_ANSWER_TITLE, "unanswered", "Where is the office?",
        )  # fmt: skip

    def test_a_claim_searched_in_another_session_is_dropped(self, launch: Launch, mcp_url: str) -> None:
        first, second = http_agent(mcp_url, launch.tokens["reviewer"]), http_agent(mcp_url, launch.tokens["reviewer"])
        first.call("search_claims", workspace_id=launch.ws, query="budget")
        first.call("get_fragment", workspace_id=launch.ws, claim_id=launch.budget)
        second.call("get_fragment", workspace_id=launch.ws, claim_id=launch.budget)
        assert first.session != second.session
        decided = second.call("record_decision", workspace_id=launch.ws, title="Budget",
                              justifications=[[launch.budget]])  # fmt: skip
        assert decided["dropped"] == [{"claim_id": launch.budget, "why": "not searched in this session"}]
        # The same citation stands in the session that did both.
        kept = first.call("record_decision", workspace_id=launch.ws, title="Budget",
                          justifications=[[launch.budget]])  # fmt: skip
        assert kept["kept"] == [[launch.budget]]

    def test_a_superseded_claim_is_dropped_with_its_justification(self, launch: Launch, mcp_url: str) -> None:
        from corrections.services import apply as apply_services
        from corrections.services import preview as preview_services

        agent = http_agent(mcp_url, launch.tokens["reviewer"])
        agent.call("search_claims", workspace_id=launch.ws, query="launch")
        for claim_id in (launch.june, launch.ana):
            agent.call("get_fragment", workspace_id=launch.ws, claim_id=claim_id)
        workspace, reviewer = launch.trio.workspace, launch.trio.reviewer
        plan = preview_services.preview(workspace=workspace, claim_id=launch.june, statement="July.")
        apply_services.apply(
            workspace=workspace, claim_id=launch.june, statement="July.", reason="Moved.", revision=plan.fingerprint,
            idempotency_key="mcp-superseded", actor=reviewer,
        )  # fmt: skip
        unknown = str(uuid.uuid4())
        decided = agent.call("record_decision", workspace_id=launch.ws, title="When is the launch?",
                             justifications=[[launch.june, launch.ana], [unknown]])  # fmt: skip
        assert decided["status"] == "needs_review" and decided["kept"] == []
        assert decided["dropped"] == [
            {"claim_id": launch.june, "why": "no longer current (superseded)"},
            {"claim_id": launch.ana, "why": f"its justification lost {launch.june}"},
            {"claim_id": unknown, "why": "not a claim in this workspace"},
        ]

    def test_a_decision_cited_as_a_claim_is_dropped(self, launch: Launch, mcp_url: str) -> None:
        agent = budget_read(launch, mcp_url)
        first = agent.call("record_decision", workspace_id=launch.ws, title="Budget",
                           justifications=[[launch.budget]])  # fmt: skip
        on_top = agent.call("record_decision", workspace_id=launch.ws, title="On top",
                            justifications=[[first["decision_id"]], [launch.budget]])  # fmt: skip
        assert on_top["kept"] == [[launch.budget]]
        assert on_top["dropped"] == [{"claim_id": first["decision_id"], "why": "not a claim in this workspace"}]

    def test_another_workspaces_claim_is_dropped_and_the_split_across_workspaces_counts_for_neither(
        self, launch: Launch, mcp_url: str
    ) -> None:
        other = second_workspace(launch)
        agent = http_agent(mcp_url, launch.tokens["reviewer"])
        # Searched and retrieved in B, cited in A: not a claim of A.
        agent.call("search_claims", workspace_id=other.ws, query="budget")
        agent.call("get_fragment", workspace_id=other.ws, claim_id=other.budget)
        cited_in_a = agent.call("record_decision", workspace_id=launch.ws, title="Budget",
                                justifications=[[other.budget]])  # fmt: skip
        assert cited_in_a["dropped"] == [{"claim_id": other.budget, "why": "not a claim in this workspace"}]
        # Searched in B, retrieved in A (the reverse split): A's claim was never searched in A.
        agent.call("get_fragment", workspace_id=launch.ws, claim_id=launch.budget)
        split = agent.call("record_decision", workspace_id=launch.ws, title="Budget",
                           justifications=[[launch.budget]])  # fmt: skip
        assert split["dropped"] == [{"claim_id": launch.budget, "why": "not searched in this session"}]
        assert split["status"] == "needs_review"


class AccessTests:
    WRITES: list[tuple[str, dict[str, Any]]] = [
        ("add_source", {"title": "T", "text": "Some text."}),
        ("propose_claim", {"source_id": "{source}", "statement": "S.", "evidence_quote": "The launch budget"}),
        ("record_decision", {"title": "T", "justifications": [["{claim}"]]}),
        ("preview_correction", {"claim_id": "{claim}", "statement": "July."}),
        (
            "flag_contradiction",
            {"claim_id": "{claim}", "source_id": "{source}", "quote": "The launch budget", "statement": "July."},
        ),
    ]

    def test_a_viewer_reads_but_every_write_is_refused_like_the_api(self, launch: Launch, mcp_url: str) -> None:
        agent = http_agent(mcp_url, launch.tokens["viewer"])
        assert agent.call("search_claims", workspace_id=launch.ws, query="budget")["results"]
        assert agent.call("get_fragment", workspace_id=launch.ws, claim_id=launch.budget)["claim_id"] == launch.budget
        api = api_error(
            api_for(launch.trio.viewer).post(f"/workspaces/{launch.ws}/sources", {"title": "T", "text": "x"})
        )
        assert api == {"error": "forbidden", "detail": "Viewers can read this workspace but not change it."}
        for tool, arguments in self.WRITES:
            filled = {k: fill(v, launch) for k, v in arguments.items()}
            refused = agent.call(tool, workspace_id=launch.ws, **filled)
            assert refused.is_error, tool
            assert {k: refused[k] for k in ("error", "detail")} == api, tool
        assert api_for(launch.trio.viewer).get(f"/workspaces/{launch.ws}/sources").json()["count"] == 1

    def test_a_viewers_reads_are_not_recorded(self, launch: Launch, mcp_url: str) -> None:
        agent = http_agent(mcp_url, launch.tokens["viewer"])
        assert agent.call("search_claims", workspace_id=launch.ws, query="budget")["results"]
        assert not agent.call("get_fragment", workspace_id=launch.ws, claim_id=launch.budget).is_error
        api = api_for(launch.trio.owner)
        assert api.get(f"/workspaces/{launch.ws}/runs").json()["count"] == 0

    def test_another_workspaces_ids_are_refused_like_the_api_by_the_writes(self, launch: Launch, mcp_url: str) -> None:
        other = second_workspace(launch)
        agent = http_agent(mcp_url, launch.tokens["reviewer"])
        api = api_for(launch.trio.reviewer)
        cases = {
            "propose_claim": (
                agent.call("propose_claim", workspace_id=other.ws, source_id=launch.source_id, statement="S.",
                           evidence_quote="The launch budget"),
                api.post(f"/workspaces/{other.ws}/claims", {"source_id": launch.source_id, "statement": "S.",
                                                              "evidence_quote": "The launch budget"}),
            ),
            "preview_correction": (
                agent.call("preview_correction", workspace_id=other.ws, claim_id=launch.budget, statement="July."),
                api.post(f"/workspaces/{other.ws}/claims/{launch.budget}/correction-preview", {"statement": "July."}),
            ),
        }  # fmt: skip
        for tool, (refused, answered) in cases.items():
            assert refused.is_error, tool
            assert {k: refused[k] for k in ("error", "detail")} == api_error(answered), tool
        explained = agent.call("explain", workspace_id=other.ws, id=launch.budget)
        assert (explained.is_error, explained["error"]) == (True, "not_found")
        decided = agent.call("record_decision", workspace_id=other.ws, title="T", justifications=[[launch.budget]])
        assert decided["dropped"] == [{"claim_id": launch.budget, "why": "not a claim in this workspace"}]

    def test_another_workspaces_ids_are_refused_like_the_api(self, launch: Launch, mcp_url: str) -> None:
        outsider = http_agent(mcp_url, launch.tokens["outsider"])
        refused = outsider.call("search_claims", workspace_id=launch.ws, query="launch")
        api = api_error(api_for(launch.trio.outsider).get(f"/workspaces/{launch.ws}/claims?q=launch"))
        assert refused.is_error and {k: refused[k] for k in ("error", "detail")} == api
        assert api == {"error": "not_found", "detail": "No such workspace."}

        from workspaces.services import workspaces as workspace_services

        own = workspace_services.workspace_create(name="Oscar's", creator=launch.trio.outsider)
        elsewhere = outsider.call("get_fragment", workspace_id=str(own.id), claim_id=launch.june)
        api = api_error(api_for(launch.trio.outsider).get(f"/workspaces/{own.id}/claims/{launch.june}"))
        assert {k: elsewhere[k] for k in ("error", "detail")} == api == {
            "error": "not_found", "detail": "No such claim in this workspace.",
        }  # fmt: skip


def fill(value: Any, launch: Launch) -> Any:
    if isinstance(value, list):
        return [fill(v, launch) for v in value]
    if isinstance(value, str):
        return value.replace("{source}", launch.source_id).replace("{claim}", launch.budget)
    return value
