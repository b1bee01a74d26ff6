"""What the apps above register with workspaces, so that workspaces names none of their labels, statuses or URLs.

Each app declares its parts in its own `registration.py` and registers them in its `AppConfig.ready()`:
- `AuditVerb`: a verb of the audit trail, its words and kind, the page of what it names, and how it reads to staff
  who may not read its workspace (workspaces/disclosure.py);
- `IndexSet`: the indexes its labels need in every workspace's graph (workspaces/graph.py `graph_create`);
- `AttentionPart`: its counts of what needs attention, one Cypher subquery each for the present and for a moment
  (workspaces/graph.py composes them into one query);
- `DashboardItem` and `MenuItem`: the dashboard's counts and the workspace menu's links, in the order given;
- `PageLink`: a page of its own that a workspaces page links to by the role workspaces gives it (`staff_audit`);
- `EventsAbout`: where the payloads of its audit events name a claim, decision or action (the history page of one
  lists the events about it, workspaces/selectors/events.py `node_events`);
- `Teller`: what an audit verb tells, and whom (its events are written with a `Tell` row: the outbox that
  notifications/outbox.py dispatches to people and webhooks).
The registered parts live in this module's dicts and lists, read by workspaces as they are when it reads them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.db.models import Q

from afterhack.history_graph import ChangeKind

if TYPE_CHECKING:
    from workspaces.models import AuditEvent, Workspace


@dataclass(frozen=True)
class EventPage:
    """The page an event names: a URL name taking `ws_id` and `kwarg`, given the payload's `field` (none: the
    workspace's own page); whether the page can show the past (`?as_of=`, so a past page's links keep their moment);
    whether only the workspace's admins may open it; a list page to fall back on when the URL name is not known."""

    url: str
    field: str = ""
    kwarg: str = ""
    as_of: bool = False
    admins: bool = False
    fallback: str = ""


@dataclass(frozen=True)
class AuditVerb:
    """A verb of the audit trail: its words (a template of the event's target and payload strings), its kind in
    words, the page of what it names, and what staff who may not read its workspace see of it: everything
    (`whole`: it names no workspace content), or the `withheld` words; a verb whose `target` is every reader's keeps
    the `payload_whole` fields (`impact.actions_held` for one inside a map) and says `summary_given(event, before)`
    when the staff audit gives what the thing was before."""

    verb: str
    words: str
    kind: str
    page: EventPage | None = None
    whole: bool = False
    withheld: str = ""
    target_whole: bool = False
    payload_whole: frozenset[str] = frozenset()
    summary_given: Callable[[AuditEvent, str], str] | None = None
    # Payload fields whose text is the app's vocabulary (an enum's value), never typed by a person or a model: every
    # reader sees them, as they see ids and numbers.
    vocabulary: frozenset[str] = frozenset()


@dataclass(frozen=True)
class IndexSet:
    """Indexes every workspace's graph gets: labels looked up by `id`, other (label, property) range indexes, and
    fulltext indexes as (label, property, the procedure call that creates it)."""

    by_id: tuple[str, ...] = ()
    ranges: tuple[tuple[str, str], ...] = ()
    fulltext: tuple[tuple[str, str, str], ...] = ()


@dataclass(frozen=True)
class AttentionPart:
    """An app's counts of what needs attention. `now` are bodies of Cypher `CALL { ... }` subqueries returning the
    integer `columns` between them; `then` return its counts as of `$as_of` (`then_columns`), and `changed` adds map
    entries (Cypher, in `first`, the first change since, and `d`, the node) to each node the history says changed
    since. `params` gives the part's parameters (the app's StrEnums), named apart from other parts'; `read_then(row,
    changed, as_of)` turns the as-of row and the changed nodes into the named counts then. Every query also has
    `$since` (what counts as recent) and, as of a moment, `$as_of`."""

    name: str
    now: tuple[str, ...]
    columns: tuple[str, ...]
    params: Callable[[], Mapping[str, Any]] = dict
    then: tuple[str, ...] = ()
    then_columns: tuple[str, ...] = ()
    changed: str = ""
    read_then: Callable[[Mapping[str, Any], list[Mapping[str, Any]], str], Mapping[str, Any]] | None = None


@dataclass(frozen=True)
class DashboardItem:
    """A count on the dashboard: `count` (an attention column), its words for one and for many, its link (a URL name
    taking `ws_id`, and `query` after it, where `{since}` is the day recent counts start from). In "Needs attention"
    (`attention`) or the totals; `alert` marks it when not zero. As of a moment it shows `then_count` (none: not
    shown) in `then_words`, with the counts by status of `then_by_status`. `shown(workspace, count)`, when given,
    says whether the workspace's dashboard shows it (now or as of a moment, with the count it would show)."""

    count: str
    words: tuple[str, str]
    url: str
    query: str = ""
    attention: bool = False
    alert: bool = False
    order: int = 0
    then_count: str = ""
    then_words: tuple[str, str] | None = None
    then_by_status: str = ""
    shown: Callable[[Workspace, int], bool] | None = None


@dataclass(frozen=True)
class MenuItem:
    """A link of the workspace menu: its label, URL name (taking `ws_id`) and section (the page says which section
    it is in), and a badge: the sum of attention `badge` columns, read aloud as `badge_words` ("{n} held")."""

    label: str
    url: str
    section: str
    order: int = 0
    badge: tuple[str, ...] = ()
    badge_words: tuple[str, str] = ("", "")


@dataclass(frozen=True)
class PageLink:
    """A page of an app above that a workspaces page links to by its role (`name`, one workspaces names, e.g.
    `staff_audit`: where staff read every workspace's audit trail): its URL name, taking no arguments."""

    name: str
    url: str


@dataclass(frozen=True)
class EventsAbout:
    """Where audit events name a claim, decision or action (`kind`): the payload field at `path` (dotted: `a.b` is
    the field b of the map in a) holds its id or, `among`, a list of ids among which it is."""

    kind: ChangeKind
    path: str
    among: bool = False

    def naming(self, node_id: str) -> Q:
        """The events whose payload names the node with this id here."""
        lookup = "payload__" + self.path.replace(".", "__")
        return Q(**{lookup + "__contains": [node_id]}) if self.among else Q(**{lookup: node_id})


# The registered parts, as workspaces reads them.
@dataclass(frozen=True)
class Telling:
    """What one audit event tells. `events`: webhook events as (kind, data), the data only ids and a relative
    `url` (never text: a receiver may serve people of another workspace); `text` and `url`: the one notification a
    person gets of it, in words; `people`: who is told (usernames) and why ("you recorded it"); `about`: the ids
    whose watchers are told too ("you watch it"); `reviewers`: why the workspace's reviewers and admins are told, if
    they are ("" if not). The event's actor is never told of their own act, and only members are told."""

    events: tuple[tuple[str, dict[str, Any]], ...] = ()
    text: str = ""
    url: str = ""
    people: Mapping[str, str] = field(default_factory=dict)
    about: tuple[str, ...] = ()
    reviewers: str = ""
    admins: str = ""


@dataclass(frozen=True)
class Teller:
    """An audit verb that tells: `tell(event)` says what (it may read the graph; it runs in the dispatcher, off the
    request path). Its events get a `Tell` row, written with them."""

    verb: str
    tell: Callable[[AuditEvent], Telling]


EVENT_WORDS: dict[str, str] = {}
EVENT_KINDS: dict[str, str] = {}
VERBS: dict[str, AuditVerb] = {}
INDEXES: list[IndexSet] = []
ATTENTION_PARTS: dict[str, AttentionPart] = {}
DASHBOARD: list[DashboardItem] = []
MENU: list[MenuItem] = []
LINKS: dict[str, PageLink] = {}
EVENTS_ABOUT: list[EventsAbout] = []
TELLERS: dict[str, Teller] = {}
# Called after the commit of a transaction that wrote Tell rows (notifications registers its dispatch task).
TELL_SOON: list[Callable[[], None]] = []


class RegistryConflict(Exception):
    """Raised when two apps register different parts under the same name."""


Part = AuditVerb | IndexSet | AttentionPart | DashboardItem | MenuItem | PageLink | EventsAbout | Teller


def register(*parts: Part) -> None:
    """Registers an app's parts; registering the same part again changes nothing."""
    for part in parts:
        if isinstance(part, AuditVerb):
            _keyed(VERBS, part.verb, part)
            EVENT_WORDS[part.verb] = part.words
            EVENT_KINDS[part.verb] = part.kind
        elif isinstance(part, AttentionPart):
            taken = {c for p in ATTENTION_PARTS.values() if p.name != part.name for c in (*p.columns, *p.then_columns)}
            if taken & {*part.columns, *part.then_columns}:
                raise RegistryConflict(f"attention columns {sorted(taken & {*part.columns, *part.then_columns})}")
            _keyed(ATTENTION_PARTS, part.name, part)
        elif isinstance(part, IndexSet):
            _listed(INDEXES, part)
        elif isinstance(part, DashboardItem):
            _listed(DASHBOARD, part)
            DASHBOARD.sort(key=lambda item: item.order)
        elif isinstance(part, PageLink):
            _keyed(LINKS, part.name, part)
        elif isinstance(part, EventsAbout):
            _listed(EVENTS_ABOUT, part)
        elif isinstance(part, Teller):
            _keyed(TELLERS, part.verb, part)
        else:
            _listed(MENU, part)
            MENU.sort(key=lambda item: item.order)


def unregister(*parts: Part) -> None:
    """Takes registered parts back (a test's own parts, after it)."""
    for part in parts:
        if isinstance(part, AuditVerb):
            for registered in (VERBS, EVENT_WORDS, EVENT_KINDS):
                registered.pop(part.verb, None)
        elif isinstance(part, AttentionPart):
            ATTENTION_PARTS.pop(part.name, None)
        elif isinstance(part, PageLink):
            LINKS.pop(part.name, None)
        elif isinstance(part, Teller):
            TELLERS.pop(part.verb, None)
        else:
            for listed in (INDEXES, DASHBOARD, MENU, EVENTS_ABOUT):
                if part in listed:
                    listed.remove(part)  # type: ignore[arg-type]


def _keyed(registered: dict[str, Any], key: str, part: Any) -> None:
    if registered.get(key, part) != part:
        raise RegistryConflict(f"{key} is registered already, differently")
    registered[key] = part


def _listed(registered: list[Any], part: Any) -> None:
    if part not in registered:
        registered.append(part)


def events_about(kind: ChangeKind) -> list[EventsAbout]:
    """Where the apps' audit events name a node of this kind, in the order registered."""
    return [part for part in EVENTS_ABOUT if part.kind == kind]


def dashboard_items(*, attention: bool) -> list[DashboardItem]:
    """The dashboard's items of one section (what needs attention, or the totals), in order."""
    return [item for item in DASHBOARD if item.attention == attention]


def tells(verb: str) -> bool:
    """Whether events of this verb are told (written with a Tell row)."""
    return verb in TELLERS


def tell_soon() -> None:
    """Asks the dispatcher to tell what was just committed (a beat sweep tells whatever this misses)."""
    for kick in TELL_SOON:
        kick()
