"""The MCP tool that records a decision on the session's run, citing only what the session found and read (rule 2)."""

from __future__ import annotations

from typing import Annotated, Any

from mcp_types import CallToolResult
from pydantic import Field

from afterhack.schemas import Id, Refuse
from agents.services import mcp as agents_services
from mcp_server.arguments import Session, Title, WorkspaceId
from mcp_server.calls import Caller, answer
from workspaces.access import get_rw_workspace_for_user


def record_decision(
    workspace_id: WorkspaceId,
    title: Title,
    justifications: Annotated[
        list[list[Id]],
        Field(description="Each inner list is one justification: claim ids that together suffice."),
        Refuse("invalid_support", "“justifications” must be a list of lists of claim ids."),
    ],
    rationale: Annotated[str | None, Field(description="Why, in words."),
                         Refuse(words="“rationale” must be text (or left out).")] = None,
    session: Session = None,
) -> CallToolResult:  # fmt: skip
    """Records a decision. Rule 2: a justification stands only if this session found every claim of it with
    search_claims, read it with get_fragment, and it is still current; the rest is dropped, with why. With no
    justification left, the decision is "No source-backed answer yet", needing review, your title its question."""

    def work(caller: Caller) -> dict[str, Any]:
        workspace = get_rw_workspace_for_user(caller.user, workspace_id)
        made = agents_services.mcp_decide(
            workspace=workspace, run=caller.run(), title=title, justifications=justifications, rationale=rationale
        )
        return {"decision_id": made.decision.id, "status": made.decision.status, "kept": made.citations.kept,
                "dropped": made.citations.dropped, "run_id": made.run_id}  # fmt: skip

    return answer(session, work)
