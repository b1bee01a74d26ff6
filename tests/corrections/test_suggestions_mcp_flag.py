"""MCP `flag_contradiction` (a live server on the real stores): an outside agent flags that a passage contradicts a
current claim, with its exact quote; it lands as an open suggestion found by the agent, linked to the session's run
(its trajectory shows the step); a paraphrase, a superseded claim and another workspace's claim are refused in the
API's words, storing nothing."""

from __future__ import annotations

from typing import Any

from afterhack import graph
from tests.conftest import ApiClient, api_for, client_for
from tests.mcp_server.conftest import Launch, http_agent, launch, mcp_url
from tests.mcp_server.test_tools import api_error, second_workspace
from workspaces.models import AuditEvent

__all__ = ["launch", "mcp_url"]  # fixtures

EMAIL = "From Ana, Tuesday: the launch moved to July, the venue is unchanged."
QUOTE = "the launch moved to July"
JULY = "The product launch is in July."


def stored(launch: Launch) -> int:
    return int(graph.ro_query(launch.trio.workspace, "MATCH (x:Suggestion) RETURN count(x)")[0][0])


def email(agent: Any, launch: Launch) -> str:
    return str(agent.call("add_source", workspace_id=launch.ws, title="Email", text=EMAIL)["source_id"])


class FlagTests:
    def test_an_agents_flag_is_an_open_suggestion_found_by_the_agent_and_linked_to_its_run(
        self, launch: Launch, mcp_url: str
    ) -> None:
        agent = http_agent(mcp_url, launch.tokens["reviewer"])
        source_id = email(agent, launch)
        flagged = agent.call("flag_contradiction", workspace_id=launch.ws, claim_id=launch.june, source_id=source_id,
                             quote=QUOTE, statement=JULY)  # fmt: skip
        assert not flagged.is_error, flagged.body
        start = EMAIL.index(QUOTE)
        assert {k: flagged[k] for k in ("status", "created", "claim_id", "found_by")} == {
            "status": "open", "created": True, "claim_id": launch.june, "found_by": "agent",
        }  # fmt: skip
        viewer = ApiClient(launch.tokens["viewer"])
        [suggestion] = viewer.get(f"/workspaces/{launch.ws}/suggestions").json()["results"]
        # The tool answers the suggestion as the API does (its flag and its list), and whether this call stored it.
        assert {key: value for key, value in flagged.body.items() if key not in ("created", "session")} == suggestion
        assert suggestion["found_by"] == "agent"
        assert suggestion["statement"] == JULY and suggestion["by_claim_id"] is None
        assert suggestion["evidence"] == {"source_id": source_id, "quote": QUOTE, "start": start,
                                          "end": start + len(QUOTE)}  # fmt: skip
        # Linked to the session's run: the suggestion names it, and the run's trajectory has the step.
        [[run_id]] = graph.ro_query(launch.trio.workspace, "MATCH (x:Suggestion) RETURN x.run_id")
        assert run_id == flagged["run_id"] == suggestion["run_id"]  # and the API names it
        run = viewer.get(f"/workspaces/{launch.ws}/runs/{run_id}").json()
        steps = [event for event in run["trajectory"] if event["kind"] == "contradiction_flagged"]
        assert [(s["suggestion_id"], s["claim_id"], s["quote"]) for s in steps] == [(flagged["id"], launch.june, QUOTE)]
        page = client_for(launch.trio.viewer).get(f"/w/{launch.ws}/runs/{run_id}/")
        assert page.status_code == 200 and "Flagged a contradiction" in page.content.decode()
        assert "The product launch is in June." in page.content.decode()
        # The same flag again answers the same suggestion; the audit names the agent's run.
        again = agent.call("flag_contradiction", workspace_id=launch.ws, claim_id=launch.june, source_id=source_id,
                           quote=QUOTE, statement=JULY)  # fmt: skip
        assert (again["id"], again["created"]) == (flagged["id"], False)
        [event] = AuditEvent.objects.filter(verb="suggestion.flagged")
        assert event.payload["found_by"] == "agent" and event.payload["run_id"] == run_id
        assert stored(launch) == 1

    def test_a_paraphrase_a_superseded_claim_and_another_workspaces_claim_are_refused_as_the_api_refuses_them(
        self, launch: Launch, mcp_url: str
    ) -> None:
        agent = http_agent(mcp_url, launch.tokens["reviewer"])
        api = api_for(launch.trio.reviewer)
        source_id = email(agent, launch)

        def both(claim_id: str, quote: str, ws: str = launch.ws) -> tuple[Any, Any]:
            body = {"source_id": source_id, "quote": quote, "statement": JULY}
            return (
                agent.call("flag_contradiction", workspace_id=ws, claim_id=claim_id, **body),
                api.post(f"/workspaces/{ws}/claims/{claim_id}/contradictions", body),
            )

        paraphrase, answered = both(launch.june, "the launch was moved to July")
        assert paraphrase.is_error and answered.status_code == 422
        assert {k: paraphrase[k] for k in ("error", "detail")} == api_error(answered)
        assert paraphrase["error"] == "evidence_not_found" and "character for character" in paraphrase["detail"]

        other = second_workspace(launch)
        foreign, answered = both(other.budget, QUOTE)
        assert foreign.is_error and answered.status_code == 404 and foreign["error"] == "not_found"
        assert {k: foreign[k] for k in ("error", "detail")} == api_error(answered)

        preview = api.post(f"/workspaces/{launch.ws}/claims/{launch.june}/correction-preview", {"statement": JULY})
        applied = api.post(f"/workspaces/{launch.ws}/claims/{launch.june}/corrections",
                           {"statement": JULY, "reason": "It moved.", "revision": preview.json()["revision"],
                            "idempotency_key": "fix-june"})  # fmt: skip
        assert applied.status_code == 201, applied.content
        superseded, answered = both(launch.june, QUOTE)
        assert superseded.is_error and answered.status_code == 409 and superseded["error"] == "claim_not_current"
        assert {k: superseded[k] for k in ("error", "detail")} == api_error(answered)
        assert stored(launch) == 0 and not AuditEvent.objects.filter(verb="suggestion.flagged").exists()

    def test_a_viewer_cannot_flag(self, launch: Launch, mcp_url: str) -> None:
        agent = http_agent(mcp_url, launch.tokens["viewer"])
        refused = agent.call("flag_contradiction", workspace_id=launch.ws, claim_id=launch.june,
                             source_id=launch.source_id, quote="The launch budget", statement=JULY)  # fmt: skip
        assert refused.is_error and refused["error"] == "forbidden" and stored(launch) == 0
