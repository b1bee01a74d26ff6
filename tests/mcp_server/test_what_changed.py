"""what_changed over the real MCP transport (streamable HTTP, the official SDK's client): rita's agent cites June in
one session, olivia corrects June to July, and rita's next session is told to cite July and to re-check its
decision — then nothing more until something else changes."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import anyio

from tests.conftest import api_for
from tests.mcp_server.conftest import Launch, http_agent


def correct(launch: Launch, claim_id: str, statement: str) -> str:
    """Olivia (an admin) corrects the claim through the API; returns the replacement's id."""
    client = api_for(launch.trio.owner)
    path = f"/workspaces/{launch.ws}/claims/{claim_id}"
    revision = client.post(path + "/correction-preview", {"statement": statement}).json()["revision"]
    body = {"statement": statement, "reason": "The board moved it.", "revision": revision, "idempotency_key": "k1"}
    applied = client.post(path + "/corrections", body)
    assert applied.status_code == 201, applied.content
    return str(applied.json()["replacement_claim_id"])


def decided_on_june(launch: Launch, mcp_url: str) -> str:
    """Rita's agent finds and reads June, and records its decision on it, in one session."""
    agent = http_agent(mcp_url, launch.tokens["reviewer"])
    agent.call("search_claims", workspace_id=launch.ws, query="launch June")
    agent.call("get_fragment", workspace_id=launch.ws, claim_id=launch.june)
    made = agent.call("record_decision", workspace_id=launch.ws, title="Launch in June", justifications=[[launch.june]])
    assert not made.is_error and made["status"] == "supported", made.body
    return str(made["decision_id"])


class WhatChangedTests:
    def test_the_next_session_is_told_to_use_july_and_recheck_then_resumes(self, launch: Launch, mcp_url: str) -> None:
        decision = decided_on_june(launch, mcp_url)
        july = correct(launch, launch.june, "The product launch is in July.")
        agent = http_agent(mcp_url, launch.tokens["reviewer"])  # a new session
        told = agent.call("what_changed", workspace_id=launch.ws)
        assert not told.is_error, told.body
        assert set(told.body) == {"results", "next", "count", "resume", "session"} and told["count"] == 2
        claim, flagged = told["results"]
        assert (claim["id"], claim["to_status"], claim["next_step"]["do"]) == (launch.june, "superseded", "use_claim")
        assert (claim["next_step"]["claim_id"], claim["next_step"]["statement"]) == (
            july, "The product launch is in July."
        )  # fmt: skip
        assert (flagged["id"], flagged["next_step"]["do"]) == (decision, "recheck_decision")
        assert flagged["next_step"]["decision_id"] == decision and "re-check" in flagged["next_step"]["text"]
        # The same as the API answers.
        api = api_for(launch.trio.reviewer).get(f"/workspaces/{launch.ws}/changes?cited_by=me").json()
        assert api["results"] == told["results"]
        # Two pages, then nothing new: each change once.
        first = agent.call("what_changed", workspace_id=launch.ws, limit=1)
        second = agent.call("what_changed", workspace_id=launch.ws, limit=1, since=first["next"])
        assert first["results"] + second["results"] == told["results"]
        assert second["next"] is None and second["resume"]
        again = agent.call("what_changed", workspace_id=launch.ws, since=second["resume"])
        assert (again["results"], again["count"]) == ([], 0) and again["next"] is None and again["resume"]

    def test_others_are_not_told_and_outsiders_not_answered(self, launch: Launch, mcp_url: str) -> None:
        decided_on_june(launch, mcp_url)
        correct(launch, launch.june, "The product launch is in July.")
        viewer = http_agent(mcp_url, launch.tokens["viewer"]).call("what_changed", workspace_id=launch.ws)
        assert not viewer.is_error and (viewer["results"], viewer["count"]) == ([], 0)
        outsider = http_agent(mcp_url, launch.tokens["outsider"]).call("what_changed", workspace_id=launch.ws)
        assert outsider.is_error and outsider["error"] == "not_found"

    def test_a_bad_since_is_refused_in_words(self, launch: Launch, mcp_url: str) -> None:
        agent = http_agent(mcp_url, launch.tokens["reviewer"])
        refused = agent.call("what_changed", workspace_id=launch.ws, since="yesterday")
        assert refused.is_error and refused["error"] == "invalid_input"
        assert "“since” must be the `next` or `resume` of an earlier answer" in refused["detail"]
        limited = agent.call("what_changed", workspace_id=launch.ws, limit=0)
        assert limited.is_error and "“limit” must be a whole number from 1 to 200." in limited["detail"]

    def test_its_description_says_to_call_it_at_the_start_of_each_session(self, launch: Launch, mcp_url: str) -> None:
        agent = http_agent(mcp_url, launch.tokens["viewer"])

        async def listing() -> Any:
            async with agent.connect() as client:
                return await client.list_tools(), client.instructions

        with ThreadPoolExecutor(max_workers=1) as thread:
            tools, instructions = thread.submit(anyio.run, listing).result()
        tool = next(tool for tool in tools.tools if tool.name == "what_changed")
        assert tool.description.startswith("Call this at the start of each session")
        assert set(tool.input_schema["properties"]) == {"workspace_id", "since", "limit", "session"}
        assert "Start each session by asking what_changed" in (instructions or "")
