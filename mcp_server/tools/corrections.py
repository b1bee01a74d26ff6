"""The MCP tools about correcting a claim: what a correction would do (its preview), and flagging a claim that a
source contradicts, which becomes a suggested correction for a reviewer. Applying a correction stays with people."""

from __future__ import annotations

from typing import Any

from mcp_types import CallToolResult

from agents.statuses import TrajectoryEventKind
from corrections.selectors import suggestions as suggestions_selectors
from corrections.services import preview as preview_services
from corrections.services import suggestions as suggestions_services
from corrections.statuses import FoundBy
from mcp_server.arguments import ClaimId, Corrected, Passage, Session, SourceId, Start, Statement, WorkspaceId
from mcp_server.calls import Caller, answer, record_after_write
from workspaces.access import get_rw_workspace_for_user


def preview_correction(
    workspace_id: WorkspaceId, claim_id: ClaimId, statement: Statement,
    session: Session = None,
) -> CallToolResult:  # fmt: skip
    """What correcting the claim would do (the API's correction preview). Applying a correction stays with people."""

    def work(caller: Caller) -> dict[str, Any]:
        workspace = get_rw_workspace_for_user(caller.user, workspace_id)
        plan = preview_services.preview(workspace=workspace, claim_id=claim_id, statement=statement)
        return {
            "claim_id": plan.claim.id, "statement": plan.statement, "revision": plan.fingerprint,
            "affected": plan.impact.as_json(), "still_supported_by": plan.impact.still_supported_by,
            "restating": plan.restating,
        }  # fmt: skip

    return answer(session, work)


def flag_contradiction(
    workspace_id: WorkspaceId,
    claim_id: ClaimId,
    source_id: SourceId,
    quote: Passage,
    statement: Corrected,
    start: Start = None,
    session: Session = None,
) -> CallToolResult:  # fmt: skip
    """Flags a current claim as contradicted by a passage of a source: the corrected statement, with the passage's
    exact quote (rule 1, checked as a claim's quote is; a paraphrase is refused). It becomes a suggested correction
    for a reviewer, linked to this session's run; nothing is corrected until a reviewer applies it."""

    def work(caller: Caller) -> dict[str, Any]:
        workspace = get_rw_workspace_for_user(caller.user, workspace_id)
        run_id = caller.run().key(workspace).run_id
        suggestion, created = suggestions_services.contradiction_flag(
            workspace=workspace, claim_id=claim_id, source_id=source_id, quote=quote, statement=statement,
            start=start, found_by=FoundBy.AGENT, actor=caller.user, run_id=run_id,
        )  # fmt: skip
        evidence = suggestion.evidence
        record_after_write(
            workspace=workspace, run=caller.run(), kind=TrajectoryEventKind.CONTRADICTION_FLAGGED,
            suggestion_id=suggestion.id, claim_id=suggestion.claim_id, statement=suggestion.statement[:300],
            source_id=evidence.source_id if evidence else None, quote=evidence.quote[:300] if evidence else None,
            created=created,
        )  # fmt: skip
        # The suggestion as the API's flag answers it, and whether this call stored it (false: flagged before).
        return {**suggestions_selectors.suggestion_json(suggestion), "created": created}

    return answer(session, work)
