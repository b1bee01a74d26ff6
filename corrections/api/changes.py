"""JSON API of the changes of belief (docs/history.md): every change of a claim's, decision's or action's status in
a window of time, with its cause and actor; with `cited_by=me`, the changes to what the caller relied on since a
cursor, each with its next step (docs/api.md, "What changed in what you relied on")."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from django.http import HttpRequest
from ninja import Field, Query, Router, Schema

from afterhack.clock import moment_iso
from afterhack.errors import UserError
from afterhack.lists.cursors import MAX_CURSOR_CHARS, Page, PageIn
from afterhack.schemas import (
    MAX_MOMENT_CHARS,
    IdOut,
    PathId,
    Refuse,
    Text,
    Timestamp,
    errors,
    moment_described,
    moment_refused,
)
from agents.statuses import ActionStatus, DecisionStatus
from claims.statuses import ClaimStatus
from corrections.selectors import changes as changes_selectors
from corrections.selectors import relied_on as relied_on_selectors
from corrections.statuses import NextStep
from workspaces.access import get_workspace_for_user
from workspaces.models import Workspace

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
    cited_by: Annotated[
        Literal["me"] | None,
        Field(
            description="`me`: only the changes to the claims and decisions you relied on (your decisions, the claims "
            "they cite, the claims you made, the claims your agent runs and MCP sessions retrieved), each with its "
            "`next_step`, from `since` on (else from `from`, else from 7 days ago), and `resume`: where to go on from "
            "at your next session."
        ),
        Refuse(words="“cited_by” can only be “me”: the changes to what you relied on."),
    ] = None
    since: Annotated[
        Text | None,
        Field(
            max_length=MAX_CURSOR_CHARS,
            description="With `cited_by=me`: the previous answer's `next` (the rest, now) or `resume` (at your next "
            "session, for what changed meanwhile).",
        ),
        Refuse(words="“since” must be the `next` or `resume` value of an earlier answer, as it was given."),
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


class NextStepOut(Schema):
    do: NextStep = Field(
        description="use_claim (cite `claim_id` instead), stop_citing (it no longer holds), cite_now (approved), "
        "recheck_decision (`decision_id` lost its support), use_decision (rely on `decision_id`, which replaced it), "
        "drop_decision (dismissed: do not act on it), see_later_change (it changed again since), or nothing."
    )
    text: str = Field(description="The same in words.")
    claim_id: IdOut | None = Field(default=None, description="use_claim: the claim that replaced it, current.")
    statement: str | None = Field(default=None, description="use_claim: that claim's statement.")
    decision_id: IdOut | None = Field(default=None, description="The decision to re-check, to use instead, or to drop.")
    title: str | None = Field(default=None, description="That decision's title.")


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
    next_step: NextStepOut | None = Field(default=None, description="With `cited_by=me` only: what to do about it.")


class ChangesPage(Page[ChangeOut]):
    resume: str | None = Field(
        default=None,
        description="With `cited_by=me` only, never null then: where to go on from at your next session (pass it as "
        "`since`); the position after the last change given.",
    )


@router.get(
    "/{ws_id}/changes",
    operation_id="corrections_api_change_list",
    response={200: ChangesPage, **errors(401, 404, 422, 503)},
    exclude_unset=True,
)
def change_list(request: HttpRequest, ws_id: PathId, window: Query[ChangesIn]) -> Any:
    """Every change of belief (a claim's, decision's or action's status) from `from` up to `to`, oldest first, with
    its cause and actor; the changes one write made share its `at` and come by kind, then id. 422 if a moment is
    not ISO 8601 or `from` is after `to`, or for a cursor given out for another window.

    With `cited_by=me`: the changes to the claims and decisions you relied on, after `since` (the `next` of the
    previous answer; `cursor` is read as it too), else from `from`, else from 7 days ago, each with its
    `next_step`; `next` is null on the last page, as on every list, `resume` is where to go on from at the next
    session, and `count` counts the changes from this page's start on. 422 in words for a `since` not given to you here, or for `to` (the list goes up to now)."""
    workspace = get_workspace_for_user(request.user, ws_id)
    start = "" if window.start is None else moment_iso(window.start, name="from", day_starts=True)
    if window.cited_by is not None:
        return _relied_on(request, workspace, window, start)
    if window.since is not None:
        raise UserError("“since” goes with “cited_by=me”; to page through every change, pass the `next` as “cursor”.")
    end = "" if window.end is None else moment_iso(window.end, name="to")
    page = changes_selectors.changes_page(
        workspace=workspace, start=start, end=end, limit=window.limit, cursor=window.cursor
    )
    return page.answer(lambda change: change.record())


def _relied_on(request: HttpRequest, workspace: Workspace, window: ChangesIn, start: str) -> Any:
    """`GET …/changes?cited_by=me`: the changes to what the caller relied on, each with its next step."""
    if window.end is not None:
        raise UserError("With “cited_by=me” the changes go up to now: leave out “to”.")
    if window.since is not None and window.cursor is not None and window.since != window.cursor:
        raise UserError("Give the previous answer's `next` once, as “since” (or as “cursor”), not two different ones.")
    since = window.since if window.since is not None else window.cursor
    page = relied_on_selectors.relied_on_page(
        workspace=workspace, user=request.user, since=since, start=start, limit=window.limit
    )
    return page.answer()
