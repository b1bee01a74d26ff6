"""The Cypher side of every app's lists: keyset pages (the WHERE condition and ORDER BY of a page that starts after
where the previous one ended, and its parameters), the "made by / when" condition, NodeList (a filtered, sorted,
offset list) and status_page (a keyset list with an optional status). It names no label: each app's graph modules
pass theirs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from afterhack import graph
from afterhack.graph import HasGraph
from afterhack.lists.spec import Criteria


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


# Who made it and when, as every list filters them: $author (lower-cased, partial) and the days [$since, $before).
def made(node: str) -> str:
    """The condition on who made `node` (a variable of the caller's query) and when."""
    return (
        "AND ($author = '' OR toLower(coalesce(" + node + ".created_by, '')) CONTAINS $author) "
        "AND ($since = '' OR "
        + node
        + ".created_at >= $since) AND ($before = '' OR "
        + node
        + ".created_at < $before) "
    )


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


def made_params(criteria: Criteria, person: str = "author") -> dict[str, str]:
    """The params of `made` from the criteria: who (the `person` filter, lower-cased) and the days."""
    return {"author": criteria.get(person).lower(), **days(criteria)}


def days(criteria: Criteria) -> dict[str, str]:
    """$since and $before of the criteria's `from` and `to` days: the first day and the day after the last."""
    since, before = criteria.day_range()
    return {"since": since, "before": before}


def status_page(node: str, label: str, *, read: str, fields: str, alias: str) -> tuple[str, str]:
    """The page query and the count query of a list of `label` nodes (bound to `node`), newest first after
    the keyset position, optionally only those of $status: `read` gathers what each needs, `fields` returns it
    as one map `alias`."""
    # The variable and the label are the calling module's constants (Cypher takes no label as a parameter);
    # every value comes in as a $param.
    after, order = keyset(node)
    where = "MATCH (" + node + ":" + label + ") WHERE ($status = '' OR " + node + ".status = $status) "
    page = (
        where + "AND " + after + " WITH " + node + " ORDER BY " + order + " SKIP $offset LIMIT $limit "
        + read + "RETURN " + fields + " ORDER BY " + keyset(alias)[1]
    )  # fmt: skip
    return page, where + "RETURN count(" + node + ")"
