"""Corrections' parts of the workspaces registry (workspaces/registry.py), registered in corrections/apps.py: its
audit verbs (the correction's reading for staff in corrections/disclosure.py), its label's index, its counts for the
dashboard and the menu's links, and where its events name a claim or an action."""

from __future__ import annotations

from afterhack.history_graph import ChangeKind
from claims.registry import ProposedClaimReview, register_proposed_review
from corrections import disclosure
from corrections.graph import attention as attention_graph
from corrections.graph import suggestions as suggestions_graph
from corrections.services import follow_ups
from corrections.statuses import SuggestionKind, SuggestionStatus
from corrections.tellers import TELLERS
from workspaces.models import Workspace
from workspaces.registry import (
    AttentionPart,
    AuditVerb,
    DashboardItem,
    EventPage,
    EventsAbout,
    IndexSet,
    MenuItem,
    PageLink,
    register,
)

SOURCE = EventPage("claims:source", "source_id", "source_id")
DECISION = EventPage("agents:decision", "decision_id", "decision_id", as_of=True)

VERBS = (
    AuditVerb(
        disclosure.CORRECTION, "corrected a claim to “{target}”", "Correction",
        page=EventPage("corrections:detail", "correction_id", "correction_id"),
        target_whole=True, payload_whole=disclosure.PAYLOAD_WHOLE, summary_given=disclosure.correction_summary,
    ),
    AuditVerb(
        "source.retracted", "retracted the source “{target}”", "Source retracted", page=SOURCE,
        withheld="retracted a source (title withheld: not a member)",
    ),
    AuditVerb(
        "source.versioned", "added a new version of “{target}”", "New source version", page=SOURCE,
        withheld="added a new version of a source (title withheld: not a member)",
    ),
    AuditVerb(
        "decision.rejustified", "gave “{target}” a new justification", "Re-justification", page=DECISION,
        withheld="gave a decision a new justification (title withheld: not a member)",
    ),
    AuditVerb(
        "decision.revised", "revised a decision into “{target}”", "Revision",
        page=EventPage("agents:decision", "new_decision_id", "decision_id", as_of=True),
        withheld="revised a decision into a new one (title withheld: not a member)",
        vocabulary=frozenset({"actions"}),
    ),
    AuditVerb(
        "decision.dismissed", "dismissed “{target}”", "Dismissal", page=DECISION,
        withheld="dismissed a decision (title withheld: not a member)",
    ),
    # The target is the suggested statement; the page the claim it would correct.
    AuditVerb(
        "suggestion.flagged", "flagged a contradiction, suggesting “{target}”", "Contradiction flagged",
        page=EventPage("claims:claim", "claim_id", "claim_id", as_of=True),
        withheld="flagged a contradiction (text withheld: not a member)", vocabulary=frozenset({"found_by"}),
    ),
    # The watch's finds of one run, one event (the target is the count in words): ids only, whole to every reader.
    AuditVerb(
        "suggestion.found", "found {target}", "Contradictions found",
        page=EventPage("corrections:review"), whole=True,
    ),
    AuditVerb(
        "suggestion.rejected", "turned down the suggestion “{target}”", "Suggestion turned down",
        page=EventPage("claims:claim", "claim_id", "claim_id", as_of=True),
        withheld="turned down a suggested correction (text withheld: not a member)",
    ),
    AuditVerb(
        "suggestion.claim_rejected", "rejected the agent's claim “{target}”", "Agent's claim rejected",
        page=EventPage("claims:claim", "claim_id", "claim_id", as_of=True),
        withheld="rejected an agent's claim (text withheld: not a member)",
    ),
    AuditVerb(
        "suggestion.approved", "approved the agent's claim “{target}”", "Agent's claim approved",
        page=EventPage("claims:claim", "claim_id", "claim_id", as_of=True),
        withheld="approved an agent's claim (text withheld: not a member)",
    ),
    # A reviewer's answer to a done action whose decision lost its support; the target is the follow-up's title, or
    # the done action's.
    AuditVerb(
        follow_ups.PLANNED, "planned the follow-up “{target}”", "Follow-up planned",
        page=EventPage("agents:action", "follow_up_id", "action_id", as_of=True, fallback="agents:actions"),
        withheld="planned a follow-up of a done action (title withheld: not a member)",
    ),
    AuditVerb(
        follow_ups.NOT_NEEDED, "said “{target}” needs no follow-up", "No follow-up needed",
        page=EventPage("agents:action", "action_id", "action_id", as_of=True, fallback="agents:actions"),
        withheld="said a done action needs no follow-up (title withheld: not a member)",
    ),
)  # fmt: skip

# Suggestions are looked up by id and, when one is recorded, by the pair of claims it is about.
INDEXES = IndexSet(by_id=("Correction", "Suggestion"), ranges=(("Suggestion", "pair_key"),))

ATTENTION = AttentionPart(
    name="corrections",
    now=(attention_graph.CORRECTIONS,),
    columns=attention_graph.COLUMNS,
    then=(attention_graph.CORRECTIONS_THEN,),
    then_columns=attention_graph.COLUMNS,
    read_then=attention_graph.corrections_then,
)

SUGGESTED = AttentionPart(
    name="suggestions",
    now=(attention_graph.SUGGESTED,),
    columns=attention_graph.SUGGESTED_COLUMNS,
    params=lambda: {
        "suggestion_open": str(SuggestionStatus.OPEN),
        "suggestion_contradiction": str(SuggestionKind.CONTRADICTION),
        "suggestion_agent_claim": str(SuggestionKind.AGENT_CLAIM),
    },
    then=(attention_graph.SUGGESTED_THEN,),
    then_columns=attention_graph.SUGGESTED_COLUMNS,
    read_then=attention_graph.suggested_then,
)


FOLLOW_UPS = AttentionPart(
    name="follow_ups",
    now=(attention_graph.FOLLOW_UPS,),
    columns=attention_graph.FOLLOW_UPS_COLUMNS,
    params=attention_graph.follow_ups_params,
    then=(attention_graph.FOLLOW_UPS_THEN,),
    then_columns=attention_graph.FOLLOW_UPS_COLUMNS,
    changed=attention_graph.FOLLOW_UPS_CHANGED,
    read_then=attention_graph.follow_ups_then,
)


def awaiting_shown(workspace: Workspace, count: int) -> bool:
    """Whether the dashboard counts agents' claims waiting for approval: where the workspace asks for it, or while
    some wait (proposed while it did)."""
    return bool(workspace.agent_claims_need_approval or count)


DASHBOARD = (
    # Suggested corrections wait for a reviewer first: the Review page lists them in its first section.
    DashboardItem(
        "suggested", ("suggested correction", "suggested corrections"), "corrections:review", query="#suggested",
        attention=True, alert=True, order=5, then_count="suggested",
        then_words=("suggested correction open then", "suggested corrections open then"),
    ),
    # Agents' claims waiting for a reviewer's approval (the Review page's section of claims proposed by agents): shown
    # where the workspace asks for approval, or while claims proposed when it did still wait.
    DashboardItem(
        "awaiting_approval", ("claim awaits approval", "claims await approval"), "corrections:review",
        query="#proposed", attention=True, alert=True, order=7, then_count="awaiting_approval",
        then_words=("claim awaiting approval then", "claims awaiting approval then"), shown=awaiting_shown,
    ),
    # The decisions that lost support and the unanswered questions are agents' counts; the page that lists them is
    # the Review page.
    DashboardItem(
        "lost_support", ("decision that lost support", "decisions that lost support"), "corrections:review",
        query="#lost-support", attention=True, alert=True, order=10, then_count="lost_support",
        then_words=("decision that had lost support", "decisions that had lost support"),
    ),
    DashboardItem(
        "unanswered", ("unanswered question", "unanswered questions"), "corrections:review", query="#unanswered",
        attention=True, alert=True, order=20, then_count="unanswered",
    ),
    # Done actions that rested on a decision that lost its support: the Review page's "Already acted on".
    DashboardItem(
        "follow_ups_needed", ("done action needs a follow-up", "done actions need a follow-up"), "corrections:review",
        query="#acted-on", attention=True, alert=True, order=25, then_count="follow_ups_needed",
        then_words=("done action needed a follow-up then", "done actions needed a follow-up then"),
    ),
    DashboardItem(
        "corrections_recent", ("correction in the last 7 days", "corrections in the last 7 days"),
        "corrections:history", query="?since={since}", attention=True, order=60, then_count="corrections_recent",
        then_words=("correction in the 7 days before", "corrections in the 7 days before"),
    ),
    DashboardItem("corrections", ("correction", "corrections"), "corrections:history", order=50, then_count="corrections"),
)  # fmt: skip

MENU = (
    MenuItem(
        "Review", "corrections:review", "review", order=60,
        badge=("suggested", "awaiting_approval", "lost_support", "unanswered", "follow_ups_needed"),
        badge_words=("{n} needs attention", "{n} need attention"),
    ),
    MenuItem("History", "corrections:history", "history", order=70),
)  # fmt: skip


# Where staff read every workspace's audit trail (the workspaces list points staff to it).
STAFF_AUDIT = PageLink("staff_audit", "corrections:audit")


# The claim and action pages list the events about them: a correction names the claim it corrected; a correction,
# a retraction or a new version lists the actions it held and the done actions it marked as needing a follow-up
# (`affected`), a dismissal the actions it cancelled and those it marked, a revision those it moved or cancelled, and a
# follow-up planned the follow-up action (the done action's own events name it by `action_id`: agents' part).
EVENTS_ABOUT = (
    EventsAbout(ChangeKind.CLAIM, "claim_id"),
    EventsAbout(ChangeKind.ACTION, "affected.actions_held", among=True),
    EventsAbout(ChangeKind.ACTION, "affected.actions_already_done", among=True),
    EventsAbout(ChangeKind.ACTION, "actions_already_done", among=True),
    EventsAbout(ChangeKind.ACTION, "follow_up_id"),
    EventsAbout(ChangeKind.ACTION, "cancelled", among=True),
    EventsAbout(ChangeKind.ACTION, "moved", among=True),
)


# The review of a claim an agent proposes (an agent_claim suggestion), written by claims' write of the claim.
PROPOSED_REVIEW = ProposedClaimReview(suggestions_graph.AGENT_CLAIM_REVIEW, suggestions_graph.AGENT_CLAIM_REVIEW_PARAMS)


def register_parts() -> None:
    """Registers corrections' parts with workspaces, and its review of proposed claims with claims."""
    register(*VERBS, INDEXES, ATTENTION, SUGGESTED, FOLLOW_UPS, *DASHBOARD, *MENU, STAFF_AUDIT, *EVENTS_ABOUT, *TELLERS)
    register_proposed_review(PROPOSED_REVIEW)
