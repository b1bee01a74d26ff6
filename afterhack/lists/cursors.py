"""One way to page every list of the JSON API: `?limit=` (default 50, at most 200) and an opaque
`?cursor=`, answered as {"results", "next", "count"}.

A cursor is the position of the last item given out (for graph lists: its time and id, so a
page starts right after it however many items were added meanwhile), signed with the
project's secret for the one list and filters it was given out for. A cursor that was changed,
or borrowed from another list or filter, is refused in words instead of being read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from django.core import signing
from ninja import Schema
from pydantic import Field

from afterhack.errors import UserError
from afterhack.schemas import Input, Refuse, Text

DEFAULT_LIMIT = 50
MAX_LIMIT = 200
# It names the module cursors were made in before the list toolkit moved here: kept, so a cursor given out
# before the move still reads.
CURSOR_SALT = "afterhack.pagination"
MAX_CURSOR_CHARS = 1_000


class PageIn(Input):
    """Which page of a list: how many items, and where the previous page ended."""

    limit: Annotated[
        int,
        Field(ge=1, le=MAX_LIMIT, description=f"How many items to answer (1 to {MAX_LIMIT})."),
        Refuse(words=f"“limit” must be a whole number from 1 to {MAX_LIMIT}."),
    ] = DEFAULT_LIMIT
    cursor: Annotated[
        Text | None,
        Field(max_length=MAX_CURSOR_CHARS, description="The `next` of the previous page; leave out for the first."),
        Refuse(words="“cursor” must be the `next` value of a previous page, as it was given."),
    ] = None


class Page[T](Schema):
    """One page of a list."""

    results: list[T]
    next: str | None = Field(description="The cursor of the next page, or null on the last page.")
    count: int = Field(description="How many items the whole list holds, with the filters given.")


class PresentPageIn(PageIn):
    """A page of a list that shows the present only: an `as_of` is refused in words rather than ignored (an
    auditor must not take today's list for the past's)."""

    as_of: Annotated[
        Text | None,
        Field(
            max_length=MAX_CURSOR_CHARS,
            description="Not answered by this list, which shows the present: read one item with `as_of`, or list "
            "what changed with GET …/changes.",
        ),
    ] = None

    def present_only(self) -> None:
        if self.as_of is not None:
            raise UserError(
                "This list shows the present and cannot answer “as_of”: read each claim, decision or action with "
                "“as_of”, search claims with it, or list what changed between two moments with GET …/changes."
            )


class InvalidCursor(UserError):
    """A cursor this API did not give out for this list."""


@dataclass(frozen=True)
class Paged[Item]:
    """A page of domain objects, ready to be answered through `answer`."""

    items: list[Item]
    next: str | None
    count: int

    def answer(self, out: Callable[[Item], Any]) -> dict[str, Any]:
        """The page in the API's shape, each item shaped by `out`."""
        return {"results": [out(item) for item in self.items], "next": self.next, "count": self.count}


def position_after(cursor: str | None, *, scope: str) -> Any:
    """Where the page that `cursor` asks for starts (after this position), or None for the first page.

    `scope` names the list and its filters, e.g. "decisions:<workspace id>:needs_review".
    """
    if cursor is None:
        return None
    try:
        return signing.loads(cursor, salt=f"{CURSOR_SALT}:{scope}")
    except signing.BadSignature:
        raise InvalidCursor(
            "This cursor was not given out for this list with these filters (or it was changed): "
            "start again without a cursor."
        ) from None


def paged[Item](
    items: list[Item], *, limit: int, count: int, scope: str, position: Callable[[Item], Any]
) -> Paged[Item]:
    """The page made of up to `limit` items, from up to limit + 1 read after the cursor's position."""
    page, more = items[:limit], len(items) > limit
    following = signing.dumps(position(page[-1]), salt=f"{CURSOR_SALT}:{scope}") if more and page else None
    return Paged(page, following, count)


def page_of[Item](
    *,
    scope: str,
    cursor: str | None,
    limit: int,
    read: Callable[[Any, int], list[Item]],
    count: Callable[[], int],
    position: Callable[[Item], Any],
) -> Paged[Item]:
    """A page of a keyset-paged list: `read(after, n)` reads n items after a position (None: from the
    start), `count()` counts the whole list, `position(item)` is where a page ending at item ends."""
    rows = read(position_after(cursor, scope=scope), limit + 1)
    return paged(rows, limit=limit, count=count(), scope=scope, position=position)


def newest_first(item: Any) -> list[Any]:
    """Where a page of a list kept in order of creation ends: the item's time, then its id."""
    return [item.created_at, item.id]


def workspace_page[Item](
    name: str,
    *,
    workspace: Any,
    cursor: str | None,
    limit: int,
    read: Callable[..., list[Item]],
    count: Callable[..., int],
    position: Callable[[Item], Any] = newest_first,
    **filters: str,
) -> Paged[Item]:
    """A page of one of a workspace's graph lists: `read(workspace=, limit=, after=, **filters)` and
    `count(workspace=, **filters)`; the cursor is scoped to "name:<workspace id>[:<filter value>...]"."""
    return page_of(
        scope=":".join([name, str(workspace.id), *filters.values()]), cursor=cursor, limit=limit,
        read=lambda after, n: read(workspace=workspace, **filters, limit=n, after=after),
        count=lambda: count(workspace=workspace, **filters),
        position=position,
    )  # fmt: skip
