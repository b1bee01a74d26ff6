"""What changed in what a person relied on, with what to do about each change (`GET …/changes?cited_by=me` and the
MCP tool what_changed; docs/api.md, "What changed in what you relied on"). What counts as relied on, and the one
query that reads it, are corrections/graph/relied_on.py."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.core import signing

from afterhack.errors import UserError
from afterhack.history_graph import ChangeCause, ChangeKind
from afterhack.lists.cursors import CURSOR_SALT
from agents.statuses import DecisionStatus
from claims.statuses import ClaimStatus
from corrections.graph import relied_on as relied_on_graph
from corrections.graph.relied_on import ReliedChange
from corrections.statuses import NextStep
from workspaces.models import Workspace
from workspaces.services.audit import actor_name

# Without `since` (or `from`), the changes of the last FEED_DAYS days.
FEED_DAYS = 7

BAD_SINCE = (
    "“since” must be the `next` or `resume` of an earlier answer to GET …/changes?cited_by=me (or of what_changed) in this "
    "workspace, for you, as it was given: leave it out to start with the changes of the last 7 days."
)
SINCE_AND_FROM = "Give “since” (where the previous answer ended) or “from” (a moment to start at), not both."


@dataclass(frozen=True)
class ReliedPage:
    """A page of changes to what the caller relied on, each as the API answers it (the change and its `next_step`);
    `next`, the cursor of the rest when more changes follow now (null on the last page, as every list's: a pager
    that follows `next` stops); `resume`, never null, where to go on from at the next session (the position after
    the last change given, or the one asked for when none was); and how many changes there are from the page's
    start on."""

    results: list[dict[str, Any]]
    next: str | None
    count: int
    resume: str

    def answer(self) -> dict[str, Any]:
        return {"results": self.results, "next": self.next, "count": self.count, "resume": self.resume}


def _scope(workspace: Workspace, me: str) -> str:
    return f"{CURSOR_SALT}:changes:cited_by:{workspace.id}:{me}"


def _position(workspace: Workspace, me: str, since: str | None, start: str) -> tuple[str, str, str]:
    if since is not None and start:
        raise UserError(SINCE_AND_FROM)
    if since is None:
        return (start or (datetime.now(UTC) - timedelta(days=FEED_DAYS)).isoformat(timespec="microseconds"), "", "")
    try:
        at, kind, node_id = signing.loads(since, salt=_scope(workspace, me))
    except (signing.BadSignature, TypeError, ValueError):
        raise UserError(BAD_SINCE) from None
    return str(at), str(kind), str(node_id)


def relied_on_page(
    *, workspace: Workspace, user: Any, since: str | None = None, start: str = "", limit: int
) -> ReliedPage:
    """The first `limit` changes, oldest first, to the claims and decisions `user` (their agent runs and MCP
    sessions) relied on, after the position `since` (a `next` given before), else from `start` (a moment as
    afterhack.clock.moment_iso gives it), else from FEED_DAYS days ago. UserError in words for a `since` this
    list did not give to this user in this workspace, or for both `since` and `start`."""
    me = actor_name(user)
    position = _position(workspace, me, since, start)
    # A change's moment is its writer's, taken before its graph write: one taken a little earlier may commit a
    # little later. Changes are listed once they are AFTERHACK_CHANGES_SETTLE_SECONDS old, so a `resume` never
    # passes one that is still on its way.
    settled = (datetime.now(UTC) - timedelta(seconds=settings.AFTERHACK_CHANGES_SETTLE_SECONDS)).isoformat(
        timespec="microseconds"
    )
    read = relied_on_graph.relied_on_changes(workspace=workspace, me=me, after=position, limit=limit, settled=settled)
    if read.changes:
        last = read.changes[-1].change
        position = (last.at, str(last.kind), last.id)
    following = signing.dumps(list(position), salt=_scope(workspace, me))
    more = read.total > len(read.changes)
    return ReliedPage([{**item.change.record(), "next_step": next_step(item)} for item in read.changes],
                      following if more else None, read.total, following)  # fmt: skip


def next_step(item: ReliedChange) -> dict[str, Any]:
    """What the change asks of whoever relied on what changed: `do` (a NextStep), `text` (the same in words) and
    the claim or decision it names, if any."""
    change = item.change
    if item.changed_again:
        return _step(NextStep.SEE_LATER_CHANGE, "It changed again since: its later change says what to do now.")
    if change.kind == ChangeKind.CLAIM:
        return _claim_step(item)
    return _decision_step(item)


def _step(do: NextStep, text: str, **named: str) -> dict[str, Any]:
    return {"do": do, "text": text, **named}


STOP_WHY = {
    ClaimStatus.RETRACTED: "Its source was retracted, or its new version no longer says it",
    ClaimStatus.UNSUPPORTED: "A claim it was derived from no longer holds",
    ClaimStatus.REJECTED: "A reviewer rejected it: it never became citable",
}
SEARCH_AGAIN = ": stop citing it, and search for what holds now."


def _claim_step(item: ReliedChange) -> dict[str, Any]:
    change, replacement = item.change, item.replacement
    if change.to_status == ClaimStatus.SUPERSEDED:
        if replacement is not None and replacement.status == ClaimStatus.CURRENT:
            return _step(
                NextStep.USE_CLAIM,
                f"It was corrected: cite the claim that replaced it instead, “{replacement.text}”.",
                claim_id=replacement.id, statement=replacement.text,
            )  # fmt: skip
        return _step(NextStep.STOP_CITING, "It was corrected, and what replaced it no longer holds" + SEARCH_AGAIN)
    if change.to_status in STOP_WHY:
        return _step(NextStep.STOP_CITING, STOP_WHY[ClaimStatus(change.to_status)] + SEARCH_AGAIN)
    if change.to_status == ClaimStatus.CURRENT and change.from_status == ClaimStatus.PROPOSED:
        return _step(NextStep.CITE_NOW, "A reviewer approved it: it can be cited now.")
    return _step(NextStep.NOTHING, "It still holds (its source has a new version that says it too): nothing to do.")


def _decision_step(item: ReliedChange) -> dict[str, Any]:
    change, replacement = item.change, item.replacement
    if change.cause["kind"] == ChangeCause.DISMISSAL:
        return _step(
            NextStep.DROP_DECISION,
            "A reviewer dismissed it from review and cancelled its open actions: do not act on it.",
            decision_id=change.id, title=item.text,
        )  # fmt: skip
    if change.to_status == DecisionStatus.NEEDS_REVIEW:
        return _step(
            NextStep.RECHECK_DECISION,
            f"It lost its support: re-check “{item.text}” before acting on it (explain shows what it rests on "
            "now), and record a new decision on what holds.",
            decision_id=change.id, title=item.text,
        )  # fmt: skip
    if change.to_status == DecisionStatus.SUPERSEDED and replacement is not None:
        return _step(
            NextStep.USE_DECISION,
            f"A reviewer revised it: rely on the decision that replaced it, “{replacement.text}”.",
            decision_id=replacement.id, title=replacement.text,
        )  # fmt: skip
    return _step(NextStep.NOTHING, "It holds again: nothing to do.")
