"""Agents' parts of the workspaces registry (workspaces/registry.py), registered in agents/apps.py: its audit verbs,
its labels' indexes, its counts for the dashboard and the menu's links, and where its events name an action."""

from __future__ import annotations

from django.urls import reverse

from afterhack.history_graph import ChangeKind
from agents.graph import attention as attention_graph
from agents.selectors import decisions as decision_selectors
from agents.statuses import ActionStatus
from notifications.registry import Watchable, register_watchable
from notifications.statuses import WatchKind
from workspaces import registry
from workspaces.models import AuditEvent, Workspace
from workspaces.registry import (
    AttentionPart,
    AuditVerb,
    DashboardItem,
    EventPage,
    IndexSet,
    MenuItem,
    Teller,
    Telling,
    register,
)

DECISION = EventPage("agents:decision", "decision_id", "decision_id", as_of=True)
ACTION = EventPage("agents:action", "action_id", "action_id", as_of=True, fallback="agents:actions")


def action_verb(verb: str, words: str, kind: str, withheld: str) -> AuditVerb:
    return AuditVerb(verb, words, kind, page=ACTION, withheld=f"{withheld} (title withheld: not a member)")


VERBS = (
    AuditVerb(
        "decision.created", "created the decision “{target}”", "Decision created", page=DECISION,
        withheld="created a decision (title withheld: not a member)",
        vocabulary=frozenset({"origin"}),
    ),
    action_verb("action.created", "added the action “{target}”", "Action added", "added an action"),
    action_verb("action.done", "marked “{target}” done", "Action done", "marked an action done"),
    action_verb("action.cancelled", "cancelled “{target}”", "Action cancelled", "cancelled an action"),
    action_verb("action.reopened", "reopened “{target}”", "Action reopened", "reopened an action"),
    AuditVerb(
        "agent.asked", "asked the agent “{target}”", "Question to the agent",
        page=EventPage("agents:run", "run_id", "run_id"),
        withheld="asked the agent a question (question withheld: not a member)",
        vocabulary=frozenset({"agent"}),
    ),
)  # fmt: skip

INDEXES = IndexSet(by_id=("Decision", "Action", "AgentRun", "Handoff"))

ATTENTION = AttentionPart(
    name="agents",
    now=(attention_graph.DECISIONS, attention_graph.ACTIONS),
    columns=attention_graph.COLUMNS,
    params=attention_graph.attention_params,
    then=(attention_graph.ACTIONS_THEN, attention_graph.DECISIONS_THEN),
    then_columns=attention_graph.THEN_COLUMNS,
    changed=attention_graph.CHANGED,
    read_then=attention_graph.agents_then,
)

DASHBOARD = (
    DashboardItem(
        "held", ("held action", "held actions"), "agents:actions", query=f"?status={ActionStatus.HELD}",
        attention=True, alert=True, order=30, then_count="held",
    ),
    DashboardItem(
        "decisions", ("decision", "decisions"), "agents:decisions", order=30, then_count="decisions_total",
        then_by_status="decisions",
    ),
    DashboardItem(
        "actions", ("action", "actions"), "agents:actions", order=40, then_count="actions_total",
        then_by_status="actions",
    ),
)  # fmt: skip

MENU = (
    MenuItem("Ask", "agents:ask", "ask", order=30),
    MenuItem("Decisions", "agents:decisions", "decisions", order=40),
    MenuItem("Actions", "agents:actions", "actions", order=50, badge=("held",), badge_words=("{n} held", "{n} held")),
)


# An action's events (added, marked done, cancelled, reopened) name it by its id: its page lists them.
EVENTS_ABOUT = (registry.EventsAbout(ChangeKind.ACTION, "action_id"),)


def decision_exists(workspace: Workspace, decision_id: str) -> bool:
    """Whether the workspace holds a decision by this id, whatever its status (a person may watch it)."""
    return decision_selectors.decision_get(workspace=workspace, decision_id=decision_id) is not None


def action_exists(workspace: Workspace, action_id: str) -> bool:
    """Whether the workspace holds an action by this id, whatever its status (a person may watch it)."""
    return decision_selectors.action_get(workspace=workspace, action_id=action_id) is not None


def tell_action_moved(event: AuditEvent) -> Telling:
    """An action marked done, cancelled or reopened by hand: whoever watches it is told."""
    action_id = str(event.payload.get("action_id", ""))
    moved = {"action.done": "done", "action.cancelled": "cancelled", "action.reopened": "reopened"}[event.verb]
    return Telling(
        text=f"“{event.target}” was marked {moved} by {event.actor_name}.",
        url=reverse("agents:action", kwargs={"ws_id": event.workspace_id, "action_id": action_id}),
        about=(action_id,),
    )


TELLERS = tuple(Teller(verb, tell_action_moved) for verb in ("action.done", "action.cancelled", "action.reopened"))


def register_parts() -> None:
    """Registers agents' parts with workspaces, and its decisions and actions as watchable with notifications."""
    register(*VERBS, INDEXES, ATTENTION, *DASHBOARD, *MENU, *EVENTS_ABOUT, *TELLERS)
    register_watchable(Watchable(WatchKind.DECISION, decision_exists), Watchable(WatchKind.ACTION, action_exists))
