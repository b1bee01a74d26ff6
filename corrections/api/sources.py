"""JSON API of a source's evidence changing under its claims: a new version (claims whose quote is still there move
to it, the others are retracted) and a retraction, each with what it affected."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Field, Router, Schema
from ninja.responses import Status

from afterhack.schemas import IdOut, Input, PathId, errors
from claims.api.sources import SourceText
from corrections.api.corrections import AffectedOut
from corrections.services import evidence as evidence_services
from workspaces.access import get_rw_workspace_for_user

router = Router()


class VersionIn(Input):
    text: SourceText


class EvidenceChangeOut(Schema):
    version: int | None = Field(description="The new version's number (null when the source was retracted).")
    moved: int = Field(description="How many claims' quotes were found in the new version and moved to it.")
    retracted: list[IdOut] = Field(description="The claims whose quotes went away.")
    affected: AffectedOut


def change_out(change: evidence_services.EvidenceChange) -> dict[str, Any]:
    return {
        "version": change.version,
        "moved": change.moved,
        "retracted": change.retracted,
        "affected": change.affected,
    }


@router.post(
    "/{ws_id}/sources/{source_id}/versions",
    operation_id="corrections_api_source_new_version",
    response={201: EvidenceChangeOut, **errors(401, 403, 404, 409, 422, 503)},
)
def source_new_version(request: HttpRequest, ws_id: PathId, source_id: PathId, payload: VersionIn) -> Any:
    """A new version of the source: claims whose quote is still there move to it, the others are retracted
    and propagated; open flags citing it move with their quote or become obsolete. 409 if the source was retracted;
    422 if the text is unusable or the same as now."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    change = evidence_services.source_new_version(
        workspace=workspace, source_id=source_id, text=payload.text, actor=request.user
    )
    return Status(201, change_out(change))


@router.post(
    "/{ws_id}/sources/{source_id}/retract",
    operation_id="corrections_api_source_retract",
    response={200: EvidenceChangeOut, **errors(401, 403, 404, 409, 503)},
)
def source_retract(request: HttpRequest, ws_id: PathId, source_id: PathId) -> Any:
    """Retracts the source: its claims are retracted and what rested on them propagated, the open flags citing it
    obsolete. 409 if it already was."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    return change_out(evidence_services.source_retract(workspace=workspace, source_id=source_id, actor=request.user))
