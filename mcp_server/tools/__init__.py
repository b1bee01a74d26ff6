"""The MCP tools (issue #11), one module per feature, each a function the server (mcp_server/server.py) registers
with its docstring as the description an agent reads: `reading` (list_workspaces, search_claims, get_fragment,
explain), `changes` (what_changed: what changed in what the agent relied on), `writing` (add_source,
propose_claim), `decisions` (record_decision), `corrections` (preview_correction, flag_contradiction). Each runs
through `mcp_server.calls.answer`: the same services, selectors, access checks and errors as the JSON API, with
rule 2 enforced across the calls of one MCP session."""
