"""/mcp answers only what a stateless server serves: POST. Every other method is 405 with `Allow: POST`, at once —
before the SDK, whose handler for handshake-protocol clients would hold a GET open as an event stream, and before
the token, so a client without one learns no more than its POST's 401 tells it."""

from __future__ import annotations

import json

import httpx2
import pytest

from mcp_server.transport import NOT_ALLOWED
from tests.mcp_server.conftest import Launch

# Each protocol era: no header (the handshake's default), a handshake revision, the stateless revision.
PROTOCOLS: tuple[dict[str, str], ...] = (
    {},
    {"MCP-Protocol-Version": "2025-06-18"},
    {"MCP-Protocol-Version": "2026-07-28"},
)


class McpMethodTests:
    @pytest.mark.parametrize("method", ["GET", "DELETE", "PUT", "PATCH", "OPTIONS", "HEAD"])
    def test_every_method_but_post_is_answered_405_allow_post_at_once(
        self, launch: Launch, mcp_url: str, method: str
    ) -> None:
        answers = []
        for protocol in PROTOCOLS:
            for token in (launch.tokens["viewer"], None):
                headers = {"Accept": "text/event-stream, application/json", **protocol}
                if token:
                    headers["Authorization"] = f"Bearer {token}"
                # A GET the SDK took would never end: the timeout makes that a failure, not a hang.
                answer = httpx2.request(method, mcp_url, headers=headers, timeout=5)
                answers.append((answer.status_code, answer.headers["Allow"], answer.content))
        assert {status for status, _, _ in answers} == {405}
        assert {allow for _, allow, _ in answers} == {"POST"}
        # With a token or without, in any protocol: the same answer, saying only what the protocol says.
        assert len(set(answers)) == 1
        body = answers[0][2]
        if method == "HEAD":
            assert body == b""
        else:
            assert json.loads(body) == {"error": "method_not_allowed", "detail": NOT_ALLOWED}

    def test_post_still_needs_a_valid_token(self, launch: Launch, mcp_url: str) -> None:
        call = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
        assert httpx2.post(mcp_url, json=call, timeout=5).status_code == 401
