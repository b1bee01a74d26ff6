"""Nobody decides what they proposed, on a live MCP server and the real stores: an agent holding a reviewer's token
proposes a claim (or flags a contradiction) over MCP; approving (or accepting) it over the API with that same
reviewer's token is refused (403, in words, nothing changed), in the service and in the graph write itself; another
reviewer approves (or accepts) it."""

from __future__ import annotations

from typing import Any

import pytest

from afterhack import graph
from corrections.graph import suggestions as suggestions_graph
from corrections.models import CorrectionIntent
from corrections.services import accept as accept_services
from tests.conftest import ApiClient
from tests.mcp_server.conftest import Launch, http_agent, launch, mcp_url
from workspaces.models import AuditEvent, Workspace

__all__ = ["launch", "mcp_url"]  # fixtures

UPDATE = "Update from Ana, Tuesday: The product launch is in July."
QUOTE = "The product launch is in July."
OWN_CLAIM = "You proposed this claim through an agent; another reviewer must approve it"
OWN_FLAG = "You flagged this contradiction (yourself or through an agent); another reviewer must accept it"


def counted(launch: Launch, cypher: str) -> int:
    return int(graph.ro_query(launch.trio.workspace, cypher)[0][0])


def claim_status(api: ApiClient, launch: Launch, claim_id: str) -> str:
    return str(api.get(f"/workspaces/{launch.ws}/claims/{claim_id}").json()["status"])


def only_suggestion(launch: Launch, kind: str) -> dict[str, Any]:
    viewer = ApiClient(launch.tokens["viewer"])
    [suggestion] = viewer.get(f"/workspaces/{launch.ws}/suggestions?kind={kind}").json()["results"]
    return dict(suggestion)


class ProposedClaimTests:
    def test_the_reviewer_whose_agent_proposed_it_cannot_approve_it_another_can(
        self, launch: Launch, mcp_url: str
    ) -> None:
        Workspace.objects.filter(pk=launch.trio.workspace.pk).update(agent_claims_need_approval=True)
        agent = http_agent(mcp_url, launch.tokens["reviewer"])
        added = agent.call("add_source", workspace_id=launch.ws, title="Update", text=UPDATE)
        proposed = agent.call("propose_claim", workspace_id=launch.ws, source_id=added["source_id"],
                              statement=QUOTE, evidence_quote=QUOTE)  # fmt: skip
        assert proposed["claim_status"] == "proposed", proposed.body
        waiting = only_suggestion(launch, "agent_claim")
        assert waiting["claim_id"] == proposed["claim_id"]
        rita, olivia = ApiClient(launch.tokens["reviewer"]), ApiClient(launch.tokens["owner"])
        revision = counted(launch, "MATCH (w:Workspace) RETURN w.revision")

        refused = rita.post(f"/workspaces/{launch.ws}/suggestions/{waiting['id']}/approve", {})
        assert refused.status_code == 403, refused.content
        assert refused.json()["error"] == "forbidden" and OWN_CLAIM in refused.json()["detail"]
        bulk = rita.post(f"/workspaces/{launch.ws}/suggestions/approve", {"ids": [waiting["id"]]})
        assert bulk.status_code == 200 and bulk.json()["decided"] == 0
        [result] = bulk.json()["results"]
        assert result["outcome"] == "own_proposal" and OWN_CLAIM in result["detail"]
        # Nothing changed: the claim waits, its suggestion is open, no event, the revision as it was.
        assert claim_status(rita, launch, proposed["claim_id"]) == "proposed"
        assert only_suggestion(launch, "agent_claim")["status"] == "open"
        assert not AuditEvent.objects.filter(verb="suggestion.approved").exists()
        assert counted(launch, "MATCH (w:Workspace) RETURN w.revision") == revision
        # The graph write itself passes over it for her, whatever a service checked before.
        assert not suggestions_graph.agent_claims_approve(
            workspace=launch.trio.workspace, suggestion_ids=[waiting["id"]], reason="", actor="rita", now="2026-01-01"
        )

        approved = olivia.post(f"/workspaces/{launch.ws}/suggestions/{waiting['id']}/approve", {})
        assert approved.status_code == 200, approved.content
        assert approved.json()["status"] == "accepted" and approved.json()["decided_by"] == "olivia"
        assert claim_status(rita, launch, proposed["claim_id"]) == "current"

    def test_she_can_still_reject_what_her_agent_proposed(self, launch: Launch, mcp_url: str) -> None:
        Workspace.objects.filter(pk=launch.trio.workspace.pk).update(agent_claims_need_approval=True)
        agent = http_agent(mcp_url, launch.tokens["reviewer"])
        added = agent.call("add_source", workspace_id=launch.ws, title="Update", text=UPDATE)
        proposed = agent.call("propose_claim", workspace_id=launch.ws, source_id=added["source_id"],
                              statement=QUOTE, evidence_quote=QUOTE)  # fmt: skip
        rita = ApiClient(launch.tokens["reviewer"])
        waiting = only_suggestion(launch, "agent_claim")
        rejected = rita.post(f"/workspaces/{launch.ws}/suggestions/{waiting['id']}/reject", {})
        assert rejected.status_code == 200 and claim_status(rita, launch, proposed["claim_id"]) == "rejected"


class FlagTests:
    def test_the_reviewer_whose_agent_flagged_it_cannot_accept_it_another_can(
        self, launch: Launch, mcp_url: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        agent = http_agent(mcp_url, launch.tokens["reviewer"])
        added = agent.call("add_source", workspace_id=launch.ws, title="Update", text=UPDATE)
        flagged = agent.call("flag_contradiction", workspace_id=launch.ws, claim_id=launch.june,
                             source_id=added["source_id"], quote=QUOTE, statement=QUOTE)  # fmt: skip
        assert not flagged.is_error, flagged.body
        flag = only_suggestion(launch, "contradiction")
        rita, olivia = ApiClient(launch.tokens["reviewer"]), ApiClient(launch.tokens["owner"])
        base = f"/workspaces/{launch.ws}"

        refused = rita.post(f"{base}/suggestions/{flag['id']}/preview", {})
        assert refused.status_code == 403 and refused.json()["error"] == "forbidden"
        assert OWN_FLAG in refused.json()["detail"]
        plan = olivia.post(f"{base}/suggestions/{flag['id']}/preview", {}).json()
        body = {"statement": QUOTE, "reason": "Ana's update.", "revision": plan["revision"], "idempotency_key": "own",
                "suggestion_id": flag["id"]}  # fmt: skip
        applied = rita.post(f"{base}/claims/{launch.june}/corrections", body)
        assert applied.status_code == 403 and OWN_FLAG in applied.json()["detail"], applied.content
        assert counted(launch, "MATCH (c:Correction) RETURN count(c)") == 0 and not CorrectionIntent.objects.exists()

        # Should her request pass the service's check (a race), the graph write refuses it, and she is told why.
        real = accept_services.require_open
        checks: list[str] = []

        def passed_once(*, workspace: Any, suggestion_id: str, by: str) -> None:
            checks.append(by)
            if len(checks) > 1:
                real(workspace=workspace, suggestion_id=suggestion_id, by=by)

        monkeypatch.setattr(accept_services, "require_open", passed_once)
        raced = rita.post(f"{base}/claims/{launch.june}/corrections", {**body, "idempotency_key": "raced"})
        assert raced.status_code == 403 and OWN_FLAG in raced.json()["detail"], raced.content
        assert checks == ["rita", "rita"]
        assert counted(launch, "MATCH (c:Correction) RETURN count(c)") == 0
        assert CorrectionIntent.objects.get().state == "refused"
        assert claim_status(rita, launch, launch.june) == "current" and only_suggestion(launch, "contradiction") == flag
        monkeypatch.undo()

        accepted = olivia.post(f"{base}/claims/{launch.june}/corrections", body)
        assert accepted.status_code == 201, accepted.content
        done = ApiClient(launch.tokens["viewer"]).get(f"{base}/suggestions/{flag['id']}").json()
        assert done["status"] == "accepted" and done["decided_by"] == "olivia"
