"""MCP sessions, tokens and malformed calls: over streamable HTTP (modern and handshake clients) and over stdio."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

import anyio
import httpx2
import pytest
from django.db import connection
from django.utils import timezone
from mcp.client.client import Client

from afterhack.errors import INTERNAL_ERROR
from agents.services import mcp as agents_services
from agents.statuses import TrajectoryEventKind
from mcp_server.models import McpSession
from tests.conftest import ApiClient, api_for, client_for
from tests.mcp_server.conftest import (
    ROOT,
    Answer,
    Launch,
    answer_of,
    http_agent,
    stdio_agent,
    stdio_parameters,
    store_env,
)
from workspaces.services import tokens as token_services


def checked_out() -> int:
    """How many of this process's pooled PostgreSQL connections are out of the pool now."""
    stats = connection.pool.get_stats()  # type: ignore[attr-defined]  # PostgreSQL backends with a pool have it
    return int(stats["pool_size"] - stats["pool_available"])


class MalformedCallTests:
    def test_bad_arguments_are_errors_in_words_and_the_session_goes_on(self, launch: Launch, mcp_url: str) -> None:
        agent = http_agent(mcp_url, launch.tokens["reviewer"])
        agent.call("search_claims", workspace_id=launch.ws, query="launch")
        session = agent.session
        refusals = {
            "missing": agent.call("search_claims", query="launch"),
            "wrong type": agent.call("search_claims", workspace_id=launch.ws, query="launch", limit="lots"),
            "out of range": agent.call("search_claims", workspace_id=launch.ws, query="launch", limit=0),
            "junk workspace": agent.call("search_claims", workspace_id="../../etc/passwd", query="launch"),
            "junk claim": agent.call("get_fragment", workspace_id=launch.ws, claim_id="' OR 1=1 --"),
            "justifications": agent.call("record_decision", workspace_id=launch.ws, title="T", justifications="x"),
            "empty justification": agent.call(
                "record_decision", workspace_id=launch.ws, title="T", justifications=[[]]
            ),
            "huge title": agent.call(
                "record_decision", workspace_id=launch.ws, title="t" * 100_000, justifications=[[launch.june]]
            ),
            "huge source": agent.call("add_source", workspace_id=launch.ws, title="Big", text="x" * 2_000_001),
            "NUL": agent.call("add_source", workspace_id=launch.ws, title="T", text="a\x00b"),
            "unknown tool": agent.call("apply_correction", workspace_id=launch.ws),
        }
        assert all(answer.is_error for answer in refusals.values()), refusals
        codes = {name: answer["error"] for name, answer in refusals.items()}
        assert codes == {
            "missing": "invalid_input", "wrong type": "invalid_input", "out of range": "invalid_input",
            "junk workspace": "not_found", "junk claim": "not_found", "justifications": "invalid_support",
            "empty justification": "invalid_support", "huge title": "invalid_input", "huge source": "invalid_source",
            "NUL": "invalid_source", "unknown tool": "not_found",
        }  # fmt: skip
        assert refusals["wrong type"]["detail"] == "“limit” must be a whole number from 1 to 200."
        assert refusals["missing"]["detail"] == "'workspace_id' is required."
        assert refusals["justifications"]["detail"] == "“justifications” must be a list of lists of claim ids."
        assert refusals["junk workspace"]["detail"] == "No such workspace."
        assert "apply_correction" in refusals["unknown tool"]["detail"]
        # Nothing was half-written, and the session is still the same one.
        assert agent.call("list_workspaces")["session"] == session
        assert api_for(launch.trio.viewer).get(f"/workspaces/{launch.ws}/sources").json()["count"] == 1

    def test_a_malformed_cited_id_is_refused_in_the_apis_words(self, launch: Launch, mcp_url: str) -> None:
        agent = http_agent(mcp_url, launch.tokens["reviewer"])
        api = api_for(launch.trio.reviewer)
        for bad in ("x" * 3_000_000, launch.june + "\x00", "not-an-id"):
            refused = agent.call("record_decision", workspace_id=launch.ws, title="T", justifications=[[bad]])
            # The API's sentence for the same id (its first 40 characters are all it repeats).
            answered = api.post(f"/workspaces/{launch.ws}/decisions", {"title": "T", "justifications": [[bad[:100]]]})
            assert answered.status_code == 422
            assert (refused.is_error, refused["error"], refused["detail"]) == (True, *answered.json().values())
            assert len(refused["detail"]) < 200
        # Nothing was written: no decision, no run, no audit row.
        assert api.get(f"/workspaces/{launch.ws}/decisions").json()["count"] == 0
        assert api.get(f"/workspaces/{launch.ws}/runs").json()["count"] == 0

    def test_a_tool_that_fails_unexpectedly_is_an_internal_error_not_a_missing_tool(
        self, launch: Launch, mcp_url: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        def broken(*args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("a bug")

        monkeypatch.setattr("mcp_server.tools.reading.answer", broken)
        failed = http_agent(mcp_url, launch.tokens["reviewer"]).call("list_workspaces")
        assert failed.is_error and failed.body == {"error": "internal_error", "detail": INTERNAL_ERROR}

    def test_a_handshake_client_gets_the_same_tools(self, launch: Launch, mcp_url: str) -> None:
        legacy = http_agent(mcp_url, launch.tokens["reviewer"], mode="legacy")
        legacy.call("search_claims", workspace_id=launch.ws, query="budget")
        legacy.call("get_fragment", workspace_id=launch.ws, claim_id=launch.budget)
        decided = legacy.call("record_decision", workspace_id=launch.ws, title="Budget",
                              justifications=[[launch.budget]])  # fmt: skip
        assert decided["kept"] == [[launch.budget]]
        modern = http_agent(mcp_url, launch.tokens["reviewer"])
        modern.call("list_workspaces")
        # The default client speaks the stateless protocol; the handshake client an earlier one: both are served.
        assert (modern.protocol, legacy.protocol != modern.protocol) == ("2026-07-28", True)


class SessionTests:
    def test_a_session_handle_works_only_for_its_own_user(self, launch: Launch, mcp_url: str) -> None:
        rita = http_agent(mcp_url, launch.tokens["reviewer"])
        rita.call("search_claims", workspace_id=launch.ws, query="budget")
        olivia = http_agent(mcp_url, launch.tokens["owner"])
        stolen = olivia.call("list_workspaces", session=rita.session)
        unknown = olivia.call("list_workspaces", session="ahmcp_made-up")
        assert stolen.is_error and unknown.is_error
        assert stolen.body == unknown.body
        assert stolen["error"] == "not_found" and "no MCP session of yours" in stolen["detail"]
        # Rita's handle still works for her, from a new connection.
        again = http_agent(mcp_url, launch.tokens["reviewer"])
        assert again.call("list_workspaces", session=rita.session)["session"] == rita.session

    def test_an_expired_session_is_refused_in_words(self, launch: Launch, mcp_url: str) -> None:
        agent = http_agent(mcp_url, launch.tokens["reviewer"])
        agent.call("list_workspaces")
        McpSession.objects.update(last_used_at=timezone.now() - timedelta(days=8))
        refused = agent.call("list_workspaces")
        assert refused.is_error and "ended: it was not used for 7 days" in refused["detail"]

    def test_without_a_valid_token_it_answers_401_in_the_apis_words(self, launch: Launch, mcp_url: str) -> None:
        call = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
        for headers in ({}, {"Authorization": "Bearer nope"}, {"Authorization": "Basic x"}):
            answer = httpx2.post(mcp_url, json=call, headers=headers)
            assert answer.status_code == 401
            assert answer.json() == {
                "error": "unauthorized", "detail": "Send a valid API token as 'Authorization: Bearer <token>'.",
            }  # fmt: skip
        token, raw = token_services.token_issue(user=launch.trio.reviewer)
        token_services.token_revoke(token=token, actor=launch.trio.reviewer)
        revoked = httpx2.post(mcp_url, json=call, headers={"Authorization": f"Bearer {raw}"})
        assert revoked.status_code == 401 and revoked.json()["detail"].startswith("This API token was revoked.")

    def test_an_expired_token_is_refused_like_the_api(self, launch: Launch, mcp_url: str) -> None:
        _, raw = token_services.token_issue(user=launch.trio.reviewer, expires_at=timezone.now() - timedelta(seconds=1))
        call = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
        expired = httpx2.post(mcp_url, json=call, headers={"Authorization": f"Bearer {raw}"})
        assert expired.status_code == 401
        assert expired.json() == ApiClient(raw).get("/workspaces").json()
        assert "expired" in expired.json()["detail"]

    def test_a_host_not_allowed_is_refused_with_400(self, launch: Launch, mcp_url: str) -> None:
        call = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
        headers = {"Authorization": f"Bearer {launch.tokens['reviewer']}", "Host": "evil.example"}
        assert httpx2.post(mcp_url, json=call, headers=headers).status_code == 400

    def test_concurrent_calls_of_one_session_lose_no_step(self, launch: Launch, mcp_url: str) -> None:
        agent = http_agent(mcp_url, launch.tokens["reviewer"])
        agent.call("list_workspaces")
        queries = ["launch", "budget", "Ana", "Berlin", "June", "office", "checklist", "product"]
        errors: list[Any] = []

        def search(query: str) -> None:
            one = http_agent(mcp_url, launch.tokens["reviewer"])
            got = one.call("search_claims", workspace_id=launch.ws, query=query, session=agent.session)
            errors.extend([got.body] if got.is_error else [])

        held_before = checked_out()
        threads = [threading.Thread(target=search, args=(query,)) for query in queries]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        # Every connection the server's threads took went back to the pool.
        assert checked_out() <= held_before
        runs = api_for(launch.trio.reviewer).get(f"/workspaces/{launch.ws}/runs").json()["results"]
        run = api_for(launch.trio.reviewer).get(f"/workspaces/{launch.ws}/runs/{runs[0]['id']}").json()
        assert sorted(step["query"] for step in run["trajectory"]) == sorted(queries)
        assert [step["step"] for step in run["trajectory"]] == list(range(1, 9))


class RunTests:
    def test_the_session_is_a_run_with_origin_mcp_on_the_api_and_its_page(
        self, launch: Launch, mcp_url: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        agent = http_agent(mcp_url, launch.tokens["reviewer"])
        agent.call("search_claims", workspace_id=launch.ws, query="launch")
        agent.call("get_fragment", workspace_id=launch.ws, claim_id=launch.june)
        agent.call("record_decision", workspace_id=launch.ws, title="June and Ana",
                   justifications=[[launch.june], [launch.ana]])  # fmt: skip
        # However long ago its last call, an MCP session is open, never a stalled run.
        monkeypatch.setattr("afterhack.clock.STALE_AFTER", timedelta(0))
        api = api_for(launch.trio.viewer)
        [listed] = api.get(f"/workspaces/{launch.ws}/runs").json()["results"]
        assert (listed["origin"], listed["status"], listed["agent"], listed["model"]) == ("mcp", "running", "mcp", None)
        run = api.get(f"/workspaces/{launch.ws}/runs/{listed['id']}").json()
        assert [step["kind"] for step in run["trajectory"]] == ["search", "retrieve", "decision"]
        assert run["searched_claim_ids"] == sorted([launch.june, launch.ana, launch.budget])
        assert run["retrieved_claim_ids"] == [launch.june]
        assert [(d["claim_id"], d["why"]) for d in run["dropped"]] == [(launch.ana, "not retrieved in this session")]
        assert run["decision"]["title"] == "June and Ana"

        page = client_for(launch.trio.viewer).get(f"/w/{launch.ws}/runs/{listed['id']}/").content.decode()
        assert "open MCP session" in page and "Searched" in page and "“launch”" in page
        assert "Recorded the decision" in page and "not retrieved in this session" in page
        runs = client_for(launch.trio.viewer).get(f"/w/{launch.ws}/ask/").content.decode()
        assert "open MCP session" in runs and "MCP client" in runs


def legacy_run(launch: Launch, run_id: str) -> None:
    """An MCP run as the first version of the server wrote it: its steps a list on the run."""
    from afterhack import graph

    steps = [json.dumps({"kind": "search", "at": f"2026-11-01T10:00:0{i}+00:00", "query": f"old {i}",
                         "result_ids": []}) for i in range(3)]  # fmt: skip
    graph.query(
        launch.trio.workspace,
        "CREATE (:AgentRun {id: $id, origin: 'mcp', question: 'MCP session old', status: 'running', agent: 'mcp', "
        "model: '', created_at: '2026-11-01T10:00:00+00:00', updated_at: '2026-11-01T10:00:02+00:00', "
        "created_by: 'rita', trajectory: '{}', events: $events})",
        {"id": run_id, "events": steps},
    )


class StepTests:
    def test_a_long_session_pages_its_steps_on_the_api_and_the_run_page(self, launch: Launch) -> None:
        run = agents_services.McpRun(str(uuid.uuid4()), "MCP session long", launch.trio.reviewer)
        for n in range(1, 251):
            run_id = agents_services.mcp_record(
                workspace=launch.trio.workspace, run=run, kind=TrajectoryEventKind.SEARCH, query=f"q{n}",
                result_ids=[], fell_back=False,
            )  # fmt: skip
        api = api_for(launch.trio.viewer)
        newest = api.get(f"/workspaces/{launch.ws}/runs/{run_id}").json()
        assert newest["step_count"] == 250
        assert [s["step"] for s in newest["trajectory"]] == list(range(51, 251))
        assert newest["trajectory"][-1]["query"] == "q250"
        older = api.get(f"/workspaces/{launch.ws}/runs/{run_id}?steps_before=51").json()
        assert [s["query"] for s in older["trajectory"]] == [f"q{n}" for n in range(1, 51)]
        refused = api.get(f"/workspaces/{launch.ws}/runs/{run_id}?steps_before=0")
        assert refused.status_code == 422 and refused.json()["error"] == "invalid_input"

        browser = client_for(launch.trio.viewer)
        page = browser.get(f"/w/{launch.ws}/runs/{run_id}/").content.decode()
        assert "250 steps" in page and "Steps 51–250 of 250." in page and "“q250”" in page and "“q50”" not in page
        assert '?before=51"' in page
        earlier = browser.get(f"/w/{launch.ws}/runs/{run_id}/?before=51").content.decode()
        assert "Steps 1–50 of 250." in earlier and "“q50”" in earlier and "“q51”" not in earlier
        assert "Newest steps" in earlier and "hx-trigger" not in earlier

    def test_a_step_keeps_the_first_claims_of_a_search_and_rule_2_all_of_them(self, launch: Launch) -> None:
        run = agents_services.McpRun(str(uuid.uuid4()), "MCP session wide", launch.trio.reviewer)
        many = [str(uuid.uuid4()) for _ in range(30)]
        run_id = agents_services.mcp_record(
            workspace=launch.trio.workspace, run=run, kind=TrajectoryEventKind.SEARCH, query="q" * 5000,
            result_ids=many, fell_back=False, searched=[launch.june],
        )  # fmt: skip
        [step] = api_for(launch.trio.viewer).get(f"/workspaces/{launch.ws}/runs/{run_id}").json()["trajectory"]
        assert (step["result_ids"], step["result_count"], len(step["query"])) == (many[:20], 30, 300)
        page = client_for(launch.trio.viewer).get(f"/w/{launch.ws}/runs/{run_id}/").content.decode()
        assert "30 found in all; the step keeps the first 20." in page

    def test_a_run_written_before_steps_were_nodes_still_shows_and_goes_on(self, launch: Launch) -> None:
        run = agents_services.McpRun(str(uuid.uuid4()), "MCP session old", launch.trio.reviewer)
        run_id = run.key(launch.trio.workspace).run_id
        legacy_run(launch, run_id)
        agents_services.mcp_record(
            workspace=launch.trio.workspace, run=run, kind=TrajectoryEventKind.SEARCH, query="new", result_ids=[],
            fell_back=False,
        )  # fmt: skip
        shown = api_for(launch.trio.viewer).get(f"/workspaces/{launch.ws}/runs/{run_id}").json()
        assert [(s["step"], s["query"]) for s in shown["trajectory"]] == [
            (1, "old 0"), (2, "old 1"), (3, "old 2"), (4, "new"),
        ]  # fmt: skip
        assert shown["step_count"] == 4


@pytest.mark.subprocess
class StdioTests:
    def test_every_tool_over_stdio_in_the_processs_one_session(self, launch: Launch) -> None:
        ws, budget = launch.ws, launch.budget
        listed, added, found, fragment, decided, chain, preview = stdio_agent("rita").calls([
            ("list_workspaces", {}),
            ("add_source", {"workspace_id": ws, "title": "Notes", "text": "Ana signs off on Friday."}),
            ("search_claims", {"workspace_id": ws, "query": "budget"}),
            ("get_fragment", {"workspace_id": ws, "claim_id": budget}),
            ("record_decision", {"workspace_id": ws, "title": "Budget", "justifications": [[budget]]}),
            ("explain", {"workspace_id": ws, "id": budget}),
            ("preview_correction", {"workspace_id": ws, "claim_id": budget, "statement": "The budget is 50,000 EUR."}),
        ])  # fmt: skip
        assert listed["results"][0]["role"] == "reviewer"
        [proposed] = stdio_agent("rita").calls([
            ("propose_claim", {"workspace_id": ws, "source_id": added["source_id"], "statement": "Ana signs.",
                               "evidence_quote": "Ana signs off on Friday"}),
        ])  # fmt: skip
        assert proposed["status"] == "created"
        assert [r["claim_id"] for r in found["results"]] == [budget]
        assert fragment["evidence_quote"] == "The launch budget is 40,000 EUR"
        assert decided["kept"] == [[budget]] and decided["status"] == "supported"
        assert "Budget" in chain["text"]
        assert preview["affected"]["decisions_needing_review"] == [decided["decision_id"]]
        # Without passing `session`, every call of the process is its one session; another process is another.
        assert len({answer["session"] for answer in (listed, added, found, fragment, decided, chain, preview)}) == 1
        assert proposed["session"] != found["session"]
        # A viewer over stdio is a viewer too.
        [refused] = stdio_agent("victor").calls([("add_source", {"workspace_id": ws, "title": "T", "text": "x"})])
        assert refused.is_error and refused["error"] == "forbidden"

    def test_when_the_default_session_expired_a_new_one_becomes_the_default(self, launch: Launch) -> None:
        def expire_all() -> None:
            McpSession.objects.update(last_used_at=timezone.now() - timedelta(days=8))
            connection.close()

        async def run() -> list[Answer]:
            async with Client(stdio_parameters("rita")) as client:
                first = answer_of(await client.call_tool("list_workspaces", {}))
                await anyio.to_thread.run_sync(expire_all)
                second = answer_of(await client.call_tool("list_workspaces", {}))
                third = answer_of(await client.call_tool("list_workspaces", {}))
                return [first, second, third]

        with ThreadPoolExecutor(max_workers=1) as thread:
            first, second, third = thread.submit(anyio.run, run).result()
        assert not second.is_error and second["results"][0]["role"] == "reviewer"
        assert first["session"] != second["session"] == third["session"]

    def test_an_unknown_or_inactive_user_is_refused_with_exit_code_2(self, launch: Launch) -> None:
        launch.trio.outsider.is_active = False
        launch.trio.outsider.save()
        for name in ("nobody", "oscar"):
            done = subprocess.run(
                [sys.executable, "manage.py", "mcp", "--user", name], cwd=ROOT, env=store_env(),
                capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
            )  # fmt: skip
            assert done.returncode == 2, done.stderr
            assert f"The user “{name}”" in done.stderr and done.stdout == ""
