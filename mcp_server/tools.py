"""The MCP tools (issue #11): the agent loop over the same services, selectors, access checks and errors as the
JSON API, with rule 2 enforced across the calls of one MCP session.

Every tool takes an optional `session` and every result carries one: the protocol keeps no state between calls,
so the session is a handle the server mints (in PostgreSQL) and the agent passes back. Each call runs in a worker
thread of the SDK, never on the event loop, and hands its database connection back when it ends.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Annotated, Any

from django.contrib.auth import get_user_model
from django.db import close_old_connections, connections
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent
from pydantic import Field, ValidationError

from afterhack.errors import INTERNAL_ERROR, GraphError, UserError, answered_as
from afterhack.outages import outage_detail, store_outage
from afterhack.schemas import Id, Refuse, WholeNumber, refusal_of
from agents.selectors import decisions as agents_selectors
from agents.services import mcp as agents_services
from agents.statuses import TrajectoryEventKind
from claims.selectors import search as search_selectors
from claims.services import claims as claims_services
from claims.services import sources as sources_services
from claims.services.claims import EvidenceNotFound
from claims.statuses import ClaimStatus
from corrections.services import preview as preview_services
from corrections.services import suggestions as suggestions_services
from corrections.statuses import FoundBy
from mcp_server import services
from mcp_server.arguments import (
    ClaimId,
    Corrected,
    Passage,
    Quote,
    Session,
    SourceId,
    SourceText,
    Statement,
    Title,
    WorkspaceId,
)
from mcp_server.explain import explained
from mcp_server.models import McpSession, Transport
from workspaces.access import get_membership, get_rw_workspace_for_user, get_workspace_for_user
from workspaces.models import Workspace
from workspaces.selectors import memberships as membership_selectors

logger = logging.getLogger("mcp_server")

PROPOSED_NOTE = (
    "This workspace asks a reviewer to approve agents' claims: the claim is proposed, and cannot be cited by a "
    "decision until it is approved."
)
SESSION_HINT = "Pass back the `session` this result gives you with every later call."
INSTRUCTIONS = (
    "Afterhack is memory made of claims, each backed by an exact quote of a source. To cite a claim in "
    "record_decision, this session must have found it with search_claims AND read it with get_fragment; the "
    "server drops any other citation and says why. " + SESSION_HINT
)
UNAUTHORIZED = "Send a valid API token as 'Authorization: Bearer <token>'."


@dataclass
class Principal:
    """Who is calling: the token's user (HTTP) or the command's user (stdio, with its one default session)."""

    user_id: int
    transport: Transport
    # Over stdio, the handle of the process's one session, used by every call that names none; replaced by a new
    # session when it expires (the object is shared by every call of the process, hence mutable and locked).
    default_handle: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)


# Set for each HTTP request by the transport, and once for the stdio process; worker threads inherit it.
PRINCIPAL: ContextVar[Principal | None] = ContextVar("afterhack_mcp_principal", default=None)


class Refused(Exception):
    """A call answered as the API's error: a code and a sentence."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code, self.detail = code, detail


@dataclass(frozen=True)
class Caller:
    user: Any
    session: McpSession
    handle: str

    def run(self) -> agents_services.McpRun:
        who = self.user.get_username()
        label = f"MCP session {self.session.label} of {who} ({self.session.get_transport_display()})"
        return agents_services.McpRun(str(self.session.id), label, self.user)


def _caller(handle: str | None) -> Caller:
    principal = PRINCIPAL.get()
    user = get_user_model().objects.filter(pk=principal.user_id, is_active=True).first() if principal else None
    if principal is None or user is None:
        raise Refused("unauthorized", UNAUTHORIZED)
    try:
        if handle:
            return Caller(user, services.session_resume(user=user, handle=handle), handle)
    except services.SessionRefused as refused:
        raise Refused("not_found", str(refused)) from refused
    if principal.default_handle:
        return _default_caller(user, principal)
    session, handle = services.session_open(user=user, transport=principal.transport)
    return Caller(user, session, handle)


def _default_caller(user: Any, principal: Principal) -> Caller:
    """The stdio process's one session; when it has expired, a new one that becomes the default (leaving
    `session` out must never keep answering that the session ended)."""
    with principal.lock:
        try:
            session = services.session_resume(user=user, handle=principal.default_handle)
        except services.SessionRefused:
            session, principal.default_handle = services.session_open(user=user, transport=principal.transport)
        return Caller(user, session, principal.default_handle)


def refusal(error: Exception) -> tuple[str, str]:
    """The API's error code and sentence for what a tool raised."""
    if isinstance(error, Refused):
        return error.code, error.detail
    if (answered := answered_as(error)) is not None:
        return answered[1], answered[2]
    if (store := store_outage(error)) is not None:
        return "unavailable", outage_detail(store, error)
    log = logger.error if isinstance(error, GraphError) else logger.exception
    log("an MCP tool failed", exc_info=error)
    return "internal_error", INTERNAL_ERROR


def _result(body: dict[str, Any], *, error: bool = False) -> CallToolResult:
    text = TextContent(type="text", text=json.dumps(body, ensure_ascii=False))
    return CallToolResult(content=[text], structured_content=None if error else body, is_error=error)


def answer(session: str | None, work: Callable[[Caller], dict[str, Any]]) -> CallToolResult:
    """Runs one call for its caller and session: its answer with the session's handle, or the API's error."""
    close_old_connections()
    caller = None
    try:
        caller = _caller(session)
        return _result({**work(caller), "session": caller.handle})
    except Exception as error:  # noqa: BLE001 - every failure is answered in words, never a crash of the session
        code, detail = refusal(error)
        return _result({"error": code, "detail": detail, **({"session": caller.handle} if caller else {})}, error=True)
    finally:
        # The SDK's worker threads stay alive between calls: none may keep a connection from the pool.
        connections.close_all()


def record_after_write(**step: Any) -> None:
    """Records the step of a write that has already happened (and been audited). Best effort: if the graph fails
    now, the agent still learns that its source or claim exists (answering an error would make it retry into a
    duplicate); the run only misses that step, which the log says."""
    try:
        agents_services.mcp_record(**step)
    except Exception:  # the write stands; only its trajectory step is lost
        logger.warning("an MCP step was not recorded after its write succeeded", exc_info=True)


# -- the tools -----------------------------------------------------------------------------------------


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
    start: Annotated[WholeNumber | None, Field(description="Where the quote begins; without it, its first occurrence."),
                     Refuse(words="“start” must be a whole number: the offset where the quote begins.")] = None,
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
    start: Annotated[WholeNumber | None, Field(description="Where the quote begins; without it, its first occurrence."),
                     Refuse(words="“start” must be a whole number: the offset where the quote begins.")] = None,
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
        return {"suggestion_id": suggestion.id, "status": suggestion.status, "created": created,
                "claim_id": suggestion.claim_id, "found_by": suggestion.found_by, "run_id": suggestion.run_id or run_id,
                "start": evidence.start if evidence else None, "end": evidence.end if evidence else None}  # fmt: skip

    return answer(session, work)


TOOLS: list[Callable[..., CallToolResult]] = [list_workspaces, search_claims, get_fragment, add_source, propose_claim, record_decision, explain,
         preview_correction, flag_contradiction]  # fmt: skip


class AfterhackMCP(MCPServer):
    """The SDK's server, whose refusal of malformed arguments is the API's invalid_input error, in words."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as error:
            tool = self._tool_manager.get_tool(name)
            if tool is None:
                return _result({"error": "not_found", "detail": f"There is no tool called {name[:60]!r}."}, error=True)
            if not isinstance(error.__cause__, ValidationError):
                logger.error("the MCP tool %s failed", name, exc_info=error)
                return _result({"error": "internal_error", "detail": INTERNAL_ERROR}, error=True)
            code, detail = refusal_of(tool.fn_metadata.arg_model.model_fields, error.__cause__.errors())
            return _result({"error": code, "detail": detail}, error=True)


def build_server() -> AfterhackMCP:
    """The MCP server with Afterhack's tools."""
    server = AfterhackMCP("afterhack", instructions=INSTRUCTIONS, log_level="WARNING")
    for tool in TOOLS:
        # The docstring on one line, as an agent reads it, and the one sentence about the session.
        description = " ".join(f"{tool.__doc__ or ''} {SESSION_HINT}".split())
        server.add_tool(tool, description=description, structured_output=False)
    return server
