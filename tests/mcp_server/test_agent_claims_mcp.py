"""MCP's `propose_claim` where the workspace asks for approval of agents' claims (a live server on the real stores):
the claim is created `proposed`, the agent is told so, it can find and read it but never cite it (dropped in
words), until a reviewer approves it; with the setting off, nothing changes from before."""

from __future__ import annotations

from typing import Any

from tests.conftest import ApiClient, client_for
from tests.mcp_server.conftest import Agent, Launch, http_agent, launch, mcp_url
from workspaces.models import Workspace

__all__ = ["launch", "mcp_url"]  # fixtures

UPDATE = "Update from Ana, Tuesday: The product launch is in July."
QUOTE = "The product launch is in July."


def propose(launch: Launch, mcp_url: str) -> tuple[Agent, dict[str, Any]]:
    agent = http_agent(mcp_url, launch.tokens["reviewer"])
    added = agent.call("add_source", workspace_id=launch.ws, title="Update", text=UPDATE)
    proposed = agent.call("propose_claim", workspace_id=launch.ws, source_id=added["source_id"],
                          statement=QUOTE, evidence_quote=QUOTE)  # fmt: skip
    return agent, proposed.body


class McpApprovalTests:
    def test_off_the_claim_is_current_as_before(self, launch: Launch, mcp_url: str) -> None:
        _, proposed = propose(launch, mcp_url)
        assert proposed["status"] == "created" and proposed["claim_status"] == "current" and "note" not in proposed
        # Said to be an agent's, not a reviewer's, over the API and on its page.
        claim = ApiClient(launch.tokens["viewer"]).get(f"/workspaces/{launch.ws}/claims/{proposed['claim_id']}").json()
        assert claim["extractor"] == "agent"
        page = client_for(launch.trio.viewer).get(f"/w/{launch.ws}/claims/{proposed['claim_id']}/").content.decode()
        assert "by an agent" in page and "by a reviewer" not in page

    def test_on_it_waits_is_never_cited_and_is_cited_once_approved(self, launch: Launch, mcp_url: str) -> None:
        Workspace.objects.filter(pk=launch.trio.workspace.pk).update(agent_claims_need_approval=True)
        agent, proposed = propose(launch, mcp_url)
        assert proposed["status"] == "created" and proposed["claim_status"] == "proposed"
        assert "approved" in str(proposed["note"])
        claim_id = proposed["claim_id"]
        found = agent.call("search_claims", workspace_id=launch.ws, query="launch July")
        assert {"claim_id": claim_id, "status": "proposed"}.items() <= next(
            r for r in found["results"] if r["claim_id"] == claim_id
        ).items()
        agent.call("get_fragment", workspace_id=launch.ws, claim_id=claim_id)
        refused = agent.call(
            "record_decision", workspace_id=launch.ws, title="Party in July", justifications=[[claim_id]]
        )
        assert refused["kept"] == [] and refused["status"] == "needs_review"
        [dropped] = refused["dropped"]
        assert dropped["claim_id"] == claim_id and "not approved" in dropped["why"]
        # Another reviewer approves it: the agent held rita's token, and nobody approves what they proposed.
        reviewer = ApiClient(launch.tokens["owner"])
        [waiting] = reviewer.get(f"/workspaces/{launch.ws}/suggestions?kind=agent_claim").json()["results"]
        assert waiting["claim_id"] == claim_id and waiting["found_by"] == "agent"
        assert reviewer.post(f"/workspaces/{launch.ws}/suggestions/{waiting['id']}/approve", {}).status_code == 200
        cited = agent.call(
            "record_decision", workspace_id=launch.ws, title="Party in July", justifications=[[claim_id]]
        )
        assert cited["kept"] == [[claim_id]] and cited["status"] == "supported"
