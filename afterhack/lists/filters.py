"""A list's filters, each declared once: what the page shows (its label, its kind of input, its choices), how the
address's value is cleaned (`Filter.clean`), the Cypher condition that keeps what it asks for with the $params it
reads (`Filter.cypher`, `Filter.params`: afterhack/lists/graph.py joins them into a WHERE) or, for a list of rows
of the database, its ORM condition (`Filter.orm`: afterhack/lists/orm.py applies it), and, for a filter the JSON API
takes too, the words its query parameter is refused with (`Filter.refuse`). `choice` declares a choice
of a node's property, `made` the "made by / when" filters every list of nodes has; `Criteria` is what a list was asked for, cleaned."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from afterhack.ids import is_storable, parse_id
from afterhack.schemas import Refuse

if TYPE_CHECKING:
    from django.db.models import Q

MAX_QUERY_CHARS = 200
# The last day a day filter can name: a range through it has no day after to stop before.
LAST_DAY = date.max.isoformat()


def day_after(day: str) -> str:
    """The day after `day` ('YYYY-MM-DD'), or '' for no day or the last day there is (a range through it has no end)."""
    return (date.fromisoformat(day) + timedelta(days=1)).isoformat() if day and day < LAST_DAY else ""


def tidy(raw: str) -> str | None:
    """A typed filter value with its whitespace folded and cut to MAX_QUERY_CHARS, or None when it holds what
    no store can take (NUL, lone surrogates)."""
    if not is_storable(raw):
        return None
    return " ".join(raw.split())[:MAX_QUERY_CHARS]


class FilterKind(StrEnum):
    """What a list filter takes, and the input its form draws."""

    CHOICE = "choice"  # one of the filter's `choices`
    TEXT = "text"  # case-insensitive, partial
    DAY = "day"  # a YYYY-MM-DD date; `from`/`to` pairs are inclusive
    ID = "id"  # a node's id, made canonical


@dataclass(frozen=True)
class Filter:
    """One filter of a list: what it is called, what it takes (a FilterKind) and, for a choice, its choices.

    `cypher` is the condition of the list's query that keeps what the filter asks for and everything while it is
    not asked (its $param is ''), on the variables the app's graph module binds. Its $param is the filter's name,
    or `param`, holding the cleaned value: lower-cased for a text filter (the condition lower-cases what it
    compares), the day after for a day filter that ends a range (`until`), or what `to_params` makes of it.

    A filter of a list of database rows has `orm` instead: the condition (a Q, which may hold a lookup on an
    expression, e.g. a person's full name) that keeps the rows its cleaned value asks for; it is asked only for a
    value, never for ''.
    """

    label: str
    kind: FilterKind = FilterKind.TEXT
    choices: tuple[tuple[str, str], ...] = ()
    # The words of a choice filter's empty choice (no filter, or the list's default).
    blank: str = "All"
    # The most characters a typed filter's input takes (its maxlength); a longer value is cut to MAX_QUERY_CHARS.
    max_chars: int = MAX_QUERY_CHARS
    cypher: str = ""
    param: str = ""
    until: bool = False
    to_params: Callable[[str], dict[str, Any]] | None = None
    orm: Callable[[str], Q] | None = None

    def clean(self, name: str, raw: str) -> tuple[str, str | None]:
        """The value to filter by ('' for none) and, when the raw value was refused, a sentence why."""
        value = tidy(raw)
        if value is None:
            return (
                "",
                f"The {self.label.lower()} filter could not be read (it holds characters text cannot); showing all.",
            )
        if not value:
            return "", None
        if self.kind == FilterKind.CHOICE and value not in dict(self.choices):
            known = ", ".join(f"“{label}”" for _, label in self.choices)
            return "", f"“{value}” is not a {self.label.lower()} this list knows ({known}); showing all."
        if self.kind == FilterKind.ID:
            canonical = parse_id(value)
            if canonical is None:
                return (
                    "",
                    f"“{value[:60]}” is not the id of a {self.label.lower()}; the {self.label.lower()} filter was left out.",
                )
            return canonical, None
        if self.kind == FilterKind.DAY:
            try:
                return date.fromisoformat(value).isoformat(), None
            except ValueError:
                return "", f"“{value}” is not a date like 2026-05-12; the {self.label.lower()} filter was left out."
        return value, None

    def shown(self, value: str) -> str:
        """The value as a person reads it in the 'filtered by' sentence."""
        return dict(self.choices).get(value, value) if self.kind == FilterKind.CHOICE else f"“{value}”"

    def params(self, name: str, value: str) -> dict[str, Any]:
        """The $params of the filter's Cypher condition for its cleaned value ('' when not asked)."""
        if self.to_params is not None:
            return self.to_params(value)
        if self.kind == FilterKind.TEXT:
            value = value.lower()
        elif self.until:
            value = day_after(value)
        return {self.param or name: value}

    def refuse(self, name: str) -> Refuse:
        """How the JSON API refuses a value of its query parameter `name` that is none of the choices."""
        return Refuse(words=f"“{name}” must be one of: {', '.join(value for value, _ in self.choices)}.")


def choice(label: str, choices: tuple[tuple[str, str], ...], *, param: str, of: str) -> Filter:
    """A choice filter (named `param` in its list) whose condition keeps the rows where `of`, a Cypher expression,
    is the value chosen."""
    return Filter(
        label, kind=FilterKind.CHOICE, choices=choices, param=param, cypher=f"${param} = '' OR {of} = ${param}"
    )


def made(
    node: str, *, by: str = "By", since: str = "From", until: str = "To", person: str = "author"
) -> dict[str, Filter]:
    """The "made by / when" filters of a list of `node`s: who made it (part of their username, any case, by the
    filter `person`) and the days it was made in, `from` through `to`, as [$since, $before)."""
    return {
        person: Filter(
            by, param="author", cypher=f"$author = '' OR toLower(coalesce({node}.created_by, '')) CONTAINS $author"
        ),
        "from": Filter(since, kind=FilterKind.DAY, param="since", cypher=f"$since = '' OR {node}.created_at >= $since"),
        "to": Filter(
            until,
            kind=FilterKind.DAY,
            param="before",
            until=True,
            cypher=f"$before = '' OR {node}.created_at < $before",
        ),
    }


@dataclass(frozen=True)
class Criteria:
    """What a list was asked for, cleaned: the graph or ORM query reads only this.

    `filters` holds every filter of the spec ('' when not asked); `sort` is one of the spec's sort keys.
    """

    q: str
    filters: Mapping[str, str]
    sort: str
    descending: bool

    def get(self, name: str) -> str:
        return self.filters.get(name, "")

    def day_range(self, start: str = "from", end: str = "to") -> tuple[str, str]:
        """The first day asked and the day after the last (both 'YYYY-MM-DD', '' when not asked), so that a
        query keeps `since <= created_at < before` and the last day is in it whole."""
        return self.get(start), day_after(self.get(end))
