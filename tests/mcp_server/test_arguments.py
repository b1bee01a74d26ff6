"""The MCP tools' arguments refused in the API's words (a missing one by its name, true or false where a number
goes, control characters in what would be stored), and /mcp's 401 challenge, the API's."""

from __future__ import annotations

import httpx2

from tests.conftest import api_for
from tests.mcp_server.conftest import Launch, http_agent


class MissingArgumentTests:
    def test_a_missing_query_is_named_like_any_other_missing_argument(self, launch: Launch, mcp_url: str) -> None:
        agent = http_agent(mcp_url, launch.tokens["reviewer"])
        missing_query = agent.call("search_claims", workspace_id=launch.ws)
        missing_workspace = agent.call("search_claims", query="launch")
        assert (missing_query.is_error, missing_query["error"]) == (True, "invalid_input")
        assert missing_query["detail"] == "'query' is required."
        assert missing_workspace["detail"] == "'workspace_id' is required."


class NumberTests:
    def test_true_and_false_are_not_numbers(self, launch: Launch, mcp_url: str) -> None:
        agent = http_agent(mcp_url, launch.tokens["reviewer"])
        for value in (True, False):
            refused = agent.call("search_claims", workspace_id=launch.ws, query="launch", limit=value)
            assert (refused.is_error, refused["error"]) == (True, "invalid_input")
            assert refused["detail"] == "“limit” must be a whole number from 1 to 200."
        quote = "The product launch is in June"
        proposed = agent.call("propose_claim", workspace_id=launch.ws, source_id=launch.source_id,
                              statement="Launch in June.", evidence_quote=quote, start=True)  # fmt: skip
        assert proposed.is_error and "“start” must be a whole number" in proposed["detail"]
        # A number is still a number, sent as one or as text.
        assert len(agent.call("search_claims", workspace_id=launch.ws, query="launch", limit=1)["results"]) == 1
        assert len(agent.call("search_claims", workspace_id=launch.ws, query="launch", limit="2")["results"]) == 2


class ControlCharacterTests:
    def test_control_characters_in_what_a_tool_would_store_are_refused_in_words(
        self, launch: Launch, mcp_url: str
    ) -> None:
        agent = http_agent(mcp_url, launch.tokens["reviewer"])
        ws = launch.ws
        refusals = {
            "title": agent.call("add_source", workspace_id=ws, title="Notes \x1b[31mred", text="The board met."),
            "text": agent.call("add_source", workspace_id=ws, title="Notes", text="The board\nmet\x07 on Monday."),
            "statement": agent.call("propose_claim", workspace_id=ws, source_id=launch.source_id,
                                    statement="Launch\x7f in June.", evidence_quote="The product launch is in June"),
            "decision": agent.call("record_decision", workspace_id=ws, title="Go\x9b ahead",
                                   justifications=[[launch.june]]),
            "correction": agent.call("preview_correction", workspace_id=ws, claim_id=launch.june,
                                     statement="The launch is in\x08 July."),
        }  # fmt: skip
        assert all(answer.is_error for answer in refusals.values()), refusals
        details = {name: answer["detail"] for name, answer in refusals.items()}
        assert details == {
            "title": "A title cannot contain control characters other than tab and line breaks: U+001B (escape) at "
            "character 7.",
            "text": "The text cannot contain control characters other than tab and line breaks: U+0007 (bell) on line "
            "2, column 4.",
            "statement": "A statement cannot contain control characters other than tab and line breaks: U+007F "
            "(delete) at character 7.",
            "decision": "A title cannot contain control characters other than tab and line breaks: U+009B (control "
            "sequence introducer) at character 3.",
            "correction": "A statement cannot contain control characters other than tab and line breaks: U+0008 "
            "(backspace) at character 17.",
        }
        assert refusals["title"]["error"] == refusals["text"]["error"] == "invalid_source"
        # Nothing was written: the plan is still the only source, and no decision was made.
        api = api_for(launch.trio.viewer)
        assert api.get(f"/workspaces/{ws}/sources").json()["count"] == 1
        assert api.get(f"/workspaces/{ws}/decisions").json()["count"] == 0


class ChallengeTests:
    def test_a_refused_token_is_told_so_in_the_challenge_like_the_api(self, launch: Launch, mcp_url: str) -> None:
        call = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
        challenges = {
            header: httpx2.post(mcp_url, json=call, headers={"Authorization": header} if header else {})
            for header in ("", "Basic x", "Bearer made-up")
        }
        assert {header: answer.status_code for header, answer in challenges.items()} == dict.fromkeys(challenges, 401)
        assert {header: answer.headers["WWW-Authenticate"] for header, answer in challenges.items()} == {
            "": "Bearer", "Basic x": "Bearer", "Bearer made-up": 'Bearer error="invalid_token"',
        }  # fmt: skip
