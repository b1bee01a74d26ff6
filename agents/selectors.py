"""Reads of the agents app shaped for the pages: a run's trajectory, a decision with its evidence."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from afterhack.holds import status_holds
from afterhack.ids import storable
from afterhack.listing import Criteria
from afterhack.pagination import Paged, workspace_page
from afterhack.picker import PICK_LIMIT, Picker, PickItem, picker_of
from afterhack.text import MAX_SEARCH_CHARS
from agents import graph as agents_graph
from agents import history as agents_history
from agents.graph import Action as Action
from agents.graph import Decision as Decision
from agents.graph import Run as Run
from agents.graph import Support as Support
from agents.statuses import ActionStatus, DecisionKind, DecisionStatus, Origin, TrajectoryEventKind
from claims.selectors import claims as claims_selectors
from claims.selectors import picker as picker_selectors
from claims.selectors import search as search_selectors
from claims.selectors.claims import Claim
from claims.selectors.picker import ClaimCard as ClaimCard
from claims.selectors.provenance import Dependent
from workspaces.models import Workspace

# The shapes these reads return are re-exported above (`X as X`), so pages and API modules name them without a graph.py.


@dataclass(frozen=True)
class RunOutcome:
    run: agents_graph.Run
    decision: agents_graph.Decision | None
    actions: list[agents_graph.Action]


def run_outcome(*, workspace: Workspace, run_id: str, steps_before: int | None = None) -> RunOutcome | None:
    """The run with the decision and actions it produced, or None (an MCP session's newest steps, or the newest
    of those before step `steps_before`)."""
    run = agents_graph.run_get(workspace=workspace, run_id=run_id, steps_before=steps_before)
    if run is None:
        return None
    decision = agents_graph.decision_get(workspace=workspace, decision_id=run.decision_id) if run.decision_id else None
    actions = actions_get(workspace=workspace, action_ids=run.action_ids)
    return RunOutcome(run, decision, actions)


@dataclass(frozen=True)
class RunStep:
    """One event of a run's trajectory and the template that shows it (templates/agents/events/<kind>.html)."""

    event: dict[str, Any]
    template: str


# A kind this code does not know (from a newer or older run) still shows, by its name.
EVENT_TEMPLATES = {kind: f"agents/events/{kind}.html" for kind in TrajectoryEventKind}
UNKNOWN_EVENT_TEMPLATE = "agents/events/unknown.html"


@dataclass(frozen=True)
class RunView:
    run: agents_graph.Run
    decision: agents_graph.Decision | None
    actions: list[agents_graph.Action]
    events: list[dict[str, Any]]
    statements: dict[str, str] = field(default_factory=dict)

    @property
    def dropped(self) -> list[dict[str, Any]]:
        return [e for e in self.events if e["kind"] == TrajectoryEventKind.DROPPED]

    @property
    def steps(self) -> list[RunStep]:
        return [RunStep(e, EVENT_TEMPLATES.get(e["kind"], UNKNOWN_EVENT_TEMPLATE)) for e in self.events]


def run_view(*, workspace: Workspace, run_id: str, steps_before: int | None = None) -> RunView | None:
    """The run with each step's claims named and each retrieved quote shown in its fragment."""
    outcome = run_outcome(workspace=workspace, run_id=run_id, steps_before=steps_before)
    if outcome is None:
        return None
    run = outcome.run
    events = list(run.trajectory.get("events", []))
    ids = (
        {cid for e in events for cid in e.get("result_ids", [])}
        | {e["claim_id"] for e in events if e.get("claim_id")}
        | {cid for e in events for group in e.get("kept", []) for cid in group}
    )
    claims = {c.id: c for c in claims_selectors.claims_by_ids(workspace=workspace, claim_ids=sorted(ids))}
    for event in events:
        if event["kind"] == TrajectoryEventKind.RETRIEVE and (claim := claims.get(event["claim_id"])) is not None:
            event["context"] = _quote_in_fragment(claim)
    statements = {cid: c.statement for cid, c in claims.items()}
    return RunView(run, outcome.decision, outcome.actions, events, statements)


def _quote_in_fragment(claim: Claim) -> dict[str, str]:
    """The fragment's text cut around the claim's quote, so the page can highlight it."""
    if not claim.fragments or claim.start is None or claim.end is None:
        return {}
    fragment = claim.fragments[0]
    start, end = max(claim.start, fragment.start) - fragment.start, min(claim.end, fragment.end) - fragment.start
    text = fragment.text
    return {"before": text[max(0, start - 200) : start], "quote": text[start:end], "after": text[end : end + 200],
            "source_id": claim.source_id or ""}  # fmt: skip


@dataclass(frozen=True)
class DecisionView:
    decision: agents_graph.Decision
    actions: list[agents_graph.Action]
    claims: dict[str, Claim]
    # The decision that replaced this one, and the one this one replaced, if revised.
    superseded_by: agents_graph.Decision | None = None
    supersedes: agents_graph.Decision | None = None


def decision_view(*, workspace: Workspace, decision_id: str, as_of: str | None = None) -> DecisionView | None:
    """The decision, the claims behind each justification with their quotes, its actions, and its revisions.
    With `as_of` (a graph time): all of it as it was then (the justifications, claims, actions and revisions
    then); None when there is no such decision, or it did not exist yet then."""
    decision = decision_get(workspace=workspace, decision_id=decision_id, as_of=as_of)
    if decision is None:
        return None
    claim_ids = [s.id for s in decision.supports if s.label == "Claim"]
    if as_of is not None:
        then = claims_selectors.claims_as_of(workspace=workspace, claim_ids=claim_ids, as_of=as_of)
        # One read per action and revision as it was then: a decision has few of them.
        actions = [a for i in decision.action_ids if (a := action_get(workspace=workspace, action_id=i, as_of=as_of))]
        revisions = {
            d.id: d
            for i in _revisions(decision)
            if (d := decision_get(workspace=workspace, decision_id=i, as_of=as_of))
        }
        newer, older = (revisions.get(other or "") for other in (decision.superseded_by, decision.supersedes))
        return DecisionView(decision, actions, {c.id: c for c in then}, newer, older)
    claims = {c.id: c for c in claims_selectors.claims_by_ids(workspace=workspace, claim_ids=claim_ids)}
    actions = decision_actions(workspace=workspace, decision=decision)
    revisions = {d.id: d for d in decisions_get(workspace=workspace, decision_ids=_revisions(decision))}
    newer, older = (revisions.get(other or "") for other in (decision.superseded_by, decision.supersedes))
    return DecisionView(decision, actions, claims, newer, older)


def _revisions(decision: agents_graph.Decision) -> list[str]:
    return [other for other in (decision.superseded_by, decision.supersedes) if other]


# -- pages of the API's lists ------------------------------------------------------------------------


def decisions_page(
    *, workspace: Workspace, status: str, limit: int, cursor: str | None
) -> Paged[agents_graph.Decision]:
    """A page of the decisions (with this status, or all for ''), newest first."""
    return workspace_page(
        "decisions", workspace=workspace, status=status, cursor=cursor, limit=limit,
        read=agents_graph.decision_list, count=agents_graph.decision_count,
    )  # fmt: skip


def actions_page(*, workspace: Workspace, status: str, limit: int, cursor: str | None) -> Paged[agents_graph.Action]:
    """A page of the actions (with this status, or all for ''), newest first."""
    return workspace_page(
        "actions", workspace=workspace, status=status, cursor=cursor, limit=limit,
        read=agents_graph.action_list, count=agents_graph.action_count,
    )  # fmt: skip


def runs_page(*, workspace: Workspace, limit: int, cursor: str | None) -> Paged[agents_graph.Run]:
    """A page of the agent's runs, newest first (without their trajectories)."""
    return workspace_page(
        "runs", workspace=workspace, cursor=cursor, limit=limit,
        read=agents_graph.run_list, count=agents_graph.run_count,
    )  # fmt: skip


def action_get(*, workspace: Workspace, action_id: str, as_of: str | None = None) -> agents_graph.Action | None:
    """The action with the decisions it depends on, or None. With `as_of` (a moment as
    afterhack.clock.moment_iso gives it): the action as it was then, or None if it did not exist yet."""
    if as_of is None:
        return agents_graph.action_get(workspace=workspace, action_id=action_id)
    then = agents_graph.action_as_of(workspace=workspace, action_id=action_id, as_of=as_of)
    return agents_history.action_at(then, as_of=as_of) if then else None


@dataclass(frozen=True)
class ActionView:
    """An action with the decisions it depends on (each with its status and why it needs review)."""

    action: agents_graph.Action
    decisions: list[agents_graph.Decision]

    @property
    def holding_it(self) -> list[agents_graph.Decision]:
        """The decisions that hold it back: those that need review."""
        return [d for d in self.decisions if d.status == DecisionStatus.NEEDS_REVIEW]

    @property
    def reopenable(self) -> bool:
        """Whether a cancelled action could be reopened now: every decision it depends on holds."""
        return all(status_holds(decision=True, status=d.status) for d in self.decisions)


def action_view(*, workspace: Workspace, action_id: str, as_of: str | None = None) -> ActionView | None:
    """The action and its decisions, in two queries; None when there is no such action. With `as_of` (a graph
    time): the action and its decisions as they were then (one read each); None if it did not exist yet then."""
    action = action_get(workspace=workspace, action_id=action_id, as_of=as_of)
    if action is None:
        return None
    if as_of is not None:
        then = [d for i in action.decision_ids if (d := decision_get(workspace=workspace, decision_id=i, as_of=as_of))]
        return ActionView(action, then)
    return ActionView(action, agents_graph.decisions_get(workspace=workspace, decision_ids=action.decision_ids))


def actions_get(*, workspace: Workspace, action_ids: list[str]) -> list[agents_graph.Action]:
    """The actions with these ids that exist, in the order given (one query for all of them)."""
    return agents_graph.actions_get(workspace=workspace, action_ids=action_ids)


def decisions_get(*, workspace: Workspace, decision_ids: list[str]) -> list[agents_graph.Decision]:
    """The decisions with these ids that exist, in the order given (one query for all of them)."""
    return agents_graph.decisions_get(workspace=workspace, decision_ids=decision_ids)


def newest_runs(*, workspace: Workspace, limit: int = 20) -> list[agents_graph.Run]:
    """The agent's newest runs (without their trajectories)."""
    return agents_graph.run_list(workspace=workspace, limit=limit)


# -- the pages' lists (afterhack/listing.py) ---------------------------------------------------------------


def newest_actions(*, workspace: Workspace, status: str = "", decision_id: str = "") -> list[agents_graph.Action]:
    """The newest actions (with this status, or all for ''); only those depending on the decision, if one is named
    (none for a decision that does not exist)."""
    if not decision_id:
        return agents_graph.action_list(workspace=workspace, status=status)
    decision = agents_graph.decision_get(workspace=workspace, decision_id=decision_id)
    actions = agents_graph.actions_get(workspace=workspace, action_ids=decision.action_ids) if decision else []
    actions.sort(key=lambda action: (action.created_at, action.id), reverse=True)
    return [action for action in actions if not status or action.status == status]


def decision_rows(*, workspace: Workspace, criteria: Criteria, offset: int, limit: int) -> list[agents_graph.Decision]:
    """One page of the decisions list, filtered, sorted and paged as the criteria ask."""
    return agents_graph.decision_rows(workspace=workspace, criteria=criteria, offset=offset, limit=limit)


def decision_rows_count(*, workspace: Workspace, criteria: Criteria) -> int:
    """How many decisions the decisions list has with these filters."""
    return agents_graph.decision_rows_count(workspace=workspace, criteria=criteria)


def action_rows(*, workspace: Workspace, criteria: Criteria, offset: int, limit: int) -> list[agents_graph.Action]:
    """One page of the actions list, filtered, sorted and paged as the criteria ask."""
    return agents_graph.action_rows(workspace=workspace, criteria=criteria, offset=offset, limit=limit)


def action_rows_count(*, workspace: Workspace, criteria: Criteria) -> int:
    """How many actions the actions list has with these filters."""
    return agents_graph.action_rows_count(workspace=workspace, criteria=criteria)


def run_rows(*, workspace: Workspace, criteria: Criteria, offset: int, limit: int) -> list[agents_graph.Run]:
    """One page of the runs list, filtered, sorted and paged as the criteria ask."""
    return agents_graph.run_rows(workspace=workspace, criteria=criteria, offset=offset, limit=limit)


def run_rows_count(*, workspace: Workspace, criteria: Criteria) -> int:
    """How many runs the runs list has with these filters."""
    return agents_graph.run_rows_count(workspace=workspace, criteria=criteria)


# -- the review queue ---------------------------------------------------------------------------------

# Each side of the review queue shows at most this many decisions, the most recently flagged first;
# GET /decisions?status=needs_review pages through all of them.
REVIEW_LIMIT = 200


@dataclass(frozen=True)
class Review:
    """Decisions waiting for a reviewer: those that lost their support, and questions the agent could not answer."""

    lost_support: list[agents_graph.Decision]
    unanswered: list[agents_graph.Decision]


def review(*, workspace: Workspace, limit: int = REVIEW_LIMIT) -> Review:
    """The review queue in its two parts, each at most `limit` long, the most recently flagged first."""
    return Review(
        lost_support=agents_graph.review_list(workspace=workspace, unanswered=False, limit=limit),
        unanswered=agents_graph.review_list(workspace=workspace, unanswered=True, limit=limit),
    )


def decision_actions(*, workspace: Workspace, decision: agents_graph.Decision) -> list[agents_graph.Action]:
    """The actions that depend on the decision."""
    return agents_graph.actions_get(workspace=workspace, action_ids=decision.action_ids)


def actions_by_decision(
    *, workspace: Workspace, decisions: list[agents_graph.Decision]
) -> dict[str, list[agents_graph.Action]]:
    """For each decision, the actions that depend on it (read in one query for all of them)."""
    # An action that depends on two of them is read once and listed under each.
    ids = list(dict.fromkeys(a for d in decisions for a in d.action_ids))
    found = {a.id: a for a in agents_graph.actions_get(workspace=workspace, action_ids=ids)}
    return {d.id: [found[a] for a in d.action_ids if a in found] for d in decisions}


# What rests on a claim is rewound to a moment by one read per decision and per action (as of then); past these
# many, the claim page shows it in the present only.
MAX_REWOUND_DEPENDENTS = 30


def rests_on_then(
    *, workspace: Workspace, claim_id: str, dependents: list[Dependent], as_of: str
) -> list[tuple[Dependent, list[agents_graph.Action]]] | None:
    """What rested on the claim at `as_of` (`dependents`: what rests on it now; edges are never deleted, so what
    rested on it then is among them): each derived claim that existed then, and each decision whose justifications
    then included it or something resting on it then, with its status then, and the actions under it then.
    None when there are too many to rewind one by one."""
    decision_ids = [d.id for d in dependents if d.label == "Decision"]
    if len(decision_ids) > MAX_REWOUND_DEPENDENTS:
        return None
    claims = {c.id: c for c in claims_selectors.claims_as_of(
        workspace=workspace, claim_ids=[d.id for d in dependents if d.label == "Claim"], as_of=as_of)}  # fmt: skip
    decisions = {i: d for i in decision_ids if (d := decision_get(workspace=workspace, decision_id=i, as_of=as_of))}
    # A decision rested on it then if a justification it had then did: on the claim, a derived claim, or a decision
    # that did (a re-justification since may have added the edges that make it rest on the claim now).
    resting, grown = {claim_id, *claims}, True
    while grown:
        more = {i for i, d in decisions.items() if i not in resting and any(x.id in resting for x in d.supports)}
        resting, grown = resting | more, bool(more)
    decisions = {i: d for i, d in decisions.items() if i in resting}
    action_ids = list(dict.fromkeys(a for d in decisions.values() for a in d.action_ids))
    if len(action_ids) > MAX_REWOUND_DEPENDENTS:
        return None
    actions = {i: a for i in action_ids if (a := action_get(workspace=workspace, action_id=i, as_of=as_of))}
    rows: list[tuple[Dependent, list[agents_graph.Action]]] = []
    for dependent in dependents:
        if (claim := claims.get(dependent.id)) is not None:
            rows.append((replace(dependent, status=claim.status), []))
        elif (decision := decisions.get(dependent.id)) is not None:
            under = [actions[a] for a in decision.action_ids if a in actions]
            rows.append((replace(dependent, status=decision.status), under))
    return rows


def open_actions(actions: list[agents_graph.Action]) -> list[agents_graph.Action]:
    """The actions still to do (pending or held): those a revision moves or cancels, and a dismissal cancels."""
    return [a for a in actions if a.status in (ActionStatus.PENDING, ActionStatus.HELD)]


def decision_get(*, workspace: Workspace, decision_id: str, as_of: str | None = None) -> agents_graph.Decision | None:
    """The decision, or None. With `as_of` (a moment as afterhack.clock.moment_iso gives it): the decision as
    it was then (status, review state, justifications, supports' statuses, actions), or None if it did not
    exist yet."""
    if as_of is None:
        return agents_graph.decision_get(workspace=workspace, decision_id=decision_id)
    then = agents_graph.decision_as_of(workspace=workspace, decision_id=decision_id, as_of=as_of)
    return agents_history.decision_at(then, as_of=as_of) if then else None


def claim_cards(*, workspace: Workspace, claim_ids: list[str]) -> list[ClaimCard]:
    """These claims (those that exist, in order), each with its status and source."""
    return picker_selectors.claim_cards(workspace=workspace, claim_ids=claim_ids)


# -- the decision picker ---------------------------------------------------------------------------


def pick_item(decision: agents_graph.Decision) -> PickItem:
    """A decision as the pickers show it: where it comes from in words."""
    if decision.kind == DecisionKind.UNANSWERED:
        origin = f"the agent could not answer “{decision.question or 'a question'}”"
    elif decision.origin == Origin.AGENT:
        origin = f"the agent's answer to “{decision.question}”" if decision.question else "the agent's answer"
    else:
        origin = f"by {decision.created_by}" if decision.created_by else "by a reviewer"
    usable = status_holds(decision=True, status=decision.status)
    return PickItem(decision.id, decision.title, decision.status, origin, decision.created_at, usable)


def decision_items(*, workspace: Workspace, decision_ids: list[str]) -> list[PickItem]:
    """These decisions as the pickers show them (those that exist, in order)."""
    return [pick_item(d) for d in decisions_get(workspace=workspace, decision_ids=decision_ids)]


def decision_finds(*, workspace: Workspace, query: str, limit: int = PICK_LIMIT) -> list[PickItem]:
    """The decisions whose title or question has the query or its words (the newest for an empty one)."""
    query = " ".join(storable(query).split())[:MAX_SEARCH_CHARS]
    words = search_selectors.content_words(query)
    ids = agents_graph.decision_find(workspace=workspace, phrase=query.lower(), words=words, limit=limit)
    return decision_items(workspace=workspace, decision_ids=ids)


def decision_picker(
    *, workspace: Workspace, field: str, query: str = "", chosen: list[str] | tuple[str, ...] = (), **shown: object
) -> Picker:
    """A decision picker (`agents:pick` answers its searches) with its results for `query` and the `chosen` ones."""
    return picker_of(
        find=lambda q: decision_finds(workspace=workspace, query=q),
        get=lambda ids: decision_items(workspace=workspace, decision_ids=ids),
        query=query, chosen=chosen, endpoint="agents:pick", field=field, noun="decision",
        **{"key": field, "label": "Find decisions", **shown},
    )  # fmt: skip
