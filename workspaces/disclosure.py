"""What an audit event may show to whom: the one rule behind the staff audit's pages, its CSV and the Django admin.

Staff audit the trail and the correction history of every workspace, but read a workspace's content only as its
members do: as a member, or with the permission to read every workspace (workspaces.models.AUDIT_EVERY_WORKSPACE; a
superuser does not have it by being one). To anyone else an event of that workspace says who did what, when and to
which ids, and a correction what it changed (from, to, why, by whom, and what lost support); the titles, texts,
quotes and questions it names are withheld, in words. Events about people, roles, tokens, sessions and workspaces
(their names included) are whole for every reader, and so are events that belong to no workspace.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from functools import reduce
from operator import or_
from typing import Any
from uuid import UUID

from django.db.models import CharField, F, Func, JSONField, Q, Value
from django.db.models.fields.json import KeyTransform

from afterhack.ids import parse_id
from workspaces.models import AuditEvent

WITHHELD = "withheld: not a member"

# Events about who may do what: people's accounts, groups and permissions, API tokens, memberships. Whole for every
# reader, and where the audit's "person affected" filter looks for its person (workspaces/selectors.py).
ACCESS_NAMESPACES = ("member", "token", "user", "group")
# Events that name no workspace content (who may do what, MCP sessions, the workspace and its name, the demo, the
# embeddings model): whole for every reader. Any other verb is withheld by default, a new one included.
WHOLE_NAMESPACES = (*ACCESS_NAMESPACES, "workspace", "mcp", "demo")
WHOLE_VERBS = frozenset({"claims.embedded"})
CORRECTION = "correction.applied"

# How an event reads when what it names is withheld (its ids stay on its page and in the CSV).
WITHHELD_WORDS = {
    "source.added": "added a source (title withheld: not a member)",
    "extraction.requested": "asked for claims to be extracted from a source (title withheld: not a member)",
    "source.retracted": "retracted a source (title withheld: not a member)",
    "source.versioned": "added a new version of a source (title withheld: not a member)",
    "claim.added": "added a claim (text withheld: not a member)",
    "claim.derived": "derived a claim (text withheld: not a member)",
    "decision.created": "created a decision (title withheld: not a member)",
    "decision.rejustified": "gave a decision a new justification (title withheld: not a member)",
    "decision.revised": "revised a decision into a new one (title withheld: not a member)",
    "decision.dismissed": "dismissed a decision (title withheld: not a member)",
    "action.created": "added an action (title withheld: not a member)",
    "action.done": "marked an action done (title withheld: not a member)",
    "action.cancelled": "cancelled an action (title withheld: not a member)",
    "action.reopened": "reopened an action (title withheld: not a member)",
    "agent.asked": "asked the agent a question (question withheld: not a member)",
}

# Payload fields whose text is the app's own vocabulary (an enum's value), never typed by a person or a model.
VOCABULARY_FIELDS = frozenset({"agent", "origin", "actions", "extractor"})
# What a correction's recorded impact names that the correction changed: shown with their titles. The rest of the
# impact (decisions it left standing and what keeps them up, supports restating it) is untouched: ids only.
TOUCHED = ("decisions_needing_review", "actions_held", "claims_unsupported")
UNTOUCHED = ("decisions_still_supported", "restating")


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
    return verb in WHOLE_VERBS or verb.split(".", 1)[0] in WHOLE_NAMESPACES


def in_namespaces(namespaces: Collection[str]) -> Q:
    """The events whose verb is in one of these namespaces (`user` for `user.created`), as a query."""
    return reduce(or_, (Q(verb__startswith=namespace + ".") for namespace in namespaces))


def event_shown(event: AuditEvent, *, reads_workspace: bool, corrected_from: str | None = None) -> ShownEvent:
    """The event as a reader sees it who may (`reads_workspace`) or may not read its workspace's content. The staff
    audit gives a correction what it corrected (`corrected_from`, read from the correction: '' where unknown), and
    the correction then says from, to and why."""
    if event.verb == CORRECTION:
        return _correction(event, reads_workspace=reads_workspace, corrected_from=corrected_from)
    if reads_workspace or event.workspace_id is None or is_whole(event.verb):
        return ShownEvent(event.summary, event.target, event.payload, withheld=False)
    words = WITHHELD_WORDS.get(event.verb) or f"did “{event.kind}” (what it names is withheld: not a member)"
    return ShownEvent(words, f"({WITHHELD})", _ids_only(event.payload), withheld=True)


def _correction(event: AuditEvent, *, reads_workspace: bool, corrected_from: str | None) -> ShownEvent:
    """A correction's from → to, why and by whom are every staff reader's; its cited quote and the titles of what
    it left untouched are its workspace's readers' alone."""
    payload = event.payload if reads_workspace else _correction_payload(event.payload)
    if corrected_from is None:
        return ShownEvent(event.summary, event.target, payload, withheld=not reads_workspace)
    reason = event.payload.get("reason")
    why = f" (why: “{reason}”)" if isinstance(reason, str) and reason else ""
    what = f"corrected “{corrected_from}” to “{event.target}”" if corrected_from else event.summary
    return ShownEvent(what + why, event.target, payload, withheld=not reads_workspace)


def _correction_payload(payload: dict[str, Any]) -> dict[str, Any]:
    return {
        key: value if key in ("statement", "reason") else impact_shown(value) if key == "impact" else _ids_only(value)
        for key, value in payload.items()
    }


def impact_shown(impact: Any) -> Any:
    """A correction's recorded impact as a reader who may not read its workspace sees it: what it changed whole,
    what it left standing as ids."""
    if not isinstance(impact, dict):
        return _ids_only(impact)
    return {key: value if key in TOUCHED else _ids_only(value) for key, value in impact.items()}


class _IdsAt(Func):
    """The ids a JSON path finds in an event's payload (`$.impact.restating[*].id`), as one JSON array."""

    function = "jsonb_path_query_array"
    template = "%(function)s(%(expressions)s::jsonpath)"
    output_field = JSONField()


def impact_columns() -> dict[str, Any]:
    """A correction event's recorded impact by the rule of `impact_shown`, as columns for a query to read instead of
    the payload: what the correction touched whole, each list of what it left untouched as its ids, and
    `impact_type` ('object' when there is an impact). The untouched titles and the payload's quotes never leave the
    database."""
    impact = KeyTransform("impact", "payload")
    return {
        "impact_type": Func(impact, function="jsonb_typeof", output_field=CharField()),
        **{key: KeyTransform(key, impact) for key in TOUCHED},
        **{key: _IdsAt(F("payload"), Value(f"$.impact.{key}[*].id")) for key in UNTOUCHED},
    }


def _ids_only(value: Any, field: str = "") -> Any:
    """The value with its ids, numbers and vocabulary kept and any other text withheld."""
    if isinstance(value, dict):
        return {key: _ids_only(inner, key) for key, inner in value.items()}
    if isinstance(value, list):
        return [_ids_only(inner, field) for inner in value]
    if isinstance(value, str):
        return value if parse_id(value) or field in VOCABULARY_FIELDS else WITHHELD
    return value


def shown_whole(readable: Collection[UUID] | None) -> Q:
    """The events whose target a reader of the workspaces `readable` (None: every workspace) may read, as a query:
    what a search of the audit's words may match, so a search is no way around the rule."""
    if readable is None:
        return Q()
    whole = in_namespaces(WHOLE_NAMESPACES)
    return (
        Q(workspace__isnull=True) | Q(workspace_id__in=list(readable)) | Q(verb__in=[*WHOLE_VERBS, CORRECTION]) | whole
    )
