"""The MCP tools that read: the caller's workspaces, the claims a search finds, the fragment a claim quotes, and
the because-chain of a claim or a decision. A writer's searches and reads are recorded on its session's run (what
rule 2 checks when it records a decision); a viewer's leave no trace."""

from __future__ import annotations

from typing import Annotated, Any

from mcp_types import CallToolResult
from pydantic import Field

from afterhack.errors import UserError
from afterhack.schemas import Refuse, WholeNumber
from agents.selectors import decisions as agents_selectors
from agents.services import mcp as agents_services
from agents.statuses import TrajectoryEventKind
from claims.selectors import search as search_selectors
from claims.services import claims as claims_services
from mcp_server.arguments import ClaimId, Session, WorkspaceId
from mcp_server.calls import Caller, Refused, answer
from mcp_server.explain import explained
from workspaces.access import get_membership, get_workspace_for_user
from workspaces.models import Workspace
from workspaces.selectors import memberships as membership_selectors


def list_workspaces(session: Session = None) -> CallToolResult:
    """The workspaces you are a member of, with your role in each (viewers may only read)."""

    def work(caller: Caller) -> dict[str, Any]:
        memberships = membership_selectors.memberships_for_user(user=caller.user)
        return {"results": [{"id": str(m.workspace.id), "name": m.workspace.name, "role": m.role} for m in memberships]}

    return answer(session, work)


def search_claims(
    workspace_id: WorkspaceId,
    query: Annotated[str, Field(description="Words or a sentence; case does not matter."), Refuse(words="“query” must be text.")],
    limit: Annotated[WholeNumber, Field(ge=1, le=200, description="How many claims, best first."),
                     Refuse(words="“limit” must be a whole number from 1 to 200.")] = 10,
    session: Session = None,
) -> CallToolResult:  # fmt: skip
    """Searches the workspace's claims (the same search as the API's GET …/claims?q=), best first. What it finds
    counts as searched in this session."""

    def work(caller: Caller) -> dict[str, Any]:
        membership = get_membership(caller.user, workspace_id)
        workspace = membership.workspace
        found = search_selectors.claim_search(workspace=workspace, query=query, limit=limit)
        ids = [hit.id for hit in found.hits]
        titles = {
            card.id: card.source_title for card in agents_selectors.claim_cards(workspace=workspace, claim_ids=ids)
        }
        if membership.can_write:  # a viewer's token only reads: its searches leave no run and no edge
            agents_services.mcp_record(
                workspace=workspace, run=caller.run(), kind=TrajectoryEventKind.SEARCH, searched=ids,
                query=found.query, fell_back=found.fell_back, mode=found.mode, degraded=found.degraded, result_ids=ids,
            )  # fmt: skip
        # Each claim with its source's title and how it matched, and whether search by meaning was unavailable.
        return {"results": [{"claim_id": hit.id, "statement": hit.statement, "status": hit.status,
                             "source_title": titles.get(hit.id), "match": hit.match} for hit in found.hits],
                "degraded": found.degraded}  # fmt: skip

    return answer(session, work)


def get_fragment(workspace_id: WorkspaceId, claim_id: ClaimId, session: Session = None) -> CallToolResult:
    """Reads the source fragment a claim quotes as its evidence. What you read counts as retrieved in this session."""

    def work(caller: Caller) -> dict[str, Any]:
        membership = get_membership(caller.user, workspace_id)
        workspace = membership.workspace
        claim = claims_services.claim_required(workspace, claim_id)
        if not claim.fragments:
            raise UserError(
                "This claim is derived from other claims: it quotes no source. Retrieve the claims it is derived from."
            )
        cards = agents_selectors.claim_cards(workspace=workspace, claim_ids=[claim.id])
        if membership.can_write:  # as in search_claims: a viewer's reads are not recorded
            agents_services.mcp_record(
                workspace=workspace, run=caller.run(), kind=TrajectoryEventKind.RETRIEVE,
                retrieved=[{"claim_id": claim.id, "fragment_id": claim.fragments[0].id}],
                claim_id=claim.id, fragment_id=claim.fragments[0].id, quote=claim.evidence_quote,
            )  # fmt: skip
        return {
            "claim_id": claim.id, "statement": claim.statement, "evidence_quote": claim.evidence_quote,
            "start": claim.start, "end": claim.end, "source_id": claim.source_id,
            "source_title": cards[0].source_title if cards else None,
            "fragment_text": "".join(fragment.text for fragment in claim.fragments),
            "fragment_start": claim.fragments[0].start, "status": claim.status,
        }  # fmt: skip

    return answer(session, work)


def explain(
    workspace_id: WorkspaceId,
    id: Annotated[str, Field(description="The id of a claim or a decision."),
                  Refuse(words="“id” must be the id of a claim or a decision, as text.")],
    session: Session = None,
) -> CallToolResult:  # fmt: skip
    """The because-chain of a claim (its source and quote, what rests on it, its corrections) or of a decision
    (the claims each justification rests on, its actions): plain words in `text`, each link in `chain`."""

    def work(caller: Caller) -> dict[str, Any]:
        workspace: Workspace = get_workspace_for_user(caller.user, workspace_id)
        chain = explained(workspace, id)
        if chain is None:
            raise Refused("not_found", "No such claim or decision in this workspace.")
        return chain

    return answer(session, work)
