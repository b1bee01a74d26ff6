"""Every /mcp answer is marked never to be stored and carries the app's Permissions-Policy, as Django's middleware
marks the app's own answers: /mcp is served beside Django (mcp_server/transport.py), so that middleware never sees
these answers. The tools' answers hold workspace content and a session handle; no cache may keep them."""

from __future__ import annotations

from typing import Any

import httpx2

from afterhack.http import PERMISSIONS_POLICY
from tests.mcp_server.conftest import Launch
from tests.mcp_server.test_outages import pool_taken

INITIALIZE = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}},
}  # fmt: skip
ACCEPT = {"Accept": "application/json, text/event-stream"}


def private(answer: Any) -> bool:
    """Whether the answer is marked never to be stored and denies the features the app's pages deny."""
    return (
        answer.headers.get_list("Cache-Control") == ["no-store"]
        and answer.headers.get("Permissions-Policy") == PERMISSIONS_POLICY
    )


class McpHeaderTests:
    def test_the_sdks_answers_to_a_token_are_never_stored(self, launch: Launch, mcp_url: str) -> None:
        headers = {**ACCEPT, "Authorization": f"Bearer {launch.tokens['viewer']}"}
        started = httpx2.post(mcp_url, json=INITIALIZE, headers=headers, timeout=30)
        assert started.status_code == 200 and started.json()["result"]["serverInfo"]
        malformed = httpx2.post(mcp_url, content=b"{", headers={**headers, "Content-Type": "application/json"})
        assert malformed.status_code == 400
        assert private(started) and private(malformed)

    def test_the_endpoints_own_refusals_are_never_stored_either(self, launch: Launch, mcp_url: str) -> None:
        token = {"Authorization": f"Bearer {launch.tokens['viewer']}"}
        answers = {
            "405": httpx2.get(mcp_url, headers=token, timeout=5),
            "401": httpx2.post(mcp_url, json=INITIALIZE, headers=ACCEPT, timeout=5),
            "400": httpx2.post(mcp_url, json=INITIALIZE, headers={**ACCEPT, **token, "Host": "evil.example"}),
        }
        with pool_taken():
            answers["503"] = httpx2.post(mcp_url, json=INITIALIZE, headers={**ACCEPT, **token}, timeout=30)
        assert {name: answer.status_code for name, answer in answers.items()} == {name: int(name) for name in answers}
        assert [name for name, answer in answers.items() if not private(answer)] == []
