"""JSON API of the W3C PROV export (docs/prov.md): a claim's or decision's because-chain, or the whole workspace, as
PROV-JSON, Turtle or PROV-N."""

from __future__ import annotations

from typing import Annotated, Any

from django.http import HttpRequest, HttpResponse
from ninja import Field, Query, Router

from afterhack.errors import UserError
from afterhack.schemas import Input, PathId, Refuse, Text, errors
from corrections.selectors import prov as prov_selectors
from workspaces.access import get_workspace_for_user

router = Router()


class ProvIn(Input):
    root: Annotated[
        Text | None,
        Field(max_length=100, description="A claim or decision id: export its because-chain; leave out for the whole "
              "workspace."),
        Refuse(words="“root” must be the id of a claim or a decision of this workspace."),
    ] = None  # fmt: skip
    format: Annotated[
        prov_selectors.ProvFormat,
        Field(description="PROV-JSON (json), Turtle (ttl) or PROV-N (provn)."),
        Refuse(words="“format” must be json, ttl or provn."),
    ] = prov_selectors.ProvFormat.JSON
    as_of: Annotated[
        Text | None,
        Field(
            max_length=100,
            description="Not answered: the export is of the chain as it stands, each entity with when it was made; "
            "read the past with `as_of` on claims, decisions and actions, or GET …/changes.",
        ),
    ] = None


# PROV-JSON (https://www.w3.org/submissions/prov-json/): the prefixes, then each kind of record by its id.
PROV_RECORD_KINDS = [
    "entity", "activity", "agent", "wasGeneratedBy", "used", "wasInvalidatedBy", "wasDerivedFrom",
    "wasAttributedTo", "wasAssociatedWith", "actedOnBehalfOf",
]  # fmt: skip
PROV_RECORDS = {
    "type": "object",
    "additionalProperties": {"type": "object", "additionalProperties": True, "description": "A record's attributes."},
}
PROV_JSON = {
    "type": "object",
    "description": "A PROV-JSON document.",
    "required": ["prefix"],
    "properties": {
        "prefix": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Namespaces."},
        **{kind: {**PROV_RECORDS, "description": f"The {kind} records, by id."} for kind in PROV_RECORD_KINDS},
    },
}
PROV_MEDIA = {
    "application/json": {"schema": PROV_JSON},
    "text/turtle": {"schema": {"type": "string", "description": "The PROV-O graph in Turtle."}},
    "text/provenance-notation": {"schema": {"type": "string", "description": "A PROV-N document."}},
}


@router.get(
    "/{ws_id}/prov",
    operation_id="corrections_api_prov_export",
    response={200: Any, **errors(401, 404, 422, 503)},
    openapi_extra={"responses": {200: {"description": "The because-chain as W3C PROV.", "content": PROV_MEDIA}}},
)
def prov_export(request: HttpRequest, ws_id: PathId, params: Query[ProvIn]) -> Any:
    """The because-chain of `root` (a claim or decision: what it rests on down to the sources, what rests on it,
    and the extractions, agent runs and corrections that made or invalidated any of it), or the whole workspace,
    as W3C PROV (docs/prov.md). 422 for a root that is not a claim or decision here, or when the workspace holds
    more than 10,000 nodes (the most one export may hold)."""
    workspace = get_workspace_for_user(request.user, ws_id)
    if params.as_of is not None:
        raise UserError(
            "The PROV export is of the because-chain as it stands (each entity with when it was made, each "
            "correction with when and by whom) and cannot answer “as_of”: read the past with “as_of” on claims, "
            "decisions and actions, or list what changed with GET …/changes."
        )
    export = prov_selectors.prov_export(workspace=workspace, root=params.root, form=params.format)
    return HttpResponse(export.text, content_type=export.content_type)
