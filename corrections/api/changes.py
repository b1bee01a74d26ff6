"""JSON API of the changes of belief (docs/history.md): every change of a claim's, decision's or action's status in
a window of time, with its cause and actor."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from django.http import HttpRequest
from ninja import Field, Query, Router, Schema

from afterhack.clock import moment_iso
from afterhack.lists.cursors import Page, PageIn
from afterhack.schemas import MAX_MOMENT_CHARS, IdOut, PathId, Text, Timestamp, errors, moment_described, moment_refused
from agents.statuses import ActionStatus, DecisionStatus
from claims.statuses import ClaimStatus
from corrections.selectors import changes as changes_selectors
from workspaces.access import get_workspace_for_user

router = Router()


class ChangesIn(PageIn):
    """Which changes: those from `from` (included) up to `to` (left out), each end optional."""

    start: Annotated[
        Text | None,
        Field(
            alias="from",
            max_length=MAX_MOMENT_CHARS,
            description=moment_described("The first moment listed.", day_starts=True),
        ),
        moment_refused("from"),
    ] = None
    end: Annotated[
        Text | None,
        Field(
            alias="to", max_length=MAX_MOMENT_CHARS, description=moment_described("The moment the list stops before.")
        ),
        moment_refused("to"),
    ] = None


# Every status a change can leave or set: a claim's, a decision's or an action's.
STATUSES = tuple(dict.fromkeys(str(status) for status in (*ClaimStatus, *DecisionStatus, *ActionStatus)))


class ChangeCauseOut(Schema):
    kind: Literal[changes_selectors.CAUSES] = Field(  # type: ignore[valid-type]
        description="What caused it: correction (id: the Correction), retraction (the retracted Source), new_version "
        "(the new SourceVersion), rejustification or dismissal (the decision), revision (the new Decision that "
        "supersedes), agent_run (the AgentRun), person (id null: the actor marked it), migration (id null: the "
        "state found when the history began; from_status null: unknown before)."
    )
    id: IdOut | None = Field(description="The id of what caused it, or null (person, migration).")


class ChangeOut(Schema):
    at: Timestamp = Field(description="When (one write, one moment for every node it changed).")
    kind: Literal[changes_selectors.KINDS] = Field(description="What changed: a claim, a decision or an action.")  # type: ignore[valid-type]
    id: IdOut = Field(description="The id of the claim, decision or action.")
    from_status: Literal[STATUSES] | None = Field(  # type: ignore[valid-type]
        description="The status it left (null: unknown, a migration's baseline)."
    )
    to_status: Literal[STATUSES] = Field(description="The status it was given (the same for a dismissal or a move).")  # type: ignore[valid-type]
    cause: ChangeCauseOut
    actor: str | None = Field(description="The username of who caused it, when a person did.")


@router.get(
    "/{ws_id}/changes",
    operation_id="corrections_api_change_list",
    response={200: Page[ChangeOut], **errors(401, 404, 422, 503)},
)
def change_list(request: HttpRequest, ws_id: PathId, window: Query[ChangesIn]) -> Any:
    """Every change of belief (a claim's, decision's or action's status) from `from` up to `to`, oldest first, with
    its cause and actor; the changes one write made share its `at` and come by kind, then id. 422 if a moment is
    not ISO 8601 or `from` is after `to`, or for a cursor given out for another window."""
    workspace = get_workspace_for_user(request.user, ws_id)
    start = "" if window.start is None else moment_iso(window.start, name="from", day_starts=True)
    end = "" if window.end is None else moment_iso(window.end, name="to")
    page = changes_selectors.changes_page(
        workspace=workspace, start=start, end=end, limit=window.limit, cursor=window.cursor
    )
    return page.answer(lambda change: change.record())
