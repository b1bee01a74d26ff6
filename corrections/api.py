"""JSON API: correction preview, apply, history (API.md §2, corrections)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Router, Schema
from ninja.responses import Status

from afterhack.api import ErrorOut
from corrections import graph as corrections_graph
from corrections import services
from workspaces.access import get_rw_workspace_for_user, get_workspace_for_user

router = Router(tags=["corrections"])

ERRORS = {401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 422: ErrorOut}


class PreviewIn(Schema):
    statement: Any = None


class ApplyIn(Schema):
    statement: Any = None
    reason: Any = None
    revision: Any = None
    idempotency_key: Any = None


@router.post("/{ws_id}/claims/{claim_id}/correction-preview", response={200: dict, **ERRORS})
def correction_preview(request: HttpRequest, ws_id: str, claim_id: str, payload: PreviewIn) -> Any:
    """What correcting the claim would do: decisions needing review or still supported, actions held, claims unsupported."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    plan = services.preview(workspace=workspace, claim_id=claim_id, statement=payload.statement)
    return {
        "claim_id": plan.claim.id, "revision": plan.revision, "affected": plan.impact.as_json(),
        "still_supported_by": plan.impact.still_supported_by,
    }  # fmt: skip


@router.post("/{ws_id}/claims/{claim_id}/corrections", response={200: dict, 201: dict, **ERRORS})
def correction_apply(request: HttpRequest, ws_id: str, claim_id: str, payload: ApplyIn) -> Any:
    """Applies the correction previewed at `revision`; the same idempotency_key again answers already_applied."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    outcome = services.apply(
        workspace=workspace, claim_id=claim_id, statement=payload.statement, reason=payload.reason,
        revision=payload.revision, idempotency_key=payload.idempotency_key, actor=request.user,
    )  # fmt: skip
    body = {
        "correction_id": outcome.correction_id, "status": outcome.status,
        "replacement_claim_id": outcome.replacement_claim_id, "affected": outcome.affected,
    }  # fmt: skip
    return Status(201 if outcome.status == "applied" else 200, body)


@router.get("/{ws_id}/corrections", response={200: list[dict], **ERRORS})
def correction_list(request: HttpRequest, ws_id: str) -> Any:
    """Every correction of the workspace, newest first."""
    workspace = get_workspace_for_user(request.user, ws_id)
    return [
        {
            "id": c.id,
            "claim_id": c.claim_id,
            "replacement_claim_id": c.replacement_claim_id,
            "statement": c.statement,
            "reason": c.reason,
            "actor": c.actor,
            "applied_at": c.applied_at,
            "affected": c.affected,
        }
        for c in corrections_graph.correction_list(workspace=workspace)
    ]


class VersionIn(Schema):
    text: Any = None


def change_out(change: services.EvidenceChange) -> dict[str, Any]:
    return {
        "version": change.version,
        "moved": change.moved,
        "retracted": change.retracted,
        "affected": change.affected,
    }


@router.post("/{ws_id}/sources/{source_id}/versions", response={201: dict, **ERRORS})
def source_new_version(request: HttpRequest, ws_id: str, source_id: str, payload: VersionIn) -> Any:
    """A new version of the source: claims whose quote is still there move to it, the others are retracted and propagated."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    return Status(
        201,
        change_out(
            services.source_new_version(workspace=workspace, source_id=source_id, text=payload.text, actor=request.user)
        ),
    )


@router.post("/{ws_id}/sources/{source_id}/retract", response={200: dict, **ERRORS})
def source_retract(request: HttpRequest, ws_id: str, source_id: str) -> Any:
    """Retracts the source: its claims are retracted and what rested on them propagated."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    return change_out(services.source_retract(workspace=workspace, source_id=source_id, actor=request.user))
