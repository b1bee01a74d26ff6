"""The MCP tools that write memory: a source, and a claim that quotes it (rule 1). Each write is audited by its
service, then recorded on the session's run."""

from __future__ import annotations

from typing import Any

from mcp_types import CallToolResult

from agents.statuses import TrajectoryEventKind
from claims.services import claims as claims_services
from claims.services import sources as sources_services
from claims.services.claims import EvidenceNotFound
from claims.statuses import ClaimStatus
from mcp_server.arguments import Quote, Session, SourceId, SourceText, Start, Statement, Title, WorkspaceId
from mcp_server.calls import Caller, answer, record_after_write
from workspaces.access import get_rw_workspace_for_user

PROPOSED_NOTE = (
    "This workspace asks a reviewer to approve agents' claims: the claim is proposed, and cannot be cited by a "
    "decision until it is approved."
)


def add_source(
    workspace_id: WorkspaceId,
    title: Title,
    text: SourceText,
    session: Session = None,
) -> CallToolResult:
    """Adds a source (a document) to the workspace; claims can then quote it with propose_claim."""

    def work(caller: Caller) -> dict[str, Any]:
        workspace = get_rw_workspace_for_user(caller.user, workspace_id)
        added = sources_services.source_add(workspace=workspace, title=title, text=text, actor=caller.user)
        record_after_write(
            workspace=workspace, run=caller.run(), kind=TrajectoryEventKind.SOURCE_ADDED,
            source_id=added.id, title=added.title, length=added.length,
        )  # fmt: skip
        return {"source_id": added.id, "version": added.version, "length": added.length}

    return answer(session, work)


def propose_claim(
    workspace_id: WorkspaceId,
    source_id: SourceId,
    statement: Statement,
    evidence_quote: Quote,
    start: Start = None,
    session: Session = None,
) -> CallToolResult:  # fmt: skip
    """Proposes a claim backed by an exact quote of a source (rule 1): created, or rejected with the reason. Where
    the workspace asks for approval of agents' claims, it is created `proposed` (`claim_status`): not citable until a
    reviewer approves it."""

    def work(caller: Caller) -> dict[str, Any]:
        workspace = get_rw_workspace_for_user(caller.user, workspace_id)
        try:
            claim = claims_services.claim_add(
                workspace=workspace, source_id=source_id, statement=statement, evidence_quote=evidence_quote,
                start=start, actor=caller.user, by_agent=True,
            )  # fmt: skip
            outcome: dict[str, Any] = {"status": "created", "claim_id": claim.id, "claim_status": claim.status}
            if claim.status == ClaimStatus.PROPOSED:
                outcome["note"] = PROPOSED_NOTE
        except EvidenceNotFound as rejected:
            # Rule 1 exactly as the API decides it, but without the near-miss hint the API gives reviewers.
            outcome = {"status": "rejected", "reason": str(rejected), "code": rejected.extra["reason"]}
        record_after_write(
            workspace=workspace, run=caller.run(), kind=TrajectoryEventKind.PROPOSAL, statement=statement[:300],
            source_id=source_id[:64], **outcome,
        )  # fmt: skip
        return outcome

    return answer(session, work)
