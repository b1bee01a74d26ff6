"""Benchmark of the agent (run by `make bench`): what one run costs on the demo workspace."""

from __future__ import annotations

import json
import time
from typing import Any

from django.test import override_settings

from afterhack import graph
from agents.graph import runs as runs_graph
from agents.graph.shapes import Run
from agents.services import runs as run_services
from benchmarks.claims import Figure
from claims.statuses import JobStatus
from config.demo import demo_fill
from workspaces.services import workspaces as workspace_services

QUESTION = "When is the product launch?"


def _one_run(workspace: Any, user: Any) -> tuple[float, int, Run]:
    run_id = run_services.ask(workspace=workspace, question=QUESTION, actor=user)
    before, started = graph.queries_sent(), time.perf_counter()
    run_services.run_execute(workspace=workspace, run_id=run_id)
    seconds, queries = time.perf_counter() - started, graph.queries_sent() - before
    run = runs_graph.run_get(workspace=workspace, run_id=run_id)
    assert run is not None and run.status == JobStatus.DONE, run
    return seconds, queries, run


def bench_agent_runs(user: Any) -> list[Figure]:
    """An offline run, and a run through a local scripted OpenAI-compatible server (zero model latency)."""
    workspace = workspace_services.workspace_create(name="Benchmark demo", creator=user)
    demo_fill(workspace, user)
    figures = []
    try:
        with override_settings(AFTERHACK_LLM_MODEL=""):
            seconds, queries, run = _one_run(workspace, user)
        figures.append(Figure("agent run on the demo workspace, offline agent", seconds * 1000, "ms",
                              f"0 model calls, {queries} graph queries; decision {run.decision_id and 'made'}"))  # fmt: skip
        seconds, queries, run = _scripted_run(workspace, user)
        calls = run.trajectory.get("model_calls", 0)
        figures.append(Figure("agent run on the demo workspace, model (scripted local server)", seconds * 1000, "ms",
                              f"{calls} model calls (search, read, answer, coordinate), {queries} graph queries, "
                              "model latency excluded: add your model's per-call latency × calls"))  # fmt: skip
    finally:
        graph.graph_delete(workspace)
    return figures


def _scripted_run(workspace: Any, user: Any) -> tuple[float, int, Run]:
    # The tests' scripted server: a real HTTP round trip through the openai client, no thinking.
    from benchmarks.llm_server import ScriptedLLM, json_reply

    def read_first(request: dict[str, Any]) -> dict[str, Any]:
        found = json.loads([m for m in request["messages"] if m["role"] == "tool"][-1]["content"])["claims"]
        return {"tool_calls": [{"name": "get_fragment", "arguments": {"claim_id": found[0]["id"]}}]}

    def answer(request: dict[str, Any]) -> dict[str, Any]:
        claim_id = json.loads([m for m in request["messages"] if m["role"] == "tool"][-1]["content"])["claim_id"]
        return json_reply({"answer": "June", "claim_ids": [claim_id], "actions": []})

    def coordinate(request: dict[str, Any]) -> dict[str, Any]:
        proposal = json.loads(request["messages"][-1]["content"])["proposal"]
        return json_reply({"title": "Launch in June", "rationale": "Plan.", "claim_ids": proposal["claim_ids"],
                           "actions": [{"title": "Send the announcement"}]})  # fmt: skip

    server = ScriptedLLM()
    server.script(
        {"tool_calls": [{"name": "search_claims", "arguments": {"query": "product launch"}}]},
        read_first,
        answer,
        coordinate,
    )
    try:
        with override_settings(OPENAI_BASE_URL=server.url, OPENAI_API_KEY="bench", AFTERHACK_LLM_MODEL="scripted"):
            return _one_run(workspace, user)
    finally:
        server.close()
