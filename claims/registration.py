"""Claims' parts of the workspaces registry (workspaces/registry.py), registered in claims/apps.py: its audit verbs,
its labels' indexes, its counts for the dashboard and the menu's links, and where its events name a claim."""

from __future__ import annotations

from afterhack.clock import stale_before
from afterhack.history_graph import ChangeKind
from claims.graph import attention as attention_graph
from claims.selectors import claims as claim_selectors
from claims.statuses import JobStatus
from notifications.registry import Watchable, register_watchable
from notifications.statuses import WatchKind
from workspaces import registry
from workspaces.models import Workspace
from workspaces.registry import AttentionPart, AuditVerb, DashboardItem, EventPage, IndexSet, MenuItem, register

SOURCE = EventPage("claims:source", "source_id", "source_id")
CLAIM = EventPage("claims:claim", "claim_id", "claim_id", as_of=True)

VERBS = (
    AuditVerb(
        "source.added", "added the source “{target}”", "Source added", page=SOURCE,
        withheld="added a source (title withheld: not a member)",
    ),
    AuditVerb(
        "claim.added", "added the claim “{target}”", "Claim added", page=CLAIM,
        withheld="added a claim (text withheld: not a member)",
    ),
    AuditVerb(
        "claim.derived", "derived the claim “{target}”", "Claim derived", page=CLAIM,
        withheld="derived a claim (text withheld: not a member)",
    ),
    AuditVerb(
        "extraction.requested", "asked for claims to be extracted from “{target}”", "Extraction asked for",
        page=SOURCE, withheld="asked for claims to be extracted from a source (title withheld: not a member)",
        vocabulary=frozenset({"extractor"}),
    ),
    # The embeddings model's name is no workspace content.
    AuditVerb(
        "claims.embedded", "embedded claims for semantic search with the model “{target}”", "Claims embedded",
        whole=True,
    ),
)  # fmt: skip

INDEXES = IndexSet(
    by_id=attention_graph.ID_INDEXED, ranges=attention_graph.RANGE_INDEXED, fulltext=attention_graph.FULLTEXT_INDEXED
)

ATTENTION = AttentionPart(
    name="claims",
    now=(attention_graph.SOURCES, attention_graph.CLAIMS, attention_graph.EXTRACTIONS),
    columns=attention_graph.COLUMNS,
    params=lambda: attention_graph.attention_params(stale_before()),
    then=(attention_graph.SOURCES_THEN, attention_graph.CLAIMS_THEN),
    then_columns=attention_graph.THEN_COLUMNS,
    read_then=attention_graph.claims_then,
)

DASHBOARD = (
    DashboardItem(
        "extractions_failed", ("failed extraction", "failed extractions"), "claims:sources",
        query=f"?extraction={JobStatus.FAILED}", attention=True, alert=True, order=40,
    ),
    DashboardItem(
        "extractions_running", ("extraction running", "extractions running"), "claims:sources",
        query=f"?extraction={JobStatus.RUNNING}", attention=True, order=50,
    ),
    DashboardItem("sources", ("source", "sources"), "claims:sources", order=10, then_count="sources"),
    DashboardItem(
        "claims", ("claim", "claims"), "claims:search", order=20, then_count="claims_total", then_by_status="claims"
    ),
)  # fmt: skip

MENU = (
    MenuItem("Sources", "claims:sources", "sources", order=10),
    MenuItem("Claims", "claims:search", "claims", order=20),
)


# A claim's events (added, derived) name it by its id: its page lists them.
EVENTS_ABOUT = (registry.EventsAbout(ChangeKind.CLAIM, "claim_id"),)


def claim_exists(workspace: Workspace, claim_id: str) -> bool:
    """Whether the workspace holds a claim by this id, whatever its status (a person may watch it)."""
    return claim_selectors.claim_get(workspace=workspace, claim_id=claim_id) is not None


def register_parts() -> None:
    """Registers claims' parts with workspaces, and its claims as watchable with notifications."""
    register(*VERBS, INDEXES, ATTENTION, *DASHBOARD, *MENU, *EVENTS_ABOUT)
    register_watchable(Watchable(WatchKind.CLAIM, claim_exists))
