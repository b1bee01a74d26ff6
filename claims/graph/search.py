"""Lexical search: the fulltext index ranks and windows the claims in the query (a phrase, its words, or its
words tier by tier), and the newest claims a picker shows before anything is typed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from afterhack import graph
from afterhack.cypher import hold_members, word
from afterhack.graph import HasGraph
from claims import fulltext
from claims.statuses import ClaimStatus, Match

# A search hit as a SearchHit reads it; `hits` is how many of the searched words it contains.
SEARCH_HIT_FIELDS = "{id: c.id, statement: c.statement, status: c.status, source_id: c.source_id, hits: hits} AS hit"
# The end of every ranked search: the ranked claims (each `c` with its `hits`, at most $candidates, in order) as one
# list, of which only the asked window [$offset..$end] leaves the server, each as a SearchHit reads it, with `total`.
RANKED_WINDOW = """
WITH collect({c: c, hits: hits}) AS ranked
RETURN size(ranked) AS total,
       [r IN ranked[$offset..$end] |
        {id: r.c.id, statement: r.c.statement, status: r.c.status, source_id: r.c.source_id, hits: r.hits}] AS hits
"""

# Lexical search goes through the fulltext index (workspaces/graph.py FULLTEXT_CLAIM_STATEMENT); `$query` is made
# by claims/fulltext.py from the query's words only, never its syntax. Ranked in the query, so that only the
# asked window leaves the server: current before superseded, then fulltext relevance, then by id (the same
# search over the same claims ranks alike every time); `$before` leaves out claims added later (a search's
# pages rank the claims of its first page). At most `$candidates` are ranked; `total` is how many of them.
CLAIM_SEARCH_FULLTEXT = (
    f"""
CALL db.idx.fulltext.queryNodes('Claim', $query) YIELD node, score
WITH node AS c, score
WHERE $before = '' OR c.created_at <= $before
WITH c, $hits AS hits, score ORDER BY c.status <> {word(ClaimStatus.CURRENT)}, score DESC, c.id LIMIT $candidates
"""
    + RANKED_WINDOW
)

# The claims most like a statement (claims_alike, for the contradiction watch): only the first $scan matches the
# index yields are ranked (FalkorDB stops asking the index there), so a query of common words costs at most that.
CLAIM_ALIKE = f"""
CALL db.idx.fulltext.queryNodes('Claim', $query) YIELD node, score
WITH node AS c, score LIMIT $scan
WITH c, score ORDER BY c.status <> {word(ClaimStatus.CURRENT)}, score DESC, c.id LIMIT $candidates
RETURN {SEARCH_HIT_FIELDS.replace("hits: hits", "hits: 1")}
"""

# One tier of the fallback (`_tiered`): the claims $query finds less those $exclude finds (the tiers
# above, fewer than $candidates claims: a tier is asked only when those above did not fill the ranking). The best
# $window of $query hold the best $candidates of what is left, since each excluded claim takes one place at most.
CLAIM_SEARCH_TIER = (
    f"""
CALL db.idx.fulltext.queryNodes('Claim', $exclude) YIELD node
WITH node WHERE $before = '' OR node.created_at <= $before
WITH collect(node.id) AS above
CALL db.idx.fulltext.queryNodes('Claim', $query) YIELD node, score
WITH node AS c, score, above
WHERE $before = '' OR c.created_at <= $before
WITH c, score, above ORDER BY c.status <> {word(ClaimStatus.CURRENT)}, score DESC, c.id LIMIT $window
WITH c, score WHERE NOT c.id IN above
WITH c, $hits AS hits, score ORDER BY c.status <> {word(ClaimStatus.CURRENT)}, score DESC, c.id LIMIT $candidates
"""
    + RANKED_WINDOW
)

# The fallback (past claims.fulltext.MAX_TIERED_WORDS words; below it, one query a count of words: `_tiered`):
# each content word asked of the index apart, so a claim's `hits` is how many of the words it has;
# those with more first, then as above (scores summed over the words).
CLAIM_SEARCH_TERMS = (
    f"""
UNWIND $terms AS term
CALL db.idx.fulltext.queryNodes('Claim', term) YIELD node, score
WITH node AS c, count(*) AS hits, sum(score) AS score
WHERE $before = '' OR c.created_at <= $before
WITH c, hits, score ORDER BY hits DESC, c.status <> {word(ClaimStatus.CURRENT)}, score DESC, c.id LIMIT $candidates
"""
    + RANKED_WINDOW
)

CLAIM_NEWEST = (
    """
MATCH (c:Claim)
WITH c, 0 AS hits ORDER BY c.created_at DESC, c.id DESC LIMIT $limit
RETURN """
    + SEARCH_HIT_FIELDS
)


@dataclass(frozen=True)
class SearchHit:
    id: str
    statement: str
    status: ClaimStatus
    source_id: str | None
    hits: int
    # How it matched the query: lexical, semantic or both.
    match: Match = Match.LEXICAL

    def __post_init__(self) -> None:
        hold_members(self, status=ClaimStatus, match=Match)


@dataclass(frozen=True)
class RankedHits:
    """A window of a search's ranking and how many claims the ranking holds."""

    total: int
    hits: list[SearchHit]


def _ranked(workspace: HasGraph, query: str, params: dict[str, Any], offset: int, limit: int | None) -> RankedHits:
    end = params["candidates"] if limit is None else min(offset + limit, params["candidates"])
    rows = graph.ro_query(workspace, query, {**params, "offset": offset, "end": end})
    total, hits = rows[0] if rows else (0, [])
    return RankedHits(int(total), [SearchHit(**hit) for hit in hits])


def claim_search_fulltext(
    *,
    workspace: HasGraph,
    query: str,
    candidates: int,
    before: str = "",
    offset: int = 0,
    limit: int | None = None,
    hits: int = 1,
) -> RankedHits:
    """Claims the fulltext query (claims.fulltext) finds, made at `before` or earlier: the window [offset,
    offset + limit) of the best `candidates`, ranked in the query (CLAIM_SEARCH_FULLTEXT); each says `hits`."""
    if not query:
        return RankedHits(0, [])
    params = {"query": query, "candidates": candidates, "before": before, "hits": hits}
    return _ranked(workspace, CLAIM_SEARCH_FULLTEXT, params, offset, limit)


def claim_alike(*, workspace: HasGraph, query: str, candidates: int, scan: int) -> list[SearchHit]:
    """The best `candidates` (current first, then relevance, then id) of the first `scan` claims the fulltext query
    finds (CLAIM_ALIKE)."""
    if not query:
        return []
    params = {"query": query, "candidates": candidates, "scan": scan}
    return [SearchHit(**row) for row in graph.ro_records(workspace, CLAIM_ALIKE, params)]


def _tiered(
    workspace: HasGraph,
    tiers: list[tuple[int, str, str]],
    *,
    candidates: int,
    before: str,
    offset: int,
    limit: int | None,
) -> RankedHits:
    """The ranking of claims.fulltext.tiers, most words first: one query a tier (ranked as CLAIM_SEARCH_FULLTEXT
    ranks), the window taken from the tiers it spans, and no tier asked once those before fill the candidates (so
    the claims with only some of the words are not read when those with all of them are enough)."""
    end = candidates if limit is None else min(offset + limit, candidates)
    total, hits = 0, list[SearchHit]()
    for count, query, exclude in tiers:
        if total >= candidates:
            break
        start = max(offset - total, 0)
        params = {"query": query, "candidates": candidates - total, "before": before, "hits": count}
        if exclude:  # `total` claims are in the tiers above: exactly those `exclude` finds
            params |= {"exclude": exclude, "window": candidates}
        ranked = _ranked(
            workspace,
            CLAIM_SEARCH_TIER if exclude else CLAIM_SEARCH_FULLTEXT,
            params,
            start,
            max(end - total - start, 0),
        )
        total, hits = total + ranked.total, hits + ranked.hits
    return RankedHits(total, hits)


def claim_search_phrase(*, workspace: HasGraph, phrase: str, limit: int, before: str = "") -> list[SearchHit]:
    """The best `limit` claims with the phrase's words side by side, in order (claims.fulltext.phrase_query),
    made at `before` or earlier: for a caller that wants claims by their words, not a search's page."""
    return claim_search_fulltext(
        workspace=workspace, query=fulltext.phrase_query(phrase), candidates=limit, before=before
    ).hits


def claim_search_terms(
    *,
    workspace: HasGraph,
    terms: list[str],
    candidates: int,
    before: str = "",
    offset: int = 0,
    limit: int | None = None,
) -> RankedHits:
    """Claims having any of the fulltext terms (claims.fulltext.word_terms), those with more of them first, made
    at `before` or earlier: the window [offset, offset + limit) of the best `candidates` (CLAIM_SEARCH_TERMS)."""
    if not terms:
        return RankedHits(0, [])
    if tiers := fulltext.tiers(terms):
        return _tiered(workspace, tiers, candidates=candidates, before=before, offset=offset, limit=limit)
    params = {"terms": terms, "candidates": candidates, "before": before}
    return _ranked(workspace, CLAIM_SEARCH_TERMS, params, offset, limit)


def claim_newest(*, workspace: HasGraph, limit: int) -> list[SearchHit]:
    """The newest claims of the workspace (what a picker shows before anything is typed)."""
    return [SearchHit(**row) for row in graph.ro_records(workspace, CLAIM_NEWEST, {"limit": limit})]
