"""THE claim search (pages, API, agents, MCP): lexical through the fulltext index with its content-word fallback,
semantic through the embeddings, hybrid fused by reciprocal rank fusion, as of a moment, and its pages.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, replace

from django.conf import settings

from afterhack import history_graph, llm
from afterhack.clock import now_iso
from afterhack.ids import storable
from afterhack.lists.cursors import Paged, paged, position_after
from afterhack.text import MAX_SEARCH_CHARS
from claims import fulltext
from claims import history as claims_history
from claims.graph import claims as claims_graph
from claims.graph import embeddings as embeddings_graph
from claims.graph import search as search_graph
from claims.graph.search import SearchHit as SearchHit
from claims.graph.shapes import Claim
from claims.selectors.claims import claims_as_of
from claims.statuses import ClaimStatus, Match, SearchMode
from workspaces.models import Workspace

logger = logging.getLogger("claims")


SEARCH_LIMIT = 50
# A search through the API ranks at most this many of the claims that match.
MAX_SEARCH_RESULTS = 1_000
STOP_WORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being below between
    both but by can could did do does doing down during each few for from further had has have having he her here
    hers herself him himself his how i if in into is it its itself just me more most my myself no nor not now of
    off on once only or other our ours ourselves out over own same she should so some such than that the their
    theirs them themselves then there these they this those through to too under until up very was we were what
    when where which while who whom why will with would you your yours yourself yourselves
    s t don shall may might must also yet get got""".split()
)
QUERY_WORD = re.compile(r"\w+", re.UNICODE)


def content_words(query: str) -> list[str]:
    """The query's words, lower-cased, without stop words or repeats, in order."""
    words = [word.lower() for word in QUERY_WORD.findall(query)]
    return list(dict.fromkeys(word for word in words if word.isdigit() or (word not in STOP_WORDS and len(word) > 1)))


@dataclass(frozen=True)
class SearchResult:
    hits: list[SearchHit]
    query: str
    words: list[str]
    fell_back: bool
    # The ranking that answered; `degraded` when semantic or hybrid was asked but it is lexical
    # (no embeddings model, or its call failed), with why in `degraded_why`.
    mode: SearchMode = SearchMode.LEXICAL
    degraded: bool = False
    degraded_why: str = ""
    # How many claims the whole ranking holds (`hits` may be one window of it): None when `hits` is all of it.
    total: int | None = None

    @property
    def count(self) -> int:
        """How many claims the whole ranking holds (at most the candidates asked)."""
        return len(self.hits) if self.total is None else self.total

    @property
    def fell_back_and_found(self) -> bool:
        """Whether claims were found by the query's content words (not only by meaning), for the page's note."""
        return self.fell_back and any(hit.match != Match.SEMANTIC for hit in self.hits)


def default_mode() -> SearchMode:
    """Hybrid when an embeddings model is configured, else lexical."""
    return SearchMode.HYBRID if llm.embedding_configured() else SearchMode.LEXICAL


def newest_claims(*, workspace: Workspace, limit: int = 20) -> list[SearchHit]:
    """The most recently added claims, for a picker before anything is typed."""
    return search_graph.claim_newest(workspace=workspace, limit=limit)


def claim_search(
    *, workspace: Workspace, query: str, limit: int = SEARCH_LIMIT, mode: SearchMode | None = None
) -> SearchResult:
    """THE claim search (pages, API, agents, MCP): the `limit` best claims for the query in `mode`
    (default: `default_mode()`), ranked as `ranked_claims` ranks them; each hit says how it matched. It ranks
    the same candidates as the API's pages (`claim_search_page`), so its first `limit` are the API's first page."""
    return ranked_claims(workspace=workspace, query=query, candidates=MAX_SEARCH_RESULTS, mode=mode, limit=limit)


def ranked_claims(
    *,
    workspace: Workspace,
    query: str,
    candidates: int,
    before: str = "",
    mode: SearchMode | None = None,
    as_of: str = "",
    offset: int = 0,
    limit: int | None = None,
) -> SearchResult:
    """The window [offset, offset + limit) (all when `limit` is None) of a ranking of at most `candidates` claims
    for the query, made at `before` or earlier when it is given; `total` is how many the ranking holds. With
    `as_of` (then `before` is it): each hit has the status its claim had then, and is ranked by it.

    lexical: `lexical_claims` (ranked and windowed by the graph itself). semantic: the claims nearest the
    query's embedding (cosine), nearest first. hybrid: both rankings fused by reciprocal rank fusion. Claims of
    every status are found, as they always were (callers that cite keep the current ones). If the query cannot
    be embedded, the answer is lexical and says it is degraded.
    """
    query = " ".join(storable(query).split())[:MAX_SEARCH_CHARS]
    asked = mode or default_mode()
    if asked == SearchMode.LEXICAL or not query:
        lexical = lexical_claims(
            workspace=workspace, query=query, candidates=candidates, before=before, as_of=as_of, offset=offset,
            limit=limit,
        )  # fmt: skip
        return replace(lexical, mode=asked)
    try:
        near = _nearest(workspace=workspace, query=query, candidates=candidates, before=before, as_of=as_of)
    except llm.EmbeddingError as error:
        logger.warning("semantic search degraded to lexical: %s", error)
        lexical = lexical_claims(
            workspace=workspace, query=query, candidates=candidates, before=before, as_of=as_of, offset=offset,
            limit=limit,
        )  # fmt: skip
        return replace(lexical, degraded=True, degraded_why=str(error))
    if asked == SearchMode.SEMANTIC:
        return _windowed(SearchResult(near, query, content_words(query), False, mode=asked), offset, limit)
    lexical = lexical_claims(workspace=workspace, query=query, candidates=candidates, before=before, as_of=as_of)
    return _windowed(replace(lexical, hits=fused(lexical.hits, near)[:candidates], mode=asked), offset, limit)


def _windowed(result: SearchResult, offset: int, limit: int | None) -> SearchResult:
    """The result with only the window [offset, offset + limit) of its hits, and the count of all of them."""
    end = None if limit is None else offset + limit
    return replace(result, hits=result.hits[offset:end], total=result.count)


# The k of reciprocal rank fusion: a claim's fused score is the sum over the rankings of 1 / (k + its rank).
RRF_K = 60


def fused(lexical: list[SearchHit], semantic: list[SearchHit]) -> list[SearchHit]:
    """Both rankings fused by reciprocal rank fusion: best first (ties: current first, then by id); each hit
    says whether it was in the lexical ranking, the semantic one, or both."""
    scores: dict[str, float] = {}
    found: dict[str, SearchHit] = {}
    for ranking in (lexical, semantic):
        for rank, hit in enumerate(ranking, start=1):
            scores[hit.id] = scores.get(hit.id, 0.0) + 1.0 / (RRF_K + rank)
            found.setdefault(hit.id, hit)
    lexical_ids, semantic_ids = {hit.id for hit in lexical}, {hit.id for hit in semantic}
    hits = [
        replace(hit, match=Match.BOTH if hit_id in lexical_ids and hit_id in semantic_ids else hit.match)
        for hit_id, hit in found.items()
    ]
    hits.sort(key=lambda hit: (-scores[hit.id], hit.status != ClaimStatus.CURRENT, hit.id))
    return hits


def _nearest(
    *,
    workspace: Workspace,
    query: str,
    candidates: int,
    before: str,
    as_of: str = "",
    vector: list[float] | None = None,
) -> list[SearchHit]:
    """The claims nearest the query's meaning (or `vector`'s, a claim's own: no model call); raises
    llm.EmbeddingError when it cannot be embedded or the claims' vectors cannot answer it (none yet, or another
    model's dimension)."""
    if vector is None:
        [vector] = llm.embed([query])
    model = llm.embedding_model()
    dimension = embeddings_graph.embedding_index_dimension(workspace=workspace)
    if dimension is None:
        raise llm.EmbeddingError("No claim of this workspace has a vector yet (run manage.py embed_claims).")
    if dimension != len(vector):
        raise llm.EmbeddingError(
            f"The claims' vectors have {dimension} dimensions, the model's {len(vector)}: run manage.py embed_claims."
        )
    near = embeddings_graph.claim_nearest(
        workspace=workspace, model=model, vector=vector, k=candidates, before=before,
        max_distance=1.0 - float(settings.AFTERHACK_SEMANTIC_MIN_SIMILARITY),
    )  # fmt: skip
    return hits_as_of(
        workspace=workspace,
        hits=[SearchHit(hit.id, hit.statement, hit.status, hit.source_id, 0, Match.SEMANTIC) for hit in near],
        as_of=as_of,
    )


def hits_as_of(*, workspace: Workspace, hits: list[SearchHit], as_of: str) -> list[SearchHit]:
    """The hits (of claims made by `as_of`) each with the status its claim had then: one query for all of them.
    Without `as_of`, the hits as they are."""
    if not as_of or not hits:
        return hits
    changes = history_graph.changes_after_of(workspace=workspace, ids=[hit.id for hit in hits], as_of=as_of)
    return [claims_history.hit_at(hit, changes.get(hit.id, []), as_of) for hit in hits]


def lexical_claims(
    *,
    workspace: Workspace,
    query: str,
    candidates: int,
    before: str = "",
    as_of: str = "",
    offset: int = 0,
    limit: int | None = None,
) -> SearchResult:
    """Claims whose statement has the query's words side by side, in order; failing that, any of its content
    words (claims/fulltext.py says what a word match is). Through the fulltext index: the window [offset,
    offset + limit) of the best `candidates`, made at `before` or earlier when it is given; with `as_of`, with
    the status each had then (and ranked by it).

    Ranked: claims containing more of the words first (the fallback), then current before superseded, then
    fulltext relevance, then by id (so that the same search ranks alike every time). Without `as_of` the graph
    ranks and returns only the window; with it, the whole ranking is read and ranked here by the statuses then.
    """
    if not query:
        return SearchResult([], query, [], False, total=0)
    words = content_words(query)
    # With `as_of` the whole ranking is read: the statuses then rank it here.
    start, size = (0, None) if as_of else (offset, limit)
    ranked = search_graph.claim_search_fulltext(
        workspace=workspace, query=fulltext.phrase_query(query), candidates=candidates, before=before,
        offset=start, limit=size,
    )  # fmt: skip
    fell_back = ranked.total == 0 and bool(words)
    if fell_back:
        ranked = search_graph.claim_search_terms(
            workspace=workspace, terms=fulltext.word_terms(words), candidates=candidates, before=before,
            offset=start, limit=size,
        )  # fmt: skip
    if not as_of:
        return SearchResult(ranked.hits, query, words, fell_back, total=ranked.total)
    hits = hits_as_of(workspace=workspace, hits=ranked.hits, as_of=as_of)
    # The graph's order (by score, then id) is kept among equals: the sort is stable.
    hits.sort(key=lambda hit: (-hit.hits, hit.status != ClaimStatus.CURRENT))
    return _windowed(SearchResult(hits, query, words, fell_back), offset, limit)


@dataclass(frozen=True)
class SearchPage:
    claims: Paged[Claim]
    fell_back: bool
    matches: dict[str, Match]
    mode: SearchMode
    degraded: bool


def claim_search_page(
    *,
    workspace: Workspace,
    query: str,
    limit: int,
    cursor: str | None,
    mode: SearchMode | None = None,
    as_of: str | None = None,
) -> SearchPage:
    """One page of the search's ranking, over the claims that existed when its first page was asked (a new
    search sees claims added since). Its order is stable while the workspace is unchanged; claims added or
    changed between pages can still move a claim across a page boundary, because the fulltext index's scores
    count every claim it holds and statuses are read at each page.

    With `as_of` (a moment as afterhack.clock.moment_iso gives it): the search as it would have answered then —
    over the claims that existed then, each with the status, evidence and replacement it had then. Its count is
    of those claims, and its cursor holds `as_of` (a cursor of another moment, or of the present, is refused).

    The cursor holds that moment, the offset, and the mode that answered the first page: a fused ranking
    is computed again for each page over the same claims, so its pages follow on; a first page that was
    degraded to lexical is followed by lexical pages (still marked degraded).
    """
    scope = f"claims:{workspace.id}:{query}" if mode is None else f"claims:{mode}:{workspace.id}:{query}"
    scope += f":as_of:{as_of}" if as_of else ""
    position = position_after(cursor, scope=scope)
    if position is None:
        before, offset, answered, degraded = as_of or now_iso(), 0, None, False
    else:
        before, offset, *rest = position
        answered, degraded = (SearchMode(rest[0]), bool(rest[1])) if rest else (SearchMode.LEXICAL, False)
    result = ranked_claims(
        workspace=workspace, query=query, candidates=MAX_SEARCH_RESULTS, before=before, mode=answered or mode,
        as_of=as_of or "", offset=offset, limit=limit + 1,
    )  # fmt: skip
    degraded = degraded or result.degraded
    window = result.hits
    ids = [hit.id for hit in window]
    if as_of:
        claims = claims_as_of(workspace=workspace, claim_ids=ids, as_of=as_of)
    else:
        claims = claims_graph.claims_get(workspace=workspace, claim_ids=ids)
    page = paged(
        claims, limit=limit, count=result.count, scope=scope,
        position=lambda _: [before, offset + limit, result.mode, degraded],
    )  # fmt: skip
    matches = {hit.id: Match(hit.match) for hit in window}
    return SearchPage(page, result.fell_back, matches, result.mode, degraded)


# How many of the claims a fulltext query of claims_alike finds are ranked at the most.
ALIKE_SCAN = 400


def claims_alike(
    *,
    workspace: Workspace,
    statement: str,
    candidates: int,
    subject: list[str] | None = None,
    broad: bool = True,
    claim_id: str | None = None,
) -> list[SearchHit]:
    """The claims most like a statement, best first, claims of every status, the statement's own claim included. For
    the contradiction watch (docs/design.md, Suggestions: storage and the watch): a claim's own words, searched as a
    phrase, would find only itself, and the search's fallback tiers cost one query a count of words.

    With `subject` (words the caller looks for together): first the claims having all of them; then, if they are
    fewer than `candidates` and `broad` is true, the claims having any of the statement's content words (without a
    subject, only those). Each of the two fulltext queries ranks (current first, then the index's relevance: the
    rarer words shared, and the more, the higher) only the first ALIKE_SCAN claims the index finds, so that a
    statement of common words costs no more than that. Fused with those nearest its meaning when an embeddings
    model is configured (lexical alone if the model fails); for a `claim_id`'s own statement, by the vector the claim
    has (no model call), and lexical alone while it has none."""
    words = content_words(" ".join(storable(statement).split())[:MAX_SEARCH_CHARS])
    required = fulltext.word_terms(subject or [])
    lexical: list[SearchHit] = []
    if required:
        lexical = search_graph.claim_alike(
            workspace=workspace, query=" ".join(required), candidates=candidates, scan=ALIKE_SCAN
        )
    if (broad or not required) and len(lexical) < candidates:
        query = "|".join("(" + term + ")" for term in fulltext.word_terms(words))
        seen = {hit.id for hit in lexical}
        more = search_graph.claim_alike(workspace=workspace, query=query, candidates=candidates, scan=ALIKE_SCAN)
        lexical += [hit for hit in more if hit.id not in seen][: candidates - len(lexical)]
    if default_mode() == SearchMode.LEXICAL:
        return lexical
    vector = None
    if claim_id is not None:
        vector = embeddings_graph.claim_vector(workspace=workspace, claim_id=claim_id, model=llm.embedding_model())
        if vector is None:
            return lexical
    try:
        near = _nearest(workspace=workspace, query=statement, candidates=candidates, before="", vector=vector)
    except llm.EmbeddingError as error:
        logger.warning("claims alike degraded to lexical: %s", error)
        return lexical
    return fused(lexical, near)[:candidates]
