"""Reads of a workspace's dashboard: what needs attention, what happened lately, and the same as of a past moment."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from afterhack import graph
from afterhack.as_of import Moment
from afterhack.as_of import moment_of as moment_of_params
from workspaces import graph as workspace_graph
from workspaces.models import Membership, Workspace

logger = logging.getLogger("workspaces")


# The dashboard's "recent corrections" are those of the last this many days.
RECENT_DAYS = 7


@dataclass(frozen=True)
class Dashboard:
    members: int
    attention: workspace_graph.Attention
    # The day the recent corrections start from (YYYY-MM-DD, UTC), as the history's "From" filter takes it.
    recent_since: str
    graph_error: str | None


def recent_since() -> str:
    """The first day (UTC) whose corrections count as recent."""
    return (datetime.now(UTC).date() - timedelta(days=RECENT_DAYS - 1)).isoformat()


def attention(*, workspace: Workspace) -> workspace_graph.Attention:
    """What needs attention in the workspace and how much its graph holds, in one graph query."""
    return workspace_graph.attention(workspace=workspace, since=recent_since())


@dataclass(frozen=True)
class DashboardThen:
    """The dashboard as of a moment: what needed attention and what the graph held then (`attention` is None when
    the graph did not answer; `graph_error` says so), the members now, and the newest audit events by then."""

    members: int
    attention: workspace_graph.AttentionThen | None
    recent_since: str
    graph_error: str | None


def dashboard_as_of(*, workspace: Workspace, as_of: str) -> DashboardThen:
    """The dashboard's counts as they were at `as_of` (a graph time): one graph query; the members are today's."""
    members = Membership.objects.filter(workspace=workspace).count()
    try:
        since = (datetime.fromisoformat(as_of) - timedelta(days=RECENT_DAYS)).isoformat(timespec="microseconds")
    except OverflowError:  # a moment in the first days of year 1: every correction before it is recent
        since = ""
    try:
        counts = workspace_graph.attention_as_of(workspace=workspace, as_of=as_of, since=since)
    except graph.GraphError:
        logger.exception("dashboard of %s as of %s: graph unreadable", workspace.id, as_of)
        return DashboardThen(
            members, None, since, "The graph database is not answering right now; the counts are unknown."
        )
    return DashboardThen(members, counts, since, None)


def moment_of(params: Any, *, workspace: Workspace) -> Moment:
    """The moment a page of the workspace shows (`?as_of=` in `params`, afterhack/as_of.py), knowing when the
    workspace's history began when it is in the past (one small graph read; none when the graph does not answer:
    the banner then leaves that sentence out)."""
    moment = moment_of_params(params)
    if not moment.past:
        return moment
    try:
        since, created = workspace_graph.history_since(workspace=workspace)
    except graph.GraphError:
        logger.exception("history_since of %s: graph unreadable", workspace.id)
        return moment
    return moment.before_history(since, created=created)


def dashboard(*, workspace: Workspace) -> Dashboard:
    """What needs attention, the graph's totals and the member count for the workspace dashboard."""
    members = Membership.objects.filter(workspace=workspace).count()
    try:
        counts = attention(workspace=workspace)
    except graph.GraphError:
        logger.exception("dashboard of %s: graph unreadable", workspace.id)
        words = "The graph database is not answering right now; the counts below are unknown."
        return Dashboard(members, workspace_graph.Attention(), recent_since(), words)
    return Dashboard(members, counts, recent_since(), None)
