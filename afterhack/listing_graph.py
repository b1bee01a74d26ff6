"""Keyset pages in Cypher, for every app's graph modules: the WHERE condition and ORDER BY of a page that
starts after where the previous one ended, and its parameters."""

from __future__ import annotations


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
