"""The dashboard's counts and the workspace menu's links as a page shows them, made from what the apps registered
(workspaces/registry.py `DashboardItem`, `MenuItem`) and the counts of one attention read."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from uuid import UUID

from workspaces import registry
from workspaces.selectors.events import reversed_url

if TYPE_CHECKING:
    from workspaces.models import Workspace


@dataclass(frozen=True)
class Tile:
    """A count on the dashboard as a page shows it: the number, its words, the list it opens ('' for none), whether
    it is marked as needing attention, and the counts by status behind it (a moment's)."""

    count: int
    words: str
    url: str = ""
    alert: bool = False
    by_status: dict[str, int] | None = None


def dashboard_tiles(
    counts: Any, *, workspace: Workspace, attention: bool, since: str = "", then: bool = False
) -> list[Tile]:
    """The registered dashboard items of one section (what needs attention, or the totals), in order, counted from
    `counts` (an `Attention`, or as of a moment, `then`, an `AttentionThen`, whose counts open no list); an item
    whose `shown` says no for this workspace and count is left out."""
    tiles = []
    workspace_id = workspace.id
    for item in registry.dashboard_items(attention=attention):
        if then and not item.then_count:
            continue
        count = int(getattr(counts, item.then_count if then else item.count))
        if item.shown is not None and not item.shown(workspace, count):
            continue
        one, many = (item.then_words or item.words) if then else item.words
        url = "" if then else reversed_url(item.url, ws_id=workspace_id) + item.query.format(since=since)
        by_status = getattr(counts, item.then_by_status) if then and item.then_by_status else None
        tiles.append(Tile(count, one if count == 1 else many, url, item.alert and count != 0, by_status))
    return tiles


@dataclass(frozen=True)
class MenuLink:
    """A link of the workspace menu as a page shows it: its badge's number (0: none) and words."""

    label: str
    url: str
    section: str
    badge: int = 0
    badge_words: str = ""


def menu_links(counts: Any, *, workspace_id: UUID) -> list[MenuLink]:
    """The registered links of the workspace menu, in order, with their badges counted from `counts` (None: none)."""
    links = []
    for item in registry.MENU:
        badge = sum(int(getattr(counts, column)) for column in item.badge) if counts is not None else 0
        words = (item.badge_words[0] if badge == 1 else item.badge_words[1]).format(n=badge)
        links.append(MenuLink(item.label, reversed_url(item.url, ws_id=workspace_id), item.section, badge, words))
    return links
