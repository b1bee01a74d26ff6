"""What an audit event may show to whom: the one rule behind the staff audit's pages, its CSV and the Django admin.

Staff audit the trail and the correction history of every workspace, but read a workspace's content only as its
members do: as a member, or with the permission to read every workspace (workspaces.models.AUDIT_EVERY_WORKSPACE; a
superuser does not have it by being one). To anyone else an event of that workspace says who did what, when and to
which ids, and a correction what it changed (from, to, why, by whom, and what lost support); the titles, texts,
quotes and questions it names are withheld, in words. Events about people, roles, tokens, sessions and workspaces
(their names included) are whole for every reader, and so are events that belong to no workspace.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from functools import reduce
from operator import or_
from typing import Any
from uuid import UUID

from django.db.models import Q

from afterhack.ids import parse_id
from workspaces import registry
from workspaces.models import AuditEvent

WITHHELD = "withheld: not a member"

# Events about who may do what: people's accounts, groups and permissions, API tokens, memberships. Whole for every
# reader, and where the audit's "person affected" filter looks for its person (workspaces/selectors/events.py).
ACCESS_NAMESPACES = ("member", "token", "user", "group")
# Events that name no workspace content (who may do what, the workspace and its name): whole for every reader, and
# so is each verb an app registers as `whole` (workspaces/registry.py: MCP sessions, the demo, the embeddings model).
# Any other verb is withheld by default, a new one included, in its registered `withheld` words.
WHOLE_NAMESPACES = (*ACCESS_NAMESPACES, "workspace")


class _WithheldWords(Mapping[str, str]):
    """How each registered verb reads when what it names is withheld (its ids stay on its page and in the CSV)."""

    def __getitem__(self, verb: str) -> str:
        registered = registry.VERBS.get(verb)
        if registered is None or not registered.withheld:
            raise KeyError(verb)
        return registered.withheld

    def __iter__(self) -> Iterator[str]:
        return (verb for verb, registered in registry.VERBS.items() if registered.withheld)

    def __len__(self) -> int:
        return sum(1 for _ in self)


WITHHELD_WORDS: Mapping[str, str] = _WithheldWords()


@dataclass(frozen=True)
class ShownEvent:
    """An event as one reader may read it: the sentence after the person's name, what it names, what it recorded
    (withheld values replaced by WITHHELD), and whether anything was withheld."""

    summary: str
    target: str
    payload: dict[str, Any]
    withheld: bool


def is_whole(verb: str) -> bool:
    """Whether events of this verb name no workspace content (whole for every reader)."""
    registered = registry.VERBS.get(verb)
    return bool(registered and registered.whole) or verb.split(".", 1)[0] in WHOLE_NAMESPACES


def in_namespaces(namespaces: Collection[str]) -> Q:
    """The events whose verb is in one of these namespaces (`user` for `user.created`), as a query."""
    return reduce(or_, (Q(verb__startswith=namespace + ".") for namespace in namespaces))


def event_shown(event: AuditEvent, *, reads_workspace: bool, corrected_from: str | None = None) -> ShownEvent:
    """The event as a reader sees it who may (`reads_workspace`) or may not read its workspace's content. The staff
    audit gives what the thing the event names was before (`corrected_from`: what a correction corrected, '' where
    unknown), and a verb that says so then says from, to and why."""
    registered = registry.VERBS.get(event.verb)
    if registered is not None and registered.target_whole:
        return _target_whole(event, registered, reads_workspace=reads_workspace, before=corrected_from)
    if reads_workspace or event.workspace_id is None or is_whole(event.verb):
        return ShownEvent(event.summary, event.target, event.payload, withheld=False)
    words = WITHHELD_WORDS.get(event.verb) or f"did “{event.kind}” (what it names is withheld: not a member)"
    vocabulary = registered.vocabulary if registered is not None else frozenset()
    return ShownEvent(words, f"({WITHHELD})", _ids_only(event.payload, vocabulary=vocabulary), withheld=True)


def _target_whole(
    event: AuditEvent, registered: registry.AuditVerb, *, reads_workspace: bool, before: str | None
) -> ShownEvent:
    """An event whose target (and summary) are every staff reader's: of its payload, a reader who may not read its
    workspace sees the verb's `payload_whole` fields and the ids of the rest (a correction: from → to, why, and what
    lost support are theirs; its cited quote and the titles of what it left untouched are its workspace's readers')."""
    payload = (
        event.payload
        if reads_workspace
        else payload_kept(event.payload, registered.payload_whole, vocabulary=registered.vocabulary)
    )
    summary = event.summary
    if before is not None and registered.summary_given is not None:
        summary = registered.summary_given(event, before)
    return ShownEvent(summary, event.target, payload, withheld=not reads_workspace)


def payload_kept(
    payload: dict[str, Any], whole: Collection[str], *, vocabulary: Collection[str] = frozenset()
) -> dict[str, Any]:
    """The payload with the `whole` fields kept (`impact.actions_held`: one inside a map) and the rest as ids (and
    the verb's `vocabulary` fields)."""
    return {key: _kept(key, value, whole, vocabulary) for key, value in payload.items()}


def _kept(key: str, value: Any, whole: Collection[str], vocabulary: Collection[str]) -> Any:
    if key in whole:
        return value
    inner = {name.split(".", 1)[1] for name in whole if name.startswith(key + ".")}
    if inner and isinstance(value, dict):
        return {name: item if name in inner else _ids_only(item, vocabulary=vocabulary) for name, item in value.items()}
    return _ids_only(value, key, vocabulary=vocabulary)


def _ids_only(value: Any, field: str = "", *, vocabulary: Collection[str] = frozenset()) -> Any:
    """The value with its ids, numbers and the verb's `vocabulary` fields kept and any other text withheld."""
    if isinstance(value, dict):
        return {key: _ids_only(inner, key, vocabulary=vocabulary) for key, inner in value.items()}
    if isinstance(value, list):
        return [_ids_only(inner, field, vocabulary=vocabulary) for inner in value]
    if isinstance(value, str):
        return value if parse_id(value) or field in vocabulary else WITHHELD
    return value


def shown_whole(readable: Collection[UUID] | None) -> Q:
    """The events whose target a reader of the workspaces `readable` (None: every workspace) may read, as a query:
    what a search of the audit's words may match, so a search is no way around the rule."""
    if readable is None:
        return Q()
    whole = in_namespaces(WHOLE_NAMESPACES)
    verbs = [verb for verb, registered in registry.VERBS.items() if registered.whole or registered.target_whole]
    return Q(workspace__isnull=True) | Q(workspace_id__in=list(readable)) | Q(verb__in=verbs) | whole
