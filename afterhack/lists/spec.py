"""One way to page, sort, filter and search every list a person reads on the pages.

Everything is in the address (`?page=2&sort=-created&status=held&q=budget`), so a list can be
reloaded, bookmarked and shared. A list is described once by a `ListSpec` (its sorts, filters and
page size); `ListSpec.listing(request.GET, read=…, count=…)` reads the asked page and answers a
`Listing` the templates draw with `{% list_filters listing %}`, `{% sort_header listing "key" %}`
and `{% pager listing %}` (afterhack/templatetags/listing.py), inside a section that htmx swaps in place:

    <section id="{{ listing.target }}" hx-boost="true" hx-target="this"
             hx-select="#{{ listing.target }}" hx-swap="outerHTML show:none">

A value the list does not know (a hand-edited address) is not an error page: it is ignored and the
page says so in a sentence (`Listing.notes`). Pages are numbered (offset paging): a reviewer jumps to
"page 4 of 9"; the JSON API keeps its keyset cursors (afterhack/lists/cursors.py) for scripts that walk a
whole list while it grows.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.cache import patch_vary_headers
from django_htmx.http import push_url

from afterhack.lists.filters import MAX_QUERY_CHARS, Criteria, Filter, tidy

DEFAULT_PER_PAGE = 25
# How many numbered page links the pager shows around the current page.
PAGE_WINDOW = 2


@dataclass(frozen=True)
class ListSpec:
    """How one list pages, sorts and filters. `sorts` maps a sort key to its column's words; `default_sort`
    is a key, prefixed with "-" for descending; `search` is the search box's label (None: no search)."""

    name: str
    noun: tuple[str, str]
    sorts: Mapping[str, str]
    default_sort: str
    filters: Mapping[str, Filter] = field(default_factory=dict)
    search: str | None = None
    per_page: int = DEFAULT_PER_PAGE
    # Whether the search box searches as a person types (over htmx; the form's button still works without it).
    live: bool = False

    def criteria(self, params: Mapping[str, str]) -> tuple[Criteria, list[str]]:
        """The cleaned criteria of a query string, and a sentence for each value that was left out."""
        notes: list[str] = []
        filters: dict[str, str] = {}
        for name, spec in self.filters.items():
            filters[name], note = spec.clean(name, params.get(name, ""))
            if note:
                notes.append(note)
        raw_sort = params.get("sort", "") or self.default_sort
        key = raw_sort.removeprefix("-")
        if key not in self.sorts:
            notes.append(f"This list cannot be sorted by “{raw_sort[:40]}”; it is sorted by {self._default_words()}.")
            raw_sort, key = self.default_sort, self.default_sort.removeprefix("-")
        q = tidy(params.get("q", "")) if self.search else ""
        if q is None:
            notes.append("The search could not be read (it holds characters text cannot); showing everything.")
            q = ""
        return Criteria(q=q, filters=filters, sort=key, descending=raw_sort.startswith("-")), notes

    def _default_words(self) -> str:
        key = self.default_sort.removeprefix("-")
        return f"{self.sorts[key].lower()}, {'newest' if self.default_sort.startswith('-') else 'oldest'} first"

    def listing[Item](
        self,
        params: Mapping[str, str],
        *,
        read: Callable[[Criteria, int, int], list[Item]],
        count: Callable[[Criteria], int],
        path: str = "",
    ) -> Listing[Item]:
        """The page the query string asks for: `count(criteria)` counts every match, `read(criteria, offset,
        limit)` reads one page of them in the criteria's order. A page past the end shows the last page."""
        criteria, notes = self.criteria(params)
        total = count(criteria)
        pages = max(1, math.ceil(total / self.per_page))
        raw_page = params.get("page", "") or "1"
        # isascii: "²".isdigit() is true, but int("²") fails.
        number = int(raw_page) if raw_page.isascii() and raw_page.isdigit() and len(raw_page) < 7 else 0
        if number < 1 or number > pages:
            if raw_page != "1":
                notes.append(
                    f"There is no page “{raw_page[:20]}”; showing page {min(max(number, 1), pages)} of {pages}."
                )
            number = min(max(number, 1), pages)
        offset = (number - 1) * self.per_page
        items = read(criteria, offset, self.per_page) if total else []
        return Listing(self, criteria, items, total, number, pages, notes, path)

    def read_page[Item](
        self,
        params: Mapping[str, str],
        *,
        path: str,
        read: Callable[..., list[Item]],
        count: Callable[..., int],
        **scope: Any,
    ) -> Listing[Item]:
        """`listing` with keyword selectors: `read(criteria=, offset=, limit=, **scope)` and
        `count(criteria=, **scope)`, e.g. with `workspace=` as their scope."""
        return self.listing(
            params, path=path,
            read=lambda criteria, offset, limit: read(criteria=criteria, offset=offset, limit=limit, **scope),
            count=lambda criteria: count(criteria=criteria, **scope),
        )  # fmt: skip


@dataclass(frozen=True)
class PageLink:
    number: int | None  # None: a gap ("…")
    href: str
    current: bool


@dataclass(frozen=True)
class Listing[Item]:
    """One page of a list, with everything its controls need to link to other pages, sorts and filters."""

    spec: ListSpec
    criteria: Criteria
    items: list[Item]
    count: int
    number: int
    pages: int
    notes: list[str]
    path: str = ""
    # Words for filter values the address holds as ids (a source's title for `?source=<id>`), by filter name.
    shown: Mapping[str, str] = field(default_factory=dict)

    @property
    def target(self) -> str:
        """The id of the list's section, which links and the filter form swap in place over HTMX."""
        return f"{self.spec.name}-list"

    @property
    def first(self) -> int:
        return (self.number - 1) * self.spec.per_page + 1 if self.count else 0

    @property
    def last(self) -> int:
        return self.first + len(self.items) - 1 if self.items else 0

    @property
    def noun(self) -> str:
        return self.spec.noun[0] if self.count == 1 else self.spec.noun[1]

    @property
    def active(self) -> list[tuple[str, str]]:
        """The filters in use, as (label, value in words), the search first."""
        used = [(self.spec.search or "Search", f"“{self.criteria.q}”")] if self.criteria.q else []
        for name, spec in self.spec.filters.items():
            if value := self.criteria.get(name):
                used.append((spec.label, self.shown[name] if name in self.shown else spec.shown(value)))
        return used

    @property
    def sort_param(self) -> str:
        """The `sort` value of this list's address, or '' for the default sort (left out of addresses)."""
        sort = ("-" if self.criteria.descending else "") + self.criteria.sort
        return "" if sort == self.spec.default_sort else sort

    def _params(self, **changes: Any) -> dict[str, str]:
        params: dict[str, str] = {"q": self.criteria.q, **self.criteria.filters, "sort": self.sort_param}
        if self.number != 1:
            params["page"] = str(self.number)
        params.update({name: str(value) for name, value in changes.items()})
        defaults = {"page": "1", "sort": self.spec.default_sort}
        return {name: value for name, value in params.items() if value and value != defaults.get(name)}

    def href(self, **changes: Any) -> str:
        """This list's address with `changes` (a sort or filter change starts again at page 1)."""
        if any(name != "page" for name in changes):
            changes.setdefault("page", 1)
        params = self._params(**changes)
        return self.path + "?" + urlencode(params) if params else self.path or "?"

    @property
    def max_chars(self) -> int:
        """The most characters a typed filter keeps (its input's maxlength)."""
        return MAX_QUERY_CHARS

    @property
    def address(self) -> str:
        """This very page's address in its shortest form: no empty, default or unknown values."""
        return self.href().removesuffix("?") or self.path

    @property
    def clear_href(self) -> str:
        """The list without its search and filters (its sort kept)."""
        blank = dict.fromkeys([*self.spec.filters, "q"], "")
        return self.href(**blank)

    def sort_href(self, key: str) -> str:
        """The address that sorts by `key`: the current key toggles its direction; a new key starts descending
        for dates and counts and ascending for words, like the default sort's direction for its key."""
        if key == self.criteria.sort:
            descending = not self.criteria.descending
        else:
            default = self.spec.default_sort
            descending = default.startswith("-") if default.removeprefix("-") == key else key in TIME_AND_COUNT_KEYS
        return self.href(sort=("-" if descending else "") + key)

    def sorted_by(self, key: str) -> str:
        """The column's aria-sort value: "ascending", "descending" or "none"."""
        if key != self.criteria.sort:
            return "none"
        return "descending" if self.criteria.descending else "ascending"

    def links(self) -> list[PageLink]:
        """Numbered page links around the current page, with the first and last, gaps as None."""
        wanted = {1, self.pages, *range(self.number - PAGE_WINDOW, self.number + PAGE_WINDOW + 1)}
        shown: list[PageLink] = []
        previous = 0
        for number in sorted(n for n in wanted if 1 <= n <= self.pages):
            if number > previous + 1:
                shown.append(PageLink(None, "", False))
            shown.append(PageLink(number, self.href(page=number), number == self.number))
            previous = number
        return shown

    @property
    def previous_href(self) -> str | None:
        return self.href(page=self.number - 1) if self.number > 1 else None

    @property
    def next_href(self) -> str | None:
        return self.href(page=self.number + 1) if self.number < self.pages else None

    def fields(self) -> list[dict[str, Any]]:
        """The filter form's fields, with their current values, in the spec's order."""
        return [
            {
                "name": name,
                "label": spec.label,
                "kind": spec.kind,
                # The input the form draws ("choice", "day" or "text"); templates compare it, not a status.
                "widget": spec.kind,
                "choices": spec.choices,
                "blank": spec.blank,
                "max_chars": spec.max_chars,
                "value": self.criteria.get(name),
            }
            for name, spec in self.spec.filters.items()
        ]

    def with_items[Other](self, items: list[Other]) -> Listing[Other]:
        """The same page with its items shaped for the template (e.g. joined with what they link to)."""
        return replace(self, items=items)  # type: ignore[arg-type, return-value]

    def with_shown(self, **words: str) -> Listing[Item]:
        """The same page, its filters named in these words in the 'filtered by' sentence (e.g. source=title)."""
        return replace(self, shown={**self.shown, **words})


# Sort keys that read best newest or largest first when a person clicks their column.
TIME_AND_COUNT_KEYS = frozenset({"created", "when", "updated", "applied", "claims", "decisions", "actions", "count"})


def render_listing(
    request: HttpRequest, template: str, context: dict[str, Any], *, listing: Listing[Any], status: int = 200
) -> HttpResponse:
    """The page with its list, or, when htmx asks for the list's section (its filter form, sort headers, pager
    and search box target it), only that section: the template's `list` partial."""
    htmx = getattr(request, "htmx", None)
    partial = bool(htmx) and getattr(htmx, "target", None) == listing.target
    response = render(request, f"{template}#list" if partial else template, context, status=status)
    if partial:
        # The form sends its empty fields too; the address kept in the history is the list's own, shortest one.
        push_url(response, listing.address)
    # The same address answers a page or a section: a cache must keep them apart.
    patch_vary_headers(response, ["HX-Request", "HX-Target"])
    return response
