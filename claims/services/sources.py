"""Writes of sources: one or a batch (all or none), cut into fragments; the active version a write cites."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from afterhack.clock import now_iso
from afterhack.errors import Conflict, NotFound, UserError, found
from claims.graph import sources as sources_graph
from claims.graph.shapes import Fragment
from claims.statuses import SourceStatus
from claims.text import (
    InvalidSource,
    Span,
    clean_source_text,
    clean_title,
    fragment_spans,
)
from workspaces.models import Workspace
from workspaces.services.audit import actor_name, record_events


class SourceNotFound(NotFound):
    thing = "source"


def fragments_of(fragments: list[Fragment], span: Span) -> list[Fragment]:
    """The fragments a span overlaps (a quote across a fragment boundary has two)."""
    return [f for f in fragments if f.start < span.end and span.start < f.end]


def cut_fragments(text: str) -> list[Fragment]:
    """The text cut into its fragments (paragraphs), each with a fresh id: the units a quote is found in."""
    return [
        Fragment(str(uuid.uuid4()), span.start, span.end, text[span.start : span.end], "document")
        for span in fragment_spans(text)
    ]


def fragment_ids(fragments: list[Fragment], span: Span) -> list[str]:
    """The ids of the fragments a span overlaps."""
    return [f.id for f in fragments_of(fragments, span)]


@dataclass(frozen=True)
class AddedSource:
    id: str
    title: str
    version: int
    sha256: str
    length: int
    fragments: list[dict[str, Any]]


# How many sources one batch may hold (POST /workspaces/{ws}/sources:batch): one graph query writes them all.
MAX_BATCH_SOURCES = 500


class SourcesRefused(InvalidSource):
    """Some sources of a batch cannot be stored, so none is; `errors` says which and why (index, code, message)."""

    def __init__(self, errors: list[dict[str, Any]], total: int) -> None:
        first = errors[0]
        some = "1 source" if len(errors) == 1 else f"{len(errors)} sources"
        super().__init__(
            f"{some} of the {total} cannot be stored, so none was stored; source {first['index']}: {first['message']}"
            + (" (the others are listed in “errors”)." if len(errors) > 1 else "")
        )
        self.extra = {"errors": errors}


@dataclass(frozen=True)
class NewSource:
    """A source ready to be written: cleaned, hashed, cut into fragments, with fresh ids."""

    id: str
    version_id: str
    title: str
    text: str
    sha256: str
    fragments: list[dict[str, Any]]

    def row(self) -> dict[str, Any]:
        """The source as one row of sources_graph.sources_create."""
        return {
            "source_id": self.id, "version_id": self.version_id, "title": self.title, "text": self.text,
            "sha256": self.sha256, "length": len(self.text),
            "fragments": [[f["id"], f["start"], f["end"], f["text"]] for f in self.fragments],
        }  # fmt: skip

    def added(self) -> AddedSource:
        spans = [{"id": f["id"], "start": f["start"], "end": f["end"]} for f in self.fragments]
        return AddedSource(self.id, self.title, 1, self.sha256, len(self.text), spans)

    def audit(self) -> tuple[str, dict[str, Any]]:
        """The target and payload of its `source.added` audit event."""
        payload = {
            "source_id": self.id,
            "sha256": self.sha256,
            "length": len(self.text),
            "fragments": len(self.fragments),
        }
        return self.title, payload


def source_prepare(*, title: object, text: object) -> NewSource:
    """The source as it will be stored (line endings normalised, cut into fragments); InvalidSource if unusable."""
    title = clean_title(title)
    text = clean_source_text(text)
    fragments = [{"id": f.id, "start": f.start, "end": f.end, "text": f.text} for f in cut_fragments(text)]
    sha256 = hashlib.sha256(text.encode()).hexdigest()
    return NewSource(str(uuid.uuid4()), str(uuid.uuid4()), title, text, sha256, fragments)


def source_add(*, workspace: Workspace, title: object, text: object, actor: Any, origin_name: str = "") -> AddedSource:
    """Stores a new source: its text (line endings normalised) as version 1, cut into fragments."""
    return sources_write(
        workspace=workspace, sources=[source_prepare(title=title, text=text)], actor=actor, origin_name=origin_name
    )[0]


def sources_add(
    *,
    workspace: Workspace,
    sources: object,
    actor: Any,
    origin_name: str = "",
    check: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> list[AddedSource]:
    """Stores a batch of 1 to MAX_BATCH_SOURCES sources, each given as {"title", "text"}, all or none: each is
    checked as source_add checks one (after `check`, a caller's own rules: it answers the item's title and text,
    or raises a UserError), and if any cannot be stored SourcesRefused lists every one that cannot (its index,
    code and message) and nothing is written. Then one (atomic) graph query writes them all, and one INSERT
    their audit events (see sources_write). The same title or text twice is two sources, as with source_add;
    the batch's sources share one creation time."""
    if not isinstance(sources, list) or not 1 <= len(sources) <= MAX_BATCH_SOURCES:
        raise InvalidSource(BATCH_SIZE_WORDS)
    prepared, errors = [], []
    for index, item in enumerate(sources):
        try:
            if not isinstance(item, dict):
                raise InvalidSource(ITEM_NOT_AN_OBJECT)
            fields = check(item) if check is not None else item
            prepared.append(source_prepare(title=fields.get("title"), text=fields.get("text")))
        except UserError as error:
            errors.append({"index": index, "code": error.code, "message": str(error)})
    if errors:
        raise SourcesRefused(errors, len(sources))
    return sources_write(workspace=workspace, sources=prepared, actor=actor, origin_name=origin_name)


BATCH_SIZE_WORDS = (
    f'“sources” must be a list of 1 to {MAX_BATCH_SOURCES} sources, each {{"title", "text"}}; '
    "send more in several batches."
)
ITEM_NOT_AN_OBJECT = 'Each source must be a JSON object: {"title", "text"}.'


def sources_write(
    *, workspace: Workspace, sources: list[NewSource], actor: Any, origin_name: str = ""
) -> list[AddedSource]:
    """Writes prepared sources: one graph query for all of them, then their audit events.

    The audit follows the graph write, so there is an audit event only for a source that was stored;
    a crash between the two leaves stored sources without their events, and no answer was given for
    them (the guarantee the audit-first transaction gave: its rows were only committed after the graph
    write). Written after, the events need no transaction held open across the graph write: one
    event is one INSERT committed on its own, one round-trip to PostgreSQL."""
    name = actor_name(actor)
    sources_graph.sources_create(
        workspace=workspace, sources=[s.row() for s in sources], origin_type="document",
        origin_name=origin_name or name, created_by=name, now=now_iso(),
    )  # fmt: skip
    record_events(actor=actor, workspace=workspace, verb="source.added", events=[s.audit() for s in sources])
    return [s.added() for s in sources]


def active_version(workspace: Workspace, source_id: object) -> sources_graph.SourceVersion:
    """The current version of an active source; 404 if there is none, 409 if it was retracted."""
    read = sources_graph.source_get(workspace=workspace, source_id=str(source_id)) if source_id else None
    version = found(read, SourceNotFound())
    if version.status != SourceStatus.ACTIVE:
        raise Conflict("This source has been retracted: it can no longer be cited, extracted from or revised.")
    return version
