"""The Cypher side of every app's lists: keyset pages (the WHERE condition and ORDER BY of a page that starts after
where the previous one ended, and its parameters), the WHERE and $params of a list's filters (each declared once with
its condition, afterhack/lists/filters.py), NodeList (a filtered, sorted, offset list) and status_page (a keyset
list with an optional status). It names no label: each app's graph modules pass theirs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from afterhack import graph
from afterhack.graph import HasGraph
from afterhack.lists.filters import Criteria, Filter


def keyset(node: str, *, at: str = "created_at", key: str = "id", newest_first: bool = True) -> tuple[str, str]:
    """The WHERE condition and ORDER BY of a keyset page over `node`, ordered by (`at`, `key`).

    The condition keeps the rows after the position ($after_at, $after_key) where the previous
    page ended ($after_at = '' on the first page), so rows added meanwhile never shift a page.
    Every app's lists are paged with it.
    """
    after, direction = ("<", " DESC") if newest_first else (">", "")
    condition = (
        f"($after_at = '' OR {node}.{at} {after} $after_at "
        f"OR ({node}.{at} = $after_at AND {node}.{key} {after} $after_key))"
    )
    return condition, f"{node}.{at}{direction}, {node}.{key}{direction}"


def after_params(after: tuple[str, str] | None) -> dict[str, str]:
    """The $after_at and $after_key of a keyset page: where the previous page ended, or '' for the first."""
    at, key = after or ("", "")
    return {"after_at": at, "after_key": key}


def where(filters: Mapping[str, Filter], *names: str) -> str:
    """The Cypher conditions of these filters of a list (each declared once, afterhack/lists/filters.py), ANDed."""
    return " AND ".join("(" + filters[name].cypher + ")" for name in names) + " "


def filter_params(filters: Mapping[str, Filter], criteria: Criteria) -> dict[str, Any]:
    """The $params of the Cypher conditions of a list's filters, from what the list was asked for."""
    params: dict[str, Any] = {}
    for name, spec in filters.items():
        if spec.cypher:
            params.update(spec.params(name, criteria.get(name)))
    return params


@dataclass(frozen=True)
class NodeList:
    """A list of `node`s: `match` finds those the $params ask for, `read` returns a page's rows (RETURN …),
    `columns` are its sort keys' expressions."""

    node: str
    match: str
    columns: dict[str, str]
    read: str

    def page(
        self, workspace: HasGraph, *, criteria: Criteria, params: dict[str, Any], offset: int, limit: int
    ) -> list[dict[str, Any]]:
        """The rows of one page, in the criteria's order."""
        order = graph.order_by(
            self.columns, sort=criteria.sort, descending=criteria.descending, tiebreak=self.node + ".id"
        )
        cypher = self.match + "WITH " + self.node + order + "SKIP $offset LIMIT $limit " + self.read + order
        return graph.ro_records(workspace, cypher, {**params, "offset": offset, "limit": limit})

    def count(self, workspace: HasGraph, *, params: dict[str, Any]) -> int:
        """How many match."""
        return int(graph.ro_query(workspace, self.match + "RETURN count(" + self.node + ")", params)[0][0])


def status_page(node: str, label: str, *, status: Filter, read: str, fields: str, alias: str) -> tuple[str, str]:
    """The page query and the count query of a list of `label` nodes (bound to `node`), newest first after
    the keyset position, optionally only those of $status (the list's `status` filter): `read` gathers what each
    needs, `fields` returns it as one map `alias`."""
    # The variable and the label are the calling module's constants (Cypher takes no label as a parameter);
    # every value comes in as a $param.
    after, order = keyset(node)
    where = "MATCH (" + node + ":" + label + ") WHERE (" + status.cypher + ") "
    page = (
        where + "AND " + after + " WITH " + node + " ORDER BY " + order + " SKIP $offset LIMIT $limit "
        + read + "RETURN " + fields + " ORDER BY " + keyset(alias)[1]
    )  # fmt: skip
    return page, where + "RETURN count(" + node + ")"
