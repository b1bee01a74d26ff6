"""The claims app's lists of sources and claims, each described once (afterhack/lists/spec.py): what each sorts by,
and each filter declared once for the page (its words) and the Cypher (its condition on the variables the list
queries of claims/graph/lists.py bind: s, the source's latest `extraction`, c, and the claim's source s); and the
statuses in words."""

from __future__ import annotations

from afterhack.ids import parse_id
from afterhack.lists.filters import Filter, choice, made
from afterhack.lists.spec import ListSpec
from claims.statuses import ClaimStatus, SourceStatus

# Statuses and states in words, for the lists' filters and badges.
SOURCE_STATUS_WORDS = ((SourceStatus.ACTIVE, "Active"), (SourceStatus.RETRACTED, "Retracted"))
EXTRACTION_WORDS = (
    ("failed", "Failed"), ("running", "Queued or running"), ("done", "Done"), ("none", "Never extracted"),
)  # fmt: skip
CLAIM_STATUS_WORDS = (
    (ClaimStatus.CURRENT, "Current"),
    (ClaimStatus.SUPERSEDED, "Superseded by a correction"),
    (ClaimStatus.RETRACTED, "Retracted"),
    (ClaimStatus.UNSUPPORTED, "Unsupported (its premises fell)"),
    (ClaimStatus.PROPOSED, "Proposed by an agent (awaiting approval)"),
    (ClaimStatus.REJECTED, "Rejected (an agent's claim a reviewer turned down)"),
)


SOURCES = ListSpec(
    name="sources",
    noun=("source", "sources"),
    sorts={"title": "Title", "claims": "Claims", "author": "Added by", "created": "Added"},
    default_sort="-created",
    filters={
        "status": choice("Status", SOURCE_STATUS_WORDS, param="status", of="s.status"),
        "extraction": choice("Extraction", EXTRACTION_WORDS, param="extraction", of="extraction"),
        **made("s", by="Added by", since="Added from", until="Added to"),
    },
    search="Title",
)


def _source(source: str) -> dict[str, str]:
    # A source's id picks that source; other words, the sources whose title has them.
    source_id = parse_id(source) or ""
    return {"source_id": source_id, "source_title": "" if source_id else source.lower()}


CLAIMS = ListSpec(
    name="claims",
    noun=("claim", "claims"),
    sorts={"statement": "Claim", "status": "Status", "created": "Added"},
    default_sort="-created",
    filters={
        "status": choice("Status", CLAIM_STATUS_WORDS, param="status", of="c.status"),
        "source": Filter(
            "Source",
            cypher="($source_id = '' OR c.source_id = $source_id) "
            "AND ($source_title = '' OR toLower(coalesce(s.title, '')) CONTAINS $source_title)",
            to_params=_source,
        ),
        **made("c", by="Added by", since="Added from", until="Added to"),
    },
    search="Search",
    live=True,
)
