"""The agents app's lists of decisions, actions and runs, each described once (afterhack/lists/spec.py): what each
sorts by, and each filter declared once for the page (its words), the Cypher (its condition on the variables the
list queries of agents/graph/lists.py bind: d, a, r, and the decision's computed `kind` and the action's
`depends_on`) and, for `status`, the JSON API's query parameter (agents/api/); and the statuses, kinds and origins
in words."""

from __future__ import annotations

from afterhack.ids import parse_id
from afterhack.lists.filters import Filter, choice, made
from afterhack.lists.spec import ListSpec
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


def _depends_on(decision: str) -> dict[str, str]:
    # A decision that is not an id matches no action (rather than every one).
    return {"decision": (parse_id(decision) or "no such decision") if decision else ""}


# Also the API's `?status=` of GET …/decisions and …/actions (agents/api/, agents/graph/{decisions,actions}.py).
DECISION_STATUS = choice("Status", DECISION_STATUS_WORDS, param="status", of="d.status")
ACTION_STATUS = choice("Status", ACTION_STATUS_WORDS, param="status", of="a.status")

DECISIONS = ListSpec(
    name="decisions",
    noun=("decision", "decisions"),
    sorts={"title": "Decision", "status": "Status", "created": "When"},
    default_sort="-created",
    filters={
        "status": DECISION_STATUS,
        "kind": choice("Kind", DECISION_KIND_WORDS, param="kind", of="kind"),
        **made("d"),
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
        "status": ACTION_STATUS,
        "decision": Filter(
            "Depends on decision", cypher="$decision = '' OR $decision IN depends_on", to_params=_depends_on
        ),
        **made("a"),
    },
    search="Title",
)
RUNS = ListSpec(
    name="runs",
    noun=("run", "runs"),
    sorts={"question": "Question", "status": "Status", "created": "When"},
    default_sort="-created",
    filters={
        "origin": choice("Origin", RUN_ORIGIN_WORDS, param="origin", of=f"coalesce(r.origin, '{RunOrigin.AGENT}')"),
        "status": choice("Status", RUN_STATUS_WORDS, param="status", of="r.status"),
        **made("r", by="Asked by", since="Asked from", until="Asked to", person="person"),
    },
    search="Question",
)
