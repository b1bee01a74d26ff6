"""A claim's suggestions as its history shows them (docs/history.md, "Suggestions in a claim's history"): those ABOUT
the claim (it would be corrected, or, an agent's claim, approved) and those BY it (it says otherwise than an older
claim), newest first, as of a moment too, in ONE bounded read.

A suggestion keeps when it was made (`created_at`) and when its status last changed (`decided_at`: accepted, turned
down or closed as obsolete; a suggestion is decided once), so the past needs no history of its own: it existed at a
moment if made by then, and was open then unless decided by then (corrections/selectors/suggestion_history.py
rewinds it)."""

from __future__ import annotations

from dataclasses import dataclass

from afterhack import graph
from afterhack.graph import HasGraph
from afterhack.ids import parse_id
from corrections.graph.suggestions import FIELDS, Suggestion

# The newest $limit made by $as_of ('' for now), each with the statement of the claim it is about (for one BY the
# claim: the older claim it says otherwise than). Found from the claim by its id (the index), then along the
# suggestions' edges: written as one pattern, FalkorDB would scan every Suggestion instead.
CLAIM_SUGGESTIONS = (
    "MATCH (c:Claim {id: $claim_id}) WITH c "
    "MATCH (c)<-[:ABOUT|BY]-(x:Suggestion) WHERE $as_of = '' OR x.created_at <= $as_of "
    "WITH x ORDER BY x.created_at DESC, x.id DESC LIMIT $limit "
    "OPTIONAL MATCH (x)-[:ABOUT]->(about:Claim) "
    "RETURN " + FIELDS + " AS suggestion, about.statement AS about "
    "ORDER BY suggestion.created_at DESC, suggestion.id DESC"
)  # fmt: skip


@dataclass(frozen=True)
class Noticed:
    """A suggestion as a claim's history reads it: the suggestion as it is now, and the statement of the claim it
    is about."""

    suggestion: Suggestion
    about: str


def claim_suggestions(*, workspace: HasGraph, claim_id: str, as_of: str = "", limit: int) -> list[Noticed]:
    """The newest `limit` suggestions about or by the claim made by `as_of` ('' for now), as they are now."""
    if parse_id(claim_id) is None:
        return []
    params = {"claim_id": claim_id, "as_of": as_of, "limit": limit}
    rows = graph.ro_query(workspace, CLAIM_SUGGESTIONS, params)
    return [Noticed(Suggestion.from_map(row[0]), row[1] or "") for row in rows]
