"""The watch hears MCP's `propose_claim` too: an outside agent's claim that contradicts a current one suggests
correcting the older claim, citing the agent's exact quote (a live server on the real stores)."""

from __future__ import annotations

from tests.conftest import ApiClient
from tests.mcp_server.conftest import Launch, http_agent, launch, mcp_url

__all__ = ["launch", "mcp_url"]  # fixtures

UPDATE = "Update from Ana, Tuesday: The product launch is in July."


class McpWatchTests:
    def test_a_claim_proposed_over_mcp_is_watched(self, launch: Launch, mcp_url: str) -> None:
        agent = http_agent(mcp_url, launch.tokens["reviewer"])
        added = agent.call("add_source", workspace_id=launch.ws, title="Update", text=UPDATE)
        quote = "The product launch is in July."
        proposed = agent.call("propose_claim", workspace_id=launch.ws, source_id=added["source_id"],
                              statement=quote, evidence_quote=quote)  # fmt: skip
        assert proposed["status"] == "created", proposed.body
        listed = ApiClient(launch.tokens["viewer"]).get(f"/workspaces/{launch.ws}/suggestions").json()
        [suggestion] = listed["results"]
        assert suggestion["claim_id"] == launch.june and suggestion["by_claim_id"] == proposed["claim_id"]
        start = UPDATE.index(quote)
        assert suggestion["evidence"] == {
            "source_id": added["source_id"], "quote": quote, "start": start, "end": start + len(quote)
        }  # fmt: skip
        assert suggestion["found_by"] == "rule"
