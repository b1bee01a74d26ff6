from django.apps import AppConfig


class McpServerConfig(AppConfig):
    # Not "mcp": that is the SDK's package, which this app would shadow.
    name = "mcp_server"
    verbose_name = "MCP server"

    def ready(self) -> None:
        # Its audit verbs, registered with workspaces.
        from mcp_server.registration import register_parts

        register_parts()
