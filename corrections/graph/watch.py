"""What the contradiction watch writes on claims and reads of them: the mark of a claim it has judged
(`watched_at`, set by one batched write once a watch run is done) and the claims that became current in a window
of time and have no mark, which the sweep watches (corrections/services/watch.py `watches_sweep`).

The mark is written into claims' label by corrections, the app that owns the watch (docs/conventions.md: a query
that writes into another app's labels belongs to the app that owns the operation). The window is read on
`current_since_ms`, the moment a claim became current as a number, which claims range-indexes: FalkorDB 4.22's range
index drops a `<` bound on a string parameter (FalkorDB issue #2239, workspaces/graph.py `is_time`), but answers a
window of numbers rightly, through the index (tests/corrections/test_suggestions_watch_sweep.py checks the plan)."""

from __future__ import annotations

from afterhack import graph
from afterhack.cypher import word
from afterhack.graph import HasGraph
from afterhack.ids import parse_id
from claims.statuses import ClaimStatus

# Marks these claims watched. A claim that is gone is skipped; one no longer current is marked all the same (the
# sweep looks only at current claims).
CLAIMS_WATCHED_MARK = """
UNWIND $claim_ids AS claim_id
MATCH (c:Claim {id: claim_id})
SET c.watched_at = $now
RETURN count(c)
"""


def claims_watched_mark(*, workspace: HasGraph, claim_ids: list[str], now: str) -> int:
    """Marks these claims watched at `now`: how many it marked."""
    ids = [claim_id for claim_id in dict.fromkeys(claim_ids) if parse_id(claim_id)]
    if not ids:
        return 0
    return int(graph.query(workspace, CLAIMS_WATCHED_MARK, {"claim_ids": ids, "now": now})[0][0])


# The current claims that became current in [$since_ms, $before_ms) and were never watched, the newest first: the
# index on `current_since_ms` finds the window's claims (a day's, whatever the workspace's size), the rest is a
# filter on each. A claim from before claims kept `current_since_ms` is not in the index, so never swept.
CLAIMS_UNWATCHED = f"""
MATCH (c:Claim)
WHERE c.current_since_ms >= $since_ms AND c.current_since_ms < $before_ms
WITH c WHERE c.status = {word(ClaimStatus.CURRENT)} AND c.watched_at IS NULL
RETURN c.id ORDER BY c.current_since_ms DESC, c.id LIMIT $limit
"""


def claims_unwatched(*, workspace: HasGraph, since_ms: int, before_ms: int, limit: int) -> list[str]:
    """The ids of at most `limit` current claims that became current in [since_ms, before_ms) and were never
    watched, the newest first."""
    params = {"since_ms": since_ms, "before_ms": before_ms, "limit": limit}
    return [str(row[0]) for row in graph.ro_query(workspace, CLAIMS_UNWATCHED, params)]
