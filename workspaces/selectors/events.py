"""Reads of the audit trail: the activity list and the staff audit (their filters declared once, with their ORM
query), each event as a row with its words and links, and what happened to one claim, decision or action."""

from __future__ import annotations

import operator
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import datetime
from functools import reduce
from typing import Any
from uuid import UUID

from django.contrib.auth import get_user_model
from django.db.models import Q, QuerySet, Value
from django.db.models.functions import Concat
from django.db.models.lookups import IContains
from django.urls import NoReverseMatch, reverse

from afterhack import history_graph
from afterhack.history_graph import Change, ChangeKind
from afterhack.lists import orm as lists_orm
from afterhack.lists.filters import Criteria, Filter, FilterKind
from afterhack.lists.spec import Listing, ListSpec
from workspaces import registry
from workspaces.disclosure import ACCESS_NAMESPACES, event_shown, in_namespaces, shown_whole
from workspaces.models import EVENT_KINDS, EVENT_WORDS, AuditEvent, Membership, Role, Workspace


def recent_events(*, workspace: Workspace, limit: int = 20) -> QuerySet[AuditEvent]:
    """The workspace's newest audit events."""
    return AuditEvent.objects.filter(workspace=workspace).order_by("-created_at", "-id")[:limit]


# The workspace filter's value for events about accounts rather than a workspace (people, groups, API tokens, MCP).
NO_WORKSPACE = "none"


def event_filters(*, workspaces: list[Workspace] | None = None) -> dict[str, Filter]:
    """The filters of an activity list, each with its ORM condition: by workspace (the staff audit, across
    workspaces), the person who acted (part of the username or full name, any case), the person affected (by a change
    of who may do what), kind, dates (inclusive UTC days)."""
    choices = (
        *((str(w.id), w.name) for w in workspaces or []),
        (NO_WORKSPACE, "None (accounts: people, groups, tokens, MCP)"),
    )
    by_workspace = (
        {"workspace": Filter("Workspace", FilterKind.CHOICE, choices, orm=_in_workspace)}
        if workspaces is not None
        else {}
    )
    kinds = tuple(sorted(EVENT_KINDS.items(), key=lambda kind: kind[1]))
    return {
        **by_workspace,
        "actor": Filter("Person", orm=_acted_by),
        "affected": Filter("Person affected", orm=_affecting),
        "kind": Filter("Kind", FilterKind.CHOICE, kinds, orm=lambda verb: Q(verb=verb)),
        "since": Filter("From", FilterKind.DAY, orm=lambda day: Q(created_at__date__gte=day)),
        "until": Filter("To", FilterKind.DAY, orm=lambda day: Q(created_at__date__lte=day)),
    }


def _in_workspace(chosen: str) -> Q:
    """The events of the workspace chosen, or those about accounts rather than a workspace (NO_WORKSPACE)."""
    return Q(workspace__isnull=True) if chosen == NO_WORKSPACE else Q(workspace_id=chosen)


def _acted_by(person: str) -> Q:
    """The events of the people whose username or full name holds `person` (any case)."""
    full_name = Concat("actor__first_name", Value(" "), "actor__last_name")
    return Q(actor_name__icontains=person) | Q(IContains(full_name, person))


def event_spec(name: str, *, workspaces: list[Workspace] | None = None) -> ListSpec:
    """How an activity list pages, sorts (by time) and filters; across `workspaces` for the staff audit."""
    return ListSpec(
        name=name, noun=("event", "events"), sorts={"when": "When"}, default_sort="-when",
        filters=event_filters(workspaces=workspaces), search="Search the summaries",
    )  # fmt: skip


def audit_events(
    spec: ListSpec,
    *,
    criteria: Criteria,
    workspace: Workspace | None = None,
    readable: Collection[UUID] | None = None,
) -> QuerySet[AuditEvent]:
    """The audit events the criteria select with the filters of `spec` (an `event_spec`), in their order (by
    time): of one workspace, or of every one (or the criteria's `workspace`) for staff. The search matches the
    summary's words and what it names, where the reader of the workspaces `readable` (None: every one) may read it
    (workspaces/disclosure.py)."""
    events = AuditEvent.objects.select_related("workspace")
    if workspace is not None:
        events = events.filter(workspace=workspace)
    events = lists_orm.filtered(events, spec, criteria)
    if words := criteria.q.lower():
        verbs = [verb for verb, summary in EVENT_WORDS.items() if words in summary.lower()]
        verbs += [verb for verb, kind in EVENT_KINDS.items() if words in kind.lower()]
        events = events.filter((Q(target__icontains=words) & shown_whole(readable)) | Q(verb__in=verbs))
    direction = "-" if criteria.descending else ""
    return events.order_by(direction + "created_at", direction + "id")


def _affecting(words: str) -> Q:
    """The events that changed what a person may do, for a person named by `words` (part of a username or full
    name, any case): their account's, their groups', tokens' and memberships' events name them (`target`, a
    group's `members`), and creating a workspace made its creator its admin."""
    named = usernames_named(words=words)
    about = Q(target__icontains=words) | Q(target__in=named) | Q(payload__members__icontains=words)
    if named:
        about |= Q(payload__members__has_any_keys=named)
    created = Q(verb="workspace.created") & (Q(actor_name__icontains=words) | Q(actor_name__in=named))
    return (in_namespaces(ACCESS_NAMESPACES) & about) | created


def event_listing(
    spec: ListSpec,
    params: Any,
    *,
    path: str,
    workspace: Workspace | None = None,
    readable: Collection[UUID] | None = None,
) -> Listing[AuditEvent]:
    """The page of audit events the query string asks for (see `audit_events`)."""
    return spec.listing(
        params,
        read=lambda criteria, offset, limit: list(
            audit_events(spec, criteria=criteria, workspace=workspace, readable=readable)[offset : offset + limit]
        ),
        count=lambda criteria: audit_events(spec, criteria=criteria, workspace=workspace, readable=readable).count(),
        path=path,
    )


@dataclass(frozen=True)
class EventRow:
    """An audit event as a list shows it to its reader (workspaces/disclosure.py): the sentence after the person's
    name, what it names (its title) and that thing's page, where the reader may open it ('' otherwise), what it
    recorded, the reader's way into its workspace, and (for staff auditors) the event's own page."""

    event: AuditEvent
    title: str
    url: str = ""
    workspace_url: str = ""
    detail_url: str = ""
    summary: str = ""
    recorded: dict[str, Any] = field(default_factory=dict)
    withheld: bool = False


def event_url(event: AuditEvent, *, admin: bool = False) -> str:
    """The page of what the event names (its verb's registered page, workspaces/registry.py), for a member of its
    workspace ('' for none: tokens, sessions, or a page only the workspace's admins may open, for a reader who is
    not its admin)."""
    verb = registry.VERBS.get(event.verb)
    page = verb.page if verb else None
    if event.workspace_id is None or page is None or (page.admins and not admin):
        return ""
    if not page.field:
        return _reversed(page.url, ws_id=event.workspace_id)
    value = event.payload.get(page.field)
    if not isinstance(value, str) or not value:
        return ""
    return _page_url(page, workspace_id=event.workspace_id, node_id=value)


def page_url(verb: str, *, workspace_id: UUID, node_id: str) -> str:
    """The page of the thing with this id that events of `verb` name ('' when they name none)."""
    registered = registry.VERBS.get(verb)
    page = registered.page if registered else None
    return _page_url(page, workspace_id=workspace_id, node_id=node_id) if page and page.field else ""


def action_url(*, workspace_id: UUID, action_id: str) -> str:
    """An action's page: the page its events name (for corrections' timeline and detail selectors, until they ask agents)."""
    return page_url("action.created", workspace_id=workspace_id, node_id=action_id)


def _page_url(page: registry.EventPage, *, workspace_id: UUID, node_id: str) -> str:
    """The page with this id, or the list page it falls back on while the page's URL name is not known."""
    url = _reversed(page.url, ws_id=workspace_id, **{page.kwarg: node_id})
    return url or (_reversed(page.fallback, ws_id=workspace_id) if page.fallback else "")


def reversed_url(name: str, **kwargs: Any) -> str:
    """The URL of this name with these arguments, or '' when no such URL is known."""
    return _reversed(name, **kwargs)


def _reversed(name: str, **kwargs: Any) -> str:
    try:
        return reverse(name, kwargs=kwargs)
    except NoReverseMatch:
        return ""


def shows_the_past(verb: str) -> bool:
    """Whether the page events of `verb` name can show the past (`?as_of=`, afterhack/as_of.py): a past page's links
    to it keep its moment."""
    registered = registry.VERBS.get(verb)
    return bool(registered and registered.page and registered.page.as_of)


def event_rows(
    events: list[AuditEvent],
    *,
    memberships: dict[UUID, Membership],
    as_of_query: str = "",
    corrected_from: dict[str, str] | None = None,
) -> list[EventRow]:
    """Each event as its reader (a member of the workspaces in `memberships`) may read it, with what it names:
    linked where they may open it, otherwise its title alone, or its content withheld in words where they may not
    read its workspace (workspaces/disclosure.py); a link to a page that can show the past keeps `as_of_query`
    ("?as_of=…"). The staff audit gives `corrected_from` (what each thing an event names was before, by its id: what
    each correction corrected): a verb that says so (its `summary_given`) then says from, to and why."""
    rows = []
    for event in events:
        membership = memberships.get(event.workspace_id) if event.workspace_id else None
        url = event_url(event, admin=membership.role == Role.ADMIN) if membership else ""
        if url and as_of_query and shows_the_past(event.verb):
            url += as_of_query
        workspace_url = reverse("workspaces:dashboard", args=[event.workspace_id]) if membership else ""
        before = None if corrected_from is None else corrected_from.get(str(event.payload.get(_named(event))), "")
        shown = event_shown(event, reads_workspace=membership is not None, corrected_from=before)
        rows.append(EventRow(event, shown.target, url, workspace_url, "", shown.summary, shown.payload, shown.withheld))
    return rows


def _named(event: AuditEvent) -> str:
    """The payload field holding the id of what the event names ('' for none)."""
    registered = registry.VERBS.get(event.verb)
    return registered.page.field if registered and registered.page else ""


# How many people a name filter matches by their full name, at most (a name is for finding someone, not everyone).
MAX_NAMED = 200


def usernames_named(*, words: str) -> list[str]:
    """The usernames of the people whose full name contains `words` (any case): a person filter matches them too."""
    named = get_user_model().objects.annotate(full_name=Concat("first_name", Value(" "), "last_name"))
    return list(named.filter(full_name__icontains=words).values_list("username", flat=True)[:MAX_NAMED])


def audit_event_get(*, event_id: int) -> AuditEvent | None:
    """One audit event with its workspace and person (for staff auditors), or None."""
    return AuditEvent.objects.select_related("workspace", "actor").filter(pk=event_id).first()


def claim_events(*, workspace: Workspace, claim_id: str, until: str = "") -> QuerySet[AuditEvent]:
    """The workspace's audit events about this claim, oldest first (up to `until`, a graph time, when given): its
    creation and the corrections of it, where the apps registered that their events name a claim (`node_events`)."""
    return node_events(workspace=workspace, kind=ChangeKind.CLAIM, node_id=claim_id, until=until)


def node_events(*, workspace: Workspace, kind: ChangeKind, node_id: str, until: str = "") -> QuerySet[AuditEvent]:
    """The workspace's audit events about this claim, decision or action, oldest first (up to `until`, a graph time,
    when given): those whose payload names it where the apps above registered that their events name a node of its
    kind (workspaces/registry.py `EventsAbout`); none when no app registered any."""
    named = [part.naming(node_id) for part in registry.events_about(kind)]
    if not named:
        return AuditEvent.objects.none()
    about = reduce(operator.or_, named)
    return _until(AuditEvent.objects.filter(about, workspace=workspace), until).order_by("created_at", "id")


def _until(events: QuerySet[AuditEvent], until: str) -> QuerySet[AuditEvent]:
    return events.filter(created_at__lte=datetime.fromisoformat(until)) if until else events


def changes_of(*, workspace: Workspace, node_id: str, limit: int = 50) -> list[Change]:
    """The recorded changes of a claim's, decision's or action's status, newest first (docs/history.md)."""
    return history_graph.node_changes(workspace=workspace, node_id=node_id, limit=limit)


def action_events(*, workspace: Workspace, action_id: str, until: str = "") -> QuerySet[AuditEvent]:
    """The workspace's audit events about this action, oldest first (up to `until`, a graph time, when given):
    its creation, its marks, the corrections, retractions and new versions that held it, and the dismissals and
    revisions that cancelled or moved it, where the apps registered that their events name an action
    (`node_events`)."""
    return node_events(workspace=workspace, kind=ChangeKind.ACTION, node_id=action_id, until=until)


def events_until(*, workspace: Workspace, as_of: str, limit: int = 10) -> QuerySet[AuditEvent]:
    """The workspace's newest audit events up to `as_of` (a graph time), newest first."""
    moment = datetime.fromisoformat(as_of)
    return AuditEvent.objects.filter(workspace=workspace, created_at__lte=moment).order_by("-created_at", "-id")[:limit]
