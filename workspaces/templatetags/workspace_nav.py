"""The workspace menu's state (whether the person may manage members, the registered links and their badges) and the
dashboard's counts as the registered apps declared them (workspaces/registry.py).

Every workspace page includes the menu (templates/partials/workspace_nav.html), so this is computed once a page:
one PostgreSQL read at most (when the page did not put the membership in its context) and one graph query.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from django import template

from afterhack.errors import GraphError
from workspaces import dashboard, registry
from workspaces.models import Membership
from workspaces.selectors import dashboard as dashboard_selectors
from workspaces.selectors import events as event_selectors

register = template.Library()
logger = logging.getLogger("workspaces")


@dataclass(frozen=True)
class NavState:
    is_admin: bool
    # The registered apps' links (workspaces/registry.py `MenuItem`), each with its badge.
    links: list[dashboard.MenuLink]


@register.simple_tag(takes_context=True)
def nav_state(context: template.Context) -> NavState:
    """The menu's state for the page's workspace and person; no badges when the graph does not answer."""
    workspace = context["workspace"]
    membership = context.get("membership")
    if not isinstance(membership, Membership):
        user = context["request"].user
        membership = (
            Membership.objects.filter(workspace=workspace, user=user).first() if user.is_authenticated else None
        )
    is_admin = bool(membership and membership.is_admin)
    # The dashboard read the same counts already; other pages read them here.
    attention: Any = context.get("attention")
    if attention is None:
        try:
            attention = dashboard_selectors.attention(workspace=workspace)
        except GraphError:
            logger.exception("menu badges of %s: graph unreadable", workspace.id)
    return NavState(is_admin, dashboard.menu_links(attention, workspace_id=workspace.id))


@register.simple_tag
def dashboard_tiles(counts: Any, workspace: Any, section: str, since: str = "", then: bool = False) -> list[Any]:
    """The dashboard's counts of one section ("attention" or "totals"), as the registered apps declared them."""
    return dashboard.dashboard_tiles(
        counts, workspace=workspace, attention=section == "attention", since=since, then=then
    )


@register.simple_tag
def registered_url(name: str) -> str:
    """The page an app registered for this role (workspaces/registry.py `PageLink`), or '' when none did."""
    link = registry.LINKS.get(name)
    return event_selectors.reversed_url(link.url) if link else ""
