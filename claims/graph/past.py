"""Claims as they were (docs/history.md, "Reading the past"; the rewind is claims/history.py): the claims as they
are now with their Changes since a moment, and the fragments an old version of a claim rested on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from afterhack import graph
from afterhack import history_graph as history
from afterhack.graph import HasGraph
from afterhack.ids import parse_id
from claims.graph.claims import CLAIM_PROPERTIES, CLAIMS_FOUND
from claims.graph.shapes import Claim, Fragment

# The claims with these ids as they are now, each with its Changes after $as_of and when its replacement (if any)
# was made: everything an as-of read needs, in one query.
CLAIMS_AS_OF = (
    CLAIMS_FOUND
    + history.changes_after("c", keep="position, c, fragments, old, replacement, premises", alias="changes")
    + "RETURN {claim: "
    + CLAIM_PROPERTIES
    + ", fragments: fragments, supersedes: old.id, superseded_by: replacement.id, premises: premises, "
    "replaced_at: replacement.created_at, changes: changes} AS claim ORDER BY position"
)


@dataclass(frozen=True)
class ClaimThen:
    """A claim as it is now, with what rewinding it to $as_of needs: its Changes after then, and when its
    replacement was made."""

    claim: Claim
    changes: list[dict[str, Any]]
    replaced_at: str | None


def claims_as_of(*, workspace: HasGraph, claim_ids: list[str], as_of: str) -> list[ClaimThen]:
    """The claims with these ids that exist now, in the order given, each with its Changes after `as_of`."""
    claim_ids = [i for i in claim_ids if parse_id(i)]
    if not claim_ids:
        return []
    rows = graph.ro_records(workspace, CLAIMS_AS_OF, {"claim_ids": claim_ids, "as_of": as_of})
    return [ClaimThen(Claim.from_map(row), row["changes"], row["replaced_at"]) for row in rows]


FRAGMENTS_GET = (
    "UNWIND range(0, size($fragment_ids) - 1) AS position MATCH (f:SourceFragment {id: $fragment_ids[position]}) "
    "RETURN f {.id, .start, .end, .text, .origin_type} AS fragment ORDER BY position"
)


def fragments_get(*, workspace: HasGraph, fragment_ids: list[str]) -> dict[str, Fragment]:
    """The fragments with these ids (fragments are never deleted), by id."""
    fragment_ids = [i for i in dict.fromkeys(fragment_ids) if parse_id(i)]
    if not fragment_ids:
        return {}
    rows = graph.ro_records(workspace, FRAGMENTS_GET, {"fragment_ids": fragment_ids})
    return {row["id"]: Fragment.from_map(row) for row in rows}
