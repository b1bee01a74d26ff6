"""The timeline of the workspace's changes of belief (filtered, paged) and the diff between two moments, each
change with what its cause names (docs/history.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.urls import reverse

from afterhack.cypher import hold_members
from afterhack.history_graph import ChangeCause, ChangeKind
from afterhack.lists.filters import Criteria
from afterhack.templatetags.afterhack import in_words
from corrections.graph import timeline as timeline_graph
from corrections.selectors.suggestion_history import found_words
from workspaces.models import Workspace
from workspaces.selectors import events as event_selectors

# What a change is of, and what caused it, by short names (the timeline's filters are in corrections/lists.py).
CHANGE_KINDS = tuple(ChangeKind)
CLAIM, DECISION_KIND, ACTION = ChangeKind.CLAIM, ChangeKind.DECISION, ChangeKind.ACTION
CORRECTION, RETRACTION, NEW_VERSION = ChangeCause.CORRECTION, ChangeCause.RETRACTION, ChangeCause.NEW_VERSION
REJUSTIFICATION, REVISION, DISMISSAL = ChangeCause.REJUSTIFICATION, ChangeCause.REVISION, ChangeCause.DISMISSAL
AGENT_RUN, PERSON, MIGRATION = ChangeCause.AGENT_RUN, ChangeCause.PERSON, ChangeCause.MIGRATION


@dataclass(frozen=True)
class Named:
    """What a change's cause names, as the pages say it: a correction's statement (and, when it accepted a suggested
    correction, who or what found that: `suggested`, in words), a source's title (with the version's number), a
    decision's title; `source_id` for a retraction or a new version."""

    title: str = ""
    reason: str = ""
    source_id: str = ""
    version: int | None = None
    suggested: str = ""


@dataclass(frozen=True)
class Step:
    """One recorded change of an item, with what its cause names (an empty Named when nothing is found)."""

    at: str
    kind: ChangeKind
    id: str
    title: str
    from_status: str | None
    to_status: str
    cause: str
    cause_id: str | None
    actor: str | None
    migrated: bool
    named: Named
    # A done action's follow-up state set by this change (its status stays done), or None.
    follow_up: str | None = None

    def __post_init__(self) -> None:
        hold_members(self, kind=ChangeKind)


def timeline_actors(criteria: Criteria) -> tuple[str, ...]:
    """The usernames whose full name holds the timeline's person filter (any case): it matches them too (its other
    filters are read as corrections/lists.py declares them)."""
    person = criteria.get("actor").lower()
    return tuple(event_selectors.usernames_named(words=person)) if person else ()


def timeline_count(*, workspace: Workspace, criteria: Criteria) -> int:
    """How many recorded changes the timeline's criteria select."""
    return timeline_graph.timeline_count(workspace=workspace, criteria=criteria, actors=timeline_actors(criteria))


def timeline_page(*, workspace: Workspace, criteria: Criteria, offset: int, limit: int) -> list[Step]:
    """One page of the recorded changes the criteria select, by when (newest first unless asked), each with the
    statement or title of what changed and what its cause names: two queries."""
    rows = timeline_graph.timeline_page(
        workspace=workspace, criteria=criteria, actors=timeline_actors(criteria), offset=offset, limit=limit
    )
    named = _causes_named(workspace, rows)
    return [_step(row, row["kind"], row.get("title") or "", named) for row in rows]


def _causes_named(workspace: Workspace, changes: list[dict[str, Any]]) -> dict[str, Named]:
    wanted: dict[str, set[str]] = {"corrections": set(), "sources": set(), "versions": set(), "decisions": set()}
    where = {
        ChangeCause.CORRECTION: "corrections", ChangeCause.RETRACTION: "sources",
        ChangeCause.NEW_VERSION: "versions", ChangeCause.REVISION: "decisions",
        ChangeCause.REJUSTIFICATION: "decisions", ChangeCause.DISMISSAL: "decisions",
    }  # fmt: skip
    for change in changes:
        if change.get("cause") in where and (cause_id := change.get("cause_id")):
            wanted[where[change["cause"]]].add(str(cause_id))
    found = timeline_graph.causes_named(workspace=workspace, **{k: sorted(v) for k, v in wanted.items()})
    return {
        i: Named(
            title=row.get("title") or "", reason=row.get("reason") or "", source_id=row.get("source_id") or "",
            version=row.get("version"),
            suggested=found_words(row["found_by"], row.get("rule_kind"), row.get("flagged_by")) if row.get("found_by") else "",
        )
        for i, row in found.items()
    }  # fmt: skip


def _step(change: dict[str, Any], kind: ChangeKind | str, title: str, named: dict[str, Named]) -> Step:
    cause_id = change.get("cause_id")
    return Step(
        at=change["at"], kind=ChangeKind(kind), id=change.get("id") or "", title=title, from_status=change.get("from_status"),
        to_status=change["to_status"], cause=change.get("cause") or "", cause_id=cause_id,
        actor=change.get("actor"), migrated=bool(change.get("migrated")),
        named=named.get(str(cause_id), Named()) if cause_id else Named(), follow_up=change.get("follow_up"),
    )  # fmt: skip


@dataclass(frozen=True)
class DiffItem:
    """A claim, decision or action in a diff: its status at the start (None: it did not exist yet, or the
    history began in the window) and at the end, and the changes between (oldest first)."""

    kind: ChangeKind
    id: str
    title: str
    before: str | None
    after: str
    steps: list[Step]
    created_at: str = ""
    created_by: str = ""

    def __post_init__(self) -> None:
        hold_members(self, kind=ChangeKind)


@dataclass(frozen=True)
class Moved:
    """How many items of a kind went from one status to another (before None: the history began)."""

    before: str | None
    after: str
    count: int


@dataclass(frozen=True)
class KindDiff:
    """One kind's part of a diff: counts first (moved, new, changed and back), then the items listed."""

    kind: str
    moved: list[Moved]
    made: int
    back: int
    changed: list[DiffItem]
    came_back: list[DiffItem]
    created: list[DiffItem]

    @property
    def changed_count(self) -> int:
        return sum(m.count for m in self.moved)

    @property
    def empty(self) -> bool:
        return not (self.moved or self.made or self.back)


@dataclass(frozen=True)
class BeliefsDiff:
    """What changed in the workspace's beliefs in [start, end): for each kind (claims, decisions, actions) the items
    whose status at `end` differs from their status at `start`, those that changed and came back, and those made
    in the window. Lists hold at most `limit` items a kind (the counts are exact); `truncated` says when cut."""

    start: str
    end: str
    kinds: list[KindDiff]
    limit: int
    truncated: bool

    @property
    def empty(self) -> bool:
        return all(k.empty for k in self.kinds)


DIFF_LIMIT = 200
# How many changes of one item a diff lists (the latest; a toggled action could have many).
DIFF_STEPS_PER_ITEM = 20


def beliefs_diff(*, workspace: Workspace, start: str, end: str, limit: int = DIFF_LIMIT) -> BeliefsDiff:
    """What changed in our beliefs between `start` and `end` (graph times, start <= at < end): four bounded reads
    (counts of what moved and of what was made, the items themselves, one read of what their causes name)."""
    moved_rows, made = timeline_graph.diff_counts(workspace=workspace, start=start, end=end)
    changed_rows, created_rows = timeline_graph.diff_nodes(workspace=workspace, start=start, end=end, limit=limit)
    changes = [c for row in changed_rows for c in row["changes"]]
    named = _causes_named(workspace, changes)
    items: dict[str, list[DiffItem]] = {kind: [] for kind in ChangeKind}
    back: dict[str, list[DiffItem]] = {kind: [] for kind in ChangeKind}
    for row in changed_rows:
        ordered = sorted(row["changes"], key=lambda c: c["at"])[-DIFF_STEPS_PER_ITEM:]
        steps = [_step({**c, "id": row["id"]}, row["kind"], row["title"], named) for c in ordered]
        item = DiffItem(row["kind"], row["id"], row["title"], row["before"], row["after"], steps)
        (back if row["before"] == row["after"] else items)[row["kind"]].append(item)
    created: dict[str, list[DiffItem]] = {kind: [] for kind in ChangeKind}
    for row in created_rows:
        made_by = str(row["created_by"] or "")
        item = DiffItem(row["kind"], row["id"], row["title"], None, row["status"] or "", [], row["created_at"], made_by)
        created[row["kind"]].append(item)
    for made_list in created.values():
        made_list.sort(key=lambda item: (item.created_at, item.id), reverse=True)
    kinds = []
    for kind in ChangeKind:
        rows = [m for m in moved_rows if m["kind"] == kind]
        moved = sorted(
            (Moved(m["before"], m["after"], int(m["count"])) for m in rows if m["before"] != m["after"]),
            key=lambda m: (-m.count, m.after, m.before or ""),
        )
        came_back = sum(int(m["count"]) for m in rows if m["before"] == m["after"])
        kinds.append(KindDiff(kind, moved, made.get(kind, 0), came_back, items[kind], back[kind], created[kind]))
    listed = len(changed_rows) + len(created_rows)
    truncated = sum(k.changed_count + k.back + k.made for k in kinds) > listed
    return BeliefsDiff(start, end, kinds, limit, truncated)


# -- the rows of the timeline and the diff: each change in words, linked --------------------------------------


@dataclass(frozen=True)
class ChangeRow:
    """A recorded change as a row of the pages: what it is of (linked), the change in words, the cause (linked)."""

    step: Step
    item_url: str
    what: str
    cause: str
    cause_url: str


def _item_url(workspace_id: UUID, kind: str, item_id: str) -> str:
    if kind == CLAIM:
        return reverse("claims:claim", args=[workspace_id, item_id])
    if kind == DECISION_KIND:
        return reverse("agents:decision", args=[workspace_id, item_id])
    return event_selectors.action_url(workspace_id=workspace_id, action_id=item_id)


def _what(step: Step) -> str:
    """The change of status in words: from → to, what happened when the status stays, and where history began."""
    before, after = in_words(step.from_status), in_words(step.to_status)
    if step.from_status is None:
        words = f"{after} (what it was before is not known)"
    elif step.from_status != step.to_status:
        words = f"{before} → {after}"
    elif step.follow_up:
        words = f"{in_words(step.follow_up)}; still {after}"
    elif step.cause == DISMISSAL:
        words = f"dismissed from review; still {after}"
    elif step.cause == NEW_VERSION:
        words = f"found again in the new version; still {after}"
    else:
        words = f"still {after}"
    return f"history began: {words}" if step.migrated or step.cause == MIGRATION else words


def _cause(workspace_id: UUID, step: Step) -> tuple[str, str]:
    """The cause in words, and the page of what it names ('' when there is none)."""
    named, cause_id = step.named, step.cause_id or ""
    if step.cause == CORRECTION and cause_id:
        words = f"correction: “{named.title}”" if named.title else "a correction"
        if named.suggested:
            words += f", from a suggested correction {named.suggested}"
        return words, reverse("corrections:detail", args=[workspace_id, cause_id])
    if step.cause in (RETRACTION, NEW_VERSION):
        title = f"“{named.title}”" if named.title else "its source"
        if step.cause == RETRACTION:
            words = f"source {title} retracted"
        else:
            words = f"version {named.version} of {title}" if named.version else f"a new version of {title}"
        source = named.source_id or (cause_id if step.cause == RETRACTION else "")
        return words, reverse("claims:source", args=[workspace_id, source]) if source else ""
    if step.cause in (REJUSTIFICATION, REVISION, DISMISSAL) and cause_id:
        url = reverse("agents:decision", args=[workspace_id, cause_id])
        if step.cause == REVISION:
            return (f"revised: “{named.title}” replaces it" if named.title else "a revision"), url
        return ("re-justified" if step.cause == REJUSTIFICATION else "dismissed from review"), url
    if step.cause == AGENT_RUN and cause_id:
        return "an agent run", reverse("agents:run", args=[workspace_id, cause_id])
    if step.cause == PERSON:
        return "a person's mark", ""
    if step.cause == MIGRATION:
        return "history began (the state found when the history of changes began)", ""
    return in_words(step.cause) or "—", ""


def change_row(workspace_id: UUID, step: Step) -> ChangeRow:
    cause, cause_url = _cause(workspace_id, step)
    return ChangeRow(step, _item_url(workspace_id, step.kind, step.id), _what(step), cause, cause_url)


@dataclass(frozen=True)
class DiffRow:
    item: DiffItem
    url: str
    steps: list[ChangeRow]


# How each kind is named on the diff (singular, plural).
KIND_NOUNS = {"claim": ("claim", "claims"), "decision": ("decision", "decisions"), "action": ("action", "actions")}


def kind_rows(workspace_id: UUID, kind: KindDiff) -> dict[str, Any]:
    def rows(items: list[DiffItem]) -> list[DiffRow]:
        return [
            DiffRow(
                item, _item_url(workspace_id, item.kind, item.id), [change_row(workspace_id, s) for s in item.steps]
            )
            for item in items
        ]

    return {
        "diff": kind, "noun": KIND_NOUNS[kind.kind], "changed": rows(kind.changed), "came_back": rows(kind.came_back),
        "created": rows(kind.created),
    }  # fmt: skip
