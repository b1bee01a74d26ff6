"""The search-as-you-type picker every page uses to choose claims or decisions (templates/partials/picker.html,
static/afterhack/picker.js): what a picker shows, and the state a form sends back.

A picker lives inside a form. Its chosen items are hidden inputs named after the form's field; its search box
is `<key>_q`. With JavaScript, results come from the app's pick endpoint as one types (`claims:pick`,
`agents:pick`) and picking adds a line without a round trip. Without it, "Search", "Add" and "Remove" are
submit buttons of the form (`find`, `pick`, `unpick`, each valued `<key> <id>`): the page comes back with
everything typed kept and the picker's state changed, and nothing is written.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import render

from afterhack.ids import parse_id
from afterhack.templatetags.afterhack import in_words
from afterhack.text import MAX_ID_CHARS, MAX_SEARCH_CHARS

# How many results a picker shows (the newest before anything is typed, the best matches after).
PICK_LIMIT = 8
# How many items one picker may carry back (more are dropped, never an error page).
MAX_CHOSEN = 100
# A picker's field and key: form field names and DOM ids the pages make, never anything typed.
NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,79}")
# The buttons of the no-JavaScript path; any of them makes a POST a step of the picker, not the form's submit.
STEPS = ("find", "pick", "unpick", "more")


class FormData(Protocol):
    def get(self, key: str, default: Any = ..., /) -> Any: ...
    def getlist(self, key: str, default: Any = ..., /) -> list[Any]: ...


@dataclass(frozen=True)
class PickItem:
    """A claim or decision as a picker shows it: its words, status in words, where it comes from, when."""

    id: str
    text: str
    status: str
    origin: str
    created_at: str
    # Whether it can support something now; an item that cannot is shown, marked, and not pickable where
    # the picker needs support (a filter picks anything).
    usable: bool = True

    @property
    def status_words(self) -> str:
        return in_words(self.status)


@dataclass(frozen=True)
class Picker:
    """One picker as a page shows it: what was typed, the results, the chosen items.

    `field` names the hidden inputs of the chosen items (what the form sends); `key` is unique on the page
    (DOM ids, the search box `<key>_q`, the no-JavaScript buttons); `endpoint` is the URL name of its results.
    """

    endpoint: str
    field: str
    key: str
    noun: str
    label: str
    query: str
    results: list[PickItem]
    chosen: list[PickItem]
    # Ids sent back that name nothing of this workspace (a hand-edited or outdated address).
    missing: list[str] = dataclasses.field(default_factory=list)
    # A filter picks one item, of any status; a justification picks several that can support.
    single: bool = False
    needs_support: bool = True
    suggestion: PickItem | None = None
    suggestion_words: str = ""
    empty_words: str = "Nothing chosen yet."

    @property
    def chosen_ids(self) -> list[str]:
        return [item.id for item in self.chosen]

    def pickable(self, item: PickItem) -> bool:
        return item.usable or not self.needs_support


def is_step(data: FormData) -> bool:
    """Whether the form was sent by one of a picker's own buttons (nothing is to be saved)."""
    return any(data.get(step) for step in STEPS)


def filter_params(query: QueryDict, *, field: str) -> QueryDict:
    """A list's query string with a single-item picker's own step applied: sent by its button (no JavaScript),
    the item it picked or removed is the `field` filter now."""
    params = query.copy()
    if is_step(query):
        params[field] = " ".join(chosen_ids(query, field=field, single=True))
    return params


def ids_in(data: FormData, name: str) -> list[str]:
    """The ids in a (repeated, or space- or comma-separated) field, without repeats: canonical where they are
    ids; anything else is kept (cut short), so that what reads it can say it names nothing, not drop it."""
    values = [i for value in data.getlist(name)[:MAX_CHOSEN] for i in str(value).replace(",", " ").split()]
    return list(dict.fromkeys(parse_id(value) or value[: MAX_ID_CHARS + 1] for value in values[:MAX_CHOSEN]))


def _step(data: FormData, step: str, key: str) -> str | None:
    """The id a no-JavaScript button of this picker sent for `step` (`pick` or `unpick`), if any."""
    owner, _, value = str(data.get(step) or "").partition(" ")
    return parse_id(value) if owner == key else None


def chosen_ids(data: FormData, *, field: str, key: str = "", single: bool = False) -> list[str]:
    """The ids chosen in the picker `key` (default: `field`): those the form sent, with its own step applied."""
    key = key or field
    chosen = ids_in(data, field)
    picked, dropped = _step(data, "pick", key), _step(data, "unpick", key)
    if picked:
        chosen = [picked] if single else list(dict.fromkeys([*chosen, picked]))
    return [i for i in chosen if i != dropped][: 1 if single else MAX_CHOSEN]


def query_in(data: FormData, key: str) -> str:
    """What was typed in the picker's search box (`<key>_q`; a link's `q` for no key)."""
    return " ".join(str(data.get(f"{key}_q" if key else "q") or "").split())[:MAX_SEARCH_CHARS]


def name_or(value: object, default: str) -> str:
    """A field or key sent to a pick endpoint, if it is one a page could have made, else `default`."""
    return value if isinstance(value, str) and NAME.fullmatch(value) else default


def picker_of(
    *,
    find: Callable[[str], list[PickItem]],
    get: Callable[[list[str]], list[PickItem]],
    query: str,
    chosen: Sequence[str],
    **shown: Any,
) -> Picker:
    """A picker: `find(query)` gives the results (the newest for ''), `get(ids)` the chosen items that exist."""
    items = get(list(chosen))
    found = {item.id for item in items}
    return Picker(
        query=query,
        results=find(query),
        chosen=items,
        missing=[i for i in chosen if i not in found],
        **shown,
    )


def picker_request(data: FormData) -> dict[str, Any]:
    """What a pick endpoint was asked for: the picker's field and key, what was typed, what is chosen, and how it
    picks (`single=1`: one item; `any=1`: items of any status). Anything odd is read as the plain default."""
    field = name_or(data.get("field"), "chosen")
    key = name_or(data.get("key"), field)
    return {
        "field": field,
        "key": key,
        "query": query_in(data, key),
        "chosen": ids_in(data, field),
        "single": data.get("single") == "1",
        "needs_support": data.get("any") != "1",
    }


def picker_response(request: HttpRequest, picker: Picker, **context: Any) -> HttpResponse:
    """A pick endpoint's answer: over HTMX the results for the picker, else a page of them, each linked."""
    if getattr(request, "htmx", False):
        return render(request, "partials/picker.html#picker-results", {"picker": picker, **context})
    return render(request, "pick.html", {"picker": picker, **context})


def cannot_support(items: list[PickItem], only: str = "current claims and supported decisions") -> str:
    """Why chosen items cannot support what is being made, in words with their statements or titles; '' if
    they all can (the services' refusals name ids)."""
    weak = [item for item in items if not item.usable]
    if not weak:
        return ""
    named = "; ".join(f"“{item.text}” is {item.status_words}" for item in weak)
    them = "it" if len(weak) == 1 else "them"
    return f"{named}. Only {only} can support it: remove {them} and pick another."
