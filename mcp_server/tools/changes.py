"""The MCP tool that tells an agent what changed in what it relied on since it last asked (the API's
`GET …/changes?cited_by=me`, corrections/selectors/relied_on.py): the claims it should cite instead, the decisions it
should re-check."""

from __future__ import annotations

from typing import Annotated, Any

from mcp_types import CallToolResult
from pydantic import Field

from afterhack.lists.cursors import MAX_CURSOR_CHARS
from afterhack.schemas import Refuse, WholeNumber
from corrections.selectors import relied_on as relied_on_selectors
from mcp_server.arguments import Session, WorkspaceId
from mcp_server.calls import Caller, answer
from workspaces.access import get_workspace_for_user


def what_changed(
    workspace_id: WorkspaceId,
    since: Annotated[str | None, Field(max_length=MAX_CURSOR_CHARS,
                                       description="The `resume` (or `next`) of your previous what_changed here; "
                                                   "leave it out the first time (the last 7 days)."),
                     Refuse(words="“since” must be the `resume` or `next` value of an earlier what_changed, as it was given.")] = None,
    limit: Annotated[WholeNumber, Field(ge=1, le=200, description="How many changes at most, oldest first."),
                     Refuse(words="“limit” must be a whole number from 1 to 200.")] = 50,
    session: Session = None,
) -> CallToolResult:  # fmt: skip
    """Call this at the start of each session, in each workspace you work in: what changed since `since` in the
    claims and decisions you relied on (the decisions you recorded, the claims they cite, the claims you proposed,
    the claims your sessions and runs read with get_fragment), oldest first. Each change says in `next_step` what to
    do: `use_claim` (cite `claim_id` instead), `stop_citing`, `recheck_decision` (`decision_id` lost its support),
    `use_decision`, ... `next` (not null when more follow) is the rest, now; keep `resume` and pass it as `since`
    at your next session."""

    def work(caller: Caller) -> dict[str, Any]:
        workspace = get_workspace_for_user(caller.user, workspace_id)
        page = relied_on_selectors.relied_on_page(workspace=workspace, user=caller.user, since=since, limit=limit)
        return page.answer()

    return answer(session, work)
