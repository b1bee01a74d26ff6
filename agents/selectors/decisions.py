"""Reads of decisions and the actions resting on them: one or many, as they are or as they were (`as_of`), a
decision's and an action's page, the API's pages of them, the review queue, and what rested on a claim then."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from afterhack.holds import status_holds
from afterhack.lists.cursors import Paged, workspace_page
from agents import history as agents_history
from agents.graph import actions as actions_graph
from agents.graph import decisions as decisions_graph
from agents.graph import past as past_graph
from agents.graph import review as review_graph
from agents.graph.actions import DoneWhen as DoneWhen
from agents.graph.shapes import Action as Action
from agents.graph.shapes import Decision as Decision
from agents.graph.shapes import Support as Support
from agents.statuses import ActionStatus, DecisionStatus
from claims.selectors import claims as claims_selectors
from claims.selectors import picker as picker_selectors
from claims.selectors.claims import Claim
from claims.selectors.picker import ClaimCard as ClaimCard
from claims.selectors.provenance import Dependent
from workspaces.models import Workspace

# The shapes these reads return are re-exported above (`X as X`), so pages and API modules name them without a
# graph module.


@dataclass(frozen=True)
class DecisionView:
    decision: Decision
    actions: list[Action]
    claims: dict[str, Claim]
    # The decision that replaced this one, and the one this one replaced, if revised.
    superseded_by: Decision | None = None
    supersedes: Decision | None = None


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


def _revisions(decision: Decision) -> list[str]:
    return [other for other in (decision.superseded_by, decision.supersedes) if other]


def decision_get(*, workspace: Workspace, decision_id: str, as_of: str | None = None) -> Decision | None:
    """The decision, or None. With `as_of` (a moment as afterhack.clock.moment_iso gives it): the decision as
    it was then (status, review state, justifications, supports' statuses, actions), or None if it did not
    exist yet."""
    if as_of is None:
        return decisions_graph.decision_get(workspace=workspace, decision_id=decision_id)
    then = past_graph.decision_as_of(workspace=workspace, decision_id=decision_id, as_of=as_of)
    return agents_history.decision_at(then, as_of=as_of) if then else None


def decisions_get(*, workspace: Workspace, decision_ids: list[str]) -> list[Decision]:
    """The decisions with these ids that exist, in the order given (one query for all of them)."""
    return decisions_graph.decisions_get(workspace=workspace, decision_ids=decision_ids)


def decisions_page(*, workspace: Workspace, status: str, limit: int, cursor: str | None) -> Paged[Decision]:
    """A page of the decisions (with this status, or all for ''), newest first."""
    return workspace_page(
        "decisions", workspace=workspace, status=status, cursor=cursor, limit=limit,
        read=decisions_graph.decision_list, count=decisions_graph.decision_count,
    )  # fmt: skip


def action_get(*, workspace: Workspace, action_id: str, as_of: str | None = None) -> Action | None:
    """The action with the decisions it depends on, or None. With `as_of` (a moment as
    afterhack.clock.moment_iso gives it): the action as it was then, or None if it did not exist yet."""
    if as_of is None:
        return actions_graph.action_get(workspace=workspace, action_id=action_id)
    then = past_graph.action_as_of(workspace=workspace, action_id=action_id, as_of=as_of)
    return agents_history.action_at(then, as_of=as_of) if then else None


@dataclass(frozen=True)
class ActionView:
    """An action with the decisions it depends on (each with its status and why it needs review)."""

    action: Action
    decisions: list[Decision]
    # The follow-up action planned for this done action, and the done action this one follows up.
    follow_up: Action | None = None
    follows_up: Action | None = None

    @property
    def holding_it(self) -> list[Decision]:
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
    linked = {a.id: a for a in actions_get(workspace=workspace, action_ids=_linked(action))}
    follow_up, follows_up = linked.get(action.follow_up_id or ""), linked.get(action.follows_up or "")
    if as_of is not None:
        then = [d for i in action.decision_ids if (d := decision_get(workspace=workspace, decision_id=i, as_of=as_of))]
        return ActionView(action, then, follow_up, follows_up)
    decisions = decisions_graph.decisions_get(workspace=workspace, decision_ids=action.decision_ids)
    return ActionView(action, decisions, follow_up, follows_up)


def _linked(action: Action) -> list[str]:
    """The ids of the actions a follow-up links it to (its follow-up, the action it follows up)."""
    return [i for i in (action.follow_up_id, action.follows_up) if i]


def actions_get(*, workspace: Workspace, action_ids: list[str]) -> list[Action]:
    """The actions with these ids that exist, in the order given (one query for all of them)."""
    return actions_graph.actions_get(workspace=workspace, action_ids=action_ids)


def actions_page(*, workspace: Workspace, status: str, limit: int, cursor: str | None) -> Paged[Action]:
    """A page of the actions (with this status, or all for ''), newest first."""
    return workspace_page(
        "actions", workspace=workspace, status=status, cursor=cursor, limit=limit,
        read=actions_graph.action_list, count=actions_graph.action_count,
    )  # fmt: skip


def newest_actions(*, workspace: Workspace, status: str = "", decision_id: str = "") -> list[Action]:
    """The newest actions (with this status, or all for ''); only those depending on the decision, if one is named
    (none for a decision that does not exist)."""
    if not decision_id:
        return actions_graph.action_list(workspace=workspace, status=status)
    decision = decisions_graph.decision_get(workspace=workspace, decision_id=decision_id)
    actions = actions_graph.actions_get(workspace=workspace, action_ids=decision.action_ids) if decision else []
    actions.sort(key=lambda action: (action.created_at, action.id), reverse=True)
    return [action for action in actions if not status or action.status == status]


def decision_actions(*, workspace: Workspace, decision: Decision) -> list[Action]:
    """The actions that depend on the decision."""
    return actions_graph.actions_get(workspace=workspace, action_ids=decision.action_ids)


def actions_by_decision(*, workspace: Workspace, decisions: list[Decision]) -> dict[str, list[Action]]:
    """For each decision, the actions that depend on it (read in one query for all of them)."""
    # An action that depends on two of them is read once and listed under each.
    ids = list(dict.fromkeys(a for d in decisions for a in d.action_ids))
    found = {a.id: a for a in actions_graph.actions_get(workspace=workspace, action_ids=ids)}
    return {d.id: [found[a] for a in d.action_ids if a in found] for d in decisions}


def open_actions(actions: list[Action]) -> list[Action]:
    """The actions still to do (pending or held): those a revision moves or cancels, and a dismissal cancels."""
    return [a for a in actions if a.status in (ActionStatus.PENDING, ActionStatus.HELD)]


# Each side of the review queue shows at most this many decisions, the most recently flagged first;
# GET /decisions?status=needs_review pages through all of them.
REVIEW_LIMIT = 200


@dataclass(frozen=True)
class Review:
    """What waits for a reviewer: decisions that lost their support, questions the agent could not answer, and done
    actions that rested on a decision that lost its support (their follow-up needed)."""

    lost_support: list[Decision]
    unanswered: list[Decision]
    acted_on: list[Action] = field(default_factory=list)


def review(*, workspace: Workspace, limit: int = REVIEW_LIMIT) -> Review:
    """The review queue in its three parts, each at most `limit` long, the most recently flagged first."""
    return Review(
        lost_support=review_graph.review_list(workspace=workspace, unanswered=False, limit=limit),
        unanswered=review_graph.review_list(workspace=workspace, unanswered=True, limit=limit),
        acted_on=actions_graph.acted_on(workspace=workspace, limit=limit),
    )


def actions_done_when(*, workspace: Workspace, action_ids: list[str]) -> dict[str, DoneWhen]:
    """When and by whom each of these done actions was marked done, by id."""
    return actions_graph.actions_done_when(workspace=workspace, action_ids=action_ids)


# What rests on a claim is rewound to a moment by one read per decision and per action (as of then); past these
# many, the claim page shows it in the present only.
MAX_REWOUND_DEPENDENTS = 30


def rests_on_then(
    *, workspace: Workspace, claim_id: str, dependents: list[Dependent], as_of: str
) -> list[tuple[Dependent, list[Action]]] | None:
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
    rows: list[tuple[Dependent, list[Action]]] = []
    for dependent in dependents:
        if (claim := claims.get(dependent.id)) is not None:
            rows.append((replace(dependent, status=claim.status), []))
        elif (decision := decisions.get(dependent.id)) is not None:
            under = [actions[a] for a in decision.action_ids if a in actions]
            rows.append((replace(dependent, status=decision.status), under))
    return rows


def claim_cards(*, workspace: Workspace, claim_ids: list[str]) -> list[ClaimCard]:
    """These claims (those that exist, in order), each with its status and source."""
    return picker_selectors.claim_cards(workspace=workspace, claim_ids=claim_ids)
