"""The MCP server's parts of the workspaces registry (workspaces/registry.py), registered in mcp_server/apps.py."""

from __future__ import annotations

from workspaces.registry import AuditVerb, register

# A session's label is no workspace content (sessions belong to no workspace).
VERBS = (AuditVerb("mcp.session_opened", "opened an MCP session ({target})", "MCP session opened", whole=True),)


def register_parts() -> None:
    """Registers the MCP server's audit verbs with workspaces."""
    register(*VERBS)
