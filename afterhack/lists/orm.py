"""The ORM side of the lists of database rows (the activity list, the staff audit): a list's filters, each declared
once with its ORM condition (`Filter.orm`, afterhack/lists/filters.py), applied to a QuerySet from what the list was
asked for. It names no model: each app's selectors pass their QuerySet and their list's spec."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from afterhack.lists.filters import Criteria
from afterhack.lists.spec import ListSpec


class FilterWithoutQuery(TypeError):
    """A filter of a list of database rows declared without its ORM condition: it would be offered and ignored."""


def filtered[Rows: QuerySet[Any]](rows: Rows, spec: ListSpec, criteria: Criteria) -> Rows:
    """The rows each filter of the spec that the criteria ask for keeps (one `filter` each, in the spec's order).
    Every filter of the spec must carry its ORM condition, asked for or not: one without is refused at once."""
    bare = [name for name, spec_filter in spec.filters.items() if spec_filter.orm is None]
    if bare:
        raise FilterWithoutQuery(f"The {spec.name} list's filters {bare} have no ORM condition (Filter.orm).")
    for name, spec_filter in spec.filters.items():
        if (value := criteria.get(name)) and spec_filter.orm is not None:
            rows = rows.filter(spec_filter.orm(value))
    return rows
