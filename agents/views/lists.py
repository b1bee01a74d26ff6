"""The agents app's lists as the pages show them (afterhack/listing.py): what each sorts and filters by, and the
statuses, kinds and origins in words."""

from __future__ import annotations

from afterhack.listing import Filter, FilterKind, ListSpec
from agents.statuses import ActionStatus, DecisionKind, DecisionStatus, RunOrigin
from claims.statuses import JobStatus

# Statuses, kinds and origins in words, for the lists' filters and badges.
DECISION_STATUS_WORDS = (
    (DecisionStatus.SUPPORTED, "Supported"),
    (DecisionStatus.NEEDS_REVIEW, "Needs review"),
    (DecisionStatus.SUPERSEDED, "Revised"),
)
DECISION_KIND_WORDS = (
    (DecisionKind.MANUAL, "Made by a person"),
    (DecisionKind.AGENT, "The agent's answer"),
    (DecisionKind.UNANSWERED, "A question the agent could not answer"),
)
ACTION_STATUS_WORDS = (
    (ActionStatus.PENDING, "Pending"),
    (ActionStatus.HELD, "Held"),
    (ActionStatus.DONE, "Done"),
    (ActionStatus.CANCELLED, "Cancelled"),
)
RUN_STATUS_WORDS = (
    (JobStatus.QUEUED, "Queued"),
    (JobStatus.RUNNING, "Running (or an open MCP session)"),
    (JobStatus.DONE, "Done"),
    (JobStatus.FAILED, "Failed"),
)
RUN_ORIGIN_WORDS = ((RunOrigin.AGENT, "This app (page or API)"), (RunOrigin.MCP, "An outside agent (MCP)"))
MADE = {"author": Filter("By"), "from": Filter("From", kind=FilterKind.DAY), "to": Filter("To", kind=FilterKind.DAY)}

DECISIONS = ListSpec(
    name="decisions",
    noun=("decision", "decisions"),
    sorts={"title": "Decision", "status": "Status", "created": "When"},
    default_sort="-created",
    filters={
        "status": Filter("Status", kind=FilterKind.CHOICE, choices=DECISION_STATUS_WORDS),
        "kind": Filter("Kind", kind=FilterKind.CHOICE, choices=DECISION_KIND_WORDS),
        **MADE,
    },
    search="Title",
)
# `decision` filters by one decision's id: the actions that depend on it.
ACTIONS = ListSpec(
    name="actions",
    noun=("action", "actions"),
    sorts={"title": "Action", "status": "Status", "created": "When"},
    default_sort="-created",
    filters={
        "status": Filter("Status", kind=FilterKind.CHOICE, choices=ACTION_STATUS_WORDS),
        "decision": Filter("Depends on decision"),
        **MADE,
    },
    search="Title",
)
RUNS = ListSpec(
    name="runs",
    noun=("run", "runs"),
    sorts={"question": "Question", "status": "Status", "created": "When"},
    default_sort="-created",
    filters={
        "origin": Filter("Origin", kind=FilterKind.CHOICE, choices=RUN_ORIGIN_WORDS),
        "status": Filter("Status", kind=FilterKind.CHOICE, choices=RUN_STATUS_WORDS),
        "person": Filter("Asked by"),
        "from": Filter("Asked from", kind=FilterKind.DAY),
        "to": Filter("Asked to", kind=FilterKind.DAY),
    },
    search="Question",
)
