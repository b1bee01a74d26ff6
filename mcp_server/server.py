"""The MCP server with Afterhack's tools (mcp_server/tools/): what it tells an agent when it connects, the tools in
the order it lists them, and malformed arguments refused as the API's invalid_input error. The transports serve it
(mcp_server/transport.py)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult
from pydantic import ValidationError

from afterhack.errors import INTERNAL_ERROR
from afterhack.schemas import refusal_of
from mcp_server.calls import tool_result
from mcp_server.tools.changes import what_changed
from mcp_server.tools.corrections import flag_contradiction, preview_correction
from mcp_server.tools.decisions import record_decision
from mcp_server.tools.reading import explain, get_fragment, list_workspaces, search_claims
from mcp_server.tools.writing import add_source, propose_claim

logger = logging.getLogger("mcp_server")

SESSION_HINT = "Pass back the `session` this result gives you with every later call."
INSTRUCTIONS = (
    "Afterhack is memory made of claims, each backed by an exact quote of a source. To cite a claim in "
    "record_decision, this session must have found it with search_claims AND read it with get_fragment; the "
    "server drops any other citation and says why. Start each session by asking what_changed, in each workspace you "
    "work in, what changed in what you relied on since you last asked. " + SESSION_HINT
)

TOOLS: list[Callable[..., CallToolResult]] = [list_workspaces, what_changed, search_claims, get_fragment, add_source, propose_claim,
         record_decision, explain, preview_correction, flag_contradiction]  # fmt: skip


class AfterhackMCP(MCPServer):
    """The SDK's server, whose refusal of malformed arguments is the API's invalid_input error, in words."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as error:
            tool = self._tool_manager.get_tool(name)
            if tool is None:
                return tool_result(
                    {"error": "not_found", "detail": f"There is no tool called {name[:60]!r}."}, error=True
                )
            if not isinstance(error.__cause__, ValidationError):
                logger.error("the MCP tool %s failed", name, exc_info=error)
                return tool_result({"error": "internal_error", "detail": INTERNAL_ERROR}, error=True)
            code, detail = refusal_of(tool.fn_metadata.arg_model.model_fields, error.__cause__.errors())
            return tool_result({"error": code, "detail": detail}, error=True)


def build_server() -> AfterhackMCP:
    """The MCP server with Afterhack's tools."""
    server = AfterhackMCP("afterhack", instructions=INSTRUCTIONS, log_level="WARNING")
    for tool in TOOLS:
        # The docstring on one line, as an agent reads it, and the one sentence about the session.
        description = " ".join(f"{tool.__doc__ or ''} {SESSION_HINT}".split())
        server.add_tool(tool, description=description, structured_output=False)
    return server
