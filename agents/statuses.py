"""Statuses of decisions and actions, shared by the code, the pages and the API's schemas."""

from __future__ import annotations

from enum import StrEnum


class DecisionStatus(StrEnum):
    """Whether a decision still rests on something that holds, or was replaced by a revision."""

    SUPPORTED = "supported"
    NEEDS_REVIEW = "needs_review"
    SUPERSEDED = "superseded"


class DecisionKind(StrEnum):
    """What a decision is: made by a person, the agent's answer, or a question the agent could not answer."""

    MANUAL = "manual"
    AGENT = "agent"
    UNANSWERED = "unanswered"


class RevisedActions(StrEnum):
    """What a revision does with the open (pending or held) actions of the decision it replaces."""

    MOVE = "move"
    CANCEL = "cancel"


class ActionStatus(StrEnum):
    """Where an action stands; held while a decision it depends on needs review."""

    PENDING = "pending"
    HELD = "held"
    DONE = "done"
    CANCELLED = "cancelled"


class FollowUp(StrEnum):
    """What became of a done action after a decision it rested on lost its support (null: nothing to follow up).

    It stays done (it happened); `needed` until a reviewer plans a follow-up action (`planned`, then `done` when that
    one is done) or says none is needed (`not_needed`, with a reason)."""

    NEEDED = "needed"
    PLANNED = "planned"
    DONE = "done"
    NOT_NEEDED = "not_needed"


class Origin(StrEnum):
    """Who made a decision or an action: a person, or the agent."""

    REVIEWER = "reviewer"
    AGENT = "agent"


class RunAgent(StrEnum):
    """Who answers a run: the configured model, or the offline rule-based agent when none is configured."""

    MODEL = "model"
    OFFLINE = "offline"
    # An outside agent that calls the tools itself, over MCP.
    MCP = "mcp"


class RunOrigin(StrEnum):
    """Where a run comes from: the built-in agent asked a question, or an outside agent's MCP session."""

    AGENT = "agent"
    MCP = "mcp"


class TrajectoryEventKind(StrEnum):
    """One step of an agent run's trajectory, as stored on the run and shown on its page."""

    SEARCH = "search"
    RETRIEVE = "retrieve"
    RETRIEVE_REFUSED = "retrieve_refused"
    TOOL_ERROR = "tool_error"
    MODEL_CALL = "model_call"
    HANDOFF = "handoff"
    VERDICT = "verdict"
    DROPPED = "dropped"
    ACTIONS_WITHHELD = "actions_withheld"
    FAILED = "failed"
    # The steps only an MCP session takes: it adds sources, proposes claims and records decisions itself.
    SOURCE_ADDED = "source_added"
    PROPOSAL = "proposal"
    DECISION = "decision"
    CONTRADICTION_FLAGGED = "contradiction_flagged"
