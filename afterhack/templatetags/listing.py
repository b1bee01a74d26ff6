"""The controls of a paged, sorted and filtered list (afterhack/lists/spec.py): the filter form, the sortable
column headers and the pager. Every link is a plain link (the list works without JavaScript); inside a
list's section (`{% list_section listing %}`…) htmx swaps only that section and keeps the address."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.html import format_html

from afterhack.lists.spec import Listing

register = template.Library()


@register.inclusion_tag("partials/list_filters.html", takes_context=True)
def list_filters(
    context: template.Context, listing: Listing[Any], picker: Any = None, classes: str = "", zero: bool = True
) -> dict[str, Any]:
    """The search box and filters of a list, what is in use in words, and a way to clear them. A `picker`
    (afterhack/picker.py) stands in for the filter named like its field (a decision chosen by its title);
    `classes` are the form's own classes besides `list-filters`; `zero=False` leaves out the "0 … match" sentence
    where the list's own empty message names the filters."""
    return {
        "listing": listing, "picker": picker, "workspace": context.get("workspace"), "limits": context.get("limits"),
        "classes": classes, "zero": zero,
    }  # fmt: skip


@register.inclusion_tag("partials/pager.html")
def pager(listing: Listing[Any]) -> dict[str, Any]:
    """'21 to 40 of 123 claims' (with an en dash), with previous/next and numbered pages."""
    return {"listing": listing}


@register.inclusion_tag("partials/list_empty.html")
def list_empty(listing: Listing[Any], empty: str = "", named: bool = False) -> dict[str, Any]:
    """The empty state of a list: when filters matched nothing, "No sources match these filters." (or, `named`, the
    filters in words) with a link that clears them; otherwise the list's own `empty` sentence, if it has one."""
    return {"listing": listing, "empty": empty, "named": named}


@register.simple_tag
def sort_header(listing: Listing[Any], key: str, words: str = "") -> str:
    """A column header that sorts the list by `key` (a second click reverses it), marked with aria-sort."""
    label = words or listing.spec.sorts[key]
    state = listing.sorted_by(key)
    arrow = {"ascending": " ▲", "descending": " ▼"}.get(state, "")
    return format_html(
        '<th aria-sort="{}"><a href="{}" class="sort">{}<span aria-hidden="true">{}</span></a></th>',
        state, listing.sort_href(key), label, arrow,
    )  # fmt: skip
