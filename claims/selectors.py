"""Reads of the claims app: search with its stop-word fallback, the highlighted source text, provenance."""

from __future__ import annotations

import logging
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from html import escape
from itertools import pairwise

from django.conf import settings
from django.utils.safestring import SafeString, mark_safe

from afterhack import history, history_graph, llm
from afterhack.clock import now_iso
from afterhack.ids import storable
from afterhack.listing import Criteria
from afterhack.pagination import Paged, paged, position_after, workspace_page
from afterhack.picker import PICK_LIMIT, Picker, PickItem, picker_of
from afterhack.text import MAX_SEARCH_CHARS
from claims import fulltext
from claims import history as claims_history
from claims.evidence import REASON_LABELS, Reason
from claims.graph import claims as claims_graph
from claims.graph import embeddings as embeddings_graph
from claims.graph import extraction as extraction_graph
from claims.graph import lists as lists_graph
from claims.graph import past as past_graph
from claims.graph import pickers as pickers_graph
from claims.graph import search as search_graph
from claims.graph import sources as sources_graph
from claims.graph.extraction import Extraction as Extraction
from claims.graph.extraction import RejectedClaim as RejectedClaim
from claims.graph.lists import ClaimRow as ClaimRow
from claims.graph.lists import SourceRow as SourceRow
from claims.graph.pickers import ClaimCard as ClaimCard
from claims.graph.pickers import Dependent as Dependent
from claims.graph.search import SearchHit
from claims.graph.shapes import CitedPassage, Claim
from claims.graph.sources import ClaimSpan
from claims.graph.sources import SourceSummary as SourceSummary
from claims.graph.sources import SourceVersion as SourceVersion
from claims.statuses import ClaimStatus, ConfidenceKind, Match, SearchMode
from claims.text import Span, same_statement
from workspaces.models import Workspace

logger = logging.getLogger("claims")

# The shapes these reads return are re-exported above (`X as X`), so pages and API modules name them without a graph.py.

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


def claim_rows(
    *, workspace: Workspace, criteria: Criteria, offset: int, limit: int, ranked: list[str] | None = None
) -> list[ClaimRow]:
    """One page of the claims list: of every claim, or of a search's `ranked` ids (best first), filtered,
    sorted and paged as the criteria ask."""
    return lists_graph.claim_rows(workspace=workspace, criteria=criteria, offset=offset, limit=limit, ids=ranked)


def claim_rows_count(*, workspace: Workspace, criteria: Criteria, ranked: list[str] | None = None) -> int:
    """How many claims the claims list has with these filters (of every claim, or of the `ranked` ids)."""
    return lists_graph.claim_rows_count(workspace=workspace, criteria=criteria, ids=ranked)


def source_rows(*, workspace: Workspace, criteria: Criteria, offset: int, limit: int) -> list[SourceRow]:
    """One page of the sources list, filtered, sorted and paged as the criteria ask."""
    return lists_graph.source_rows(workspace=workspace, criteria=criteria, offset=offset, limit=limit)


def source_rows_count(*, workspace: Workspace, criteria: Criteria) -> int:
    """How many sources the sources list has with these filters."""
    return lists_graph.source_rows_count(workspace=workspace, criteria=criteria)


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


def _nearest(*, workspace: Workspace, query: str, candidates: int, before: str, as_of: str = "") -> list[SearchHit]:
    """The claims nearest the query's meaning; raises llm.EmbeddingError when it cannot be embedded or the
    claims' vectors cannot answer it (none yet, or another model's dimension)."""
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


# -- the highlighted source text ---------------------------------------------------------------


def highlight(text: str, spans: list[ClaimSpan]) -> SafeString:
    """The text, HTML-escaped, with every claim's evidence span marked; overlaps nest as deeper marks.

    The text is cut at every span boundary; each piece is marked with the claims covering it. So that
    claims side by side read as separate passages, the claims alternate between two shades (`c0`, `c1`,
    by their order in the text, the innermost claim of a piece deciding), and a piece where a claim
    begins or ends says so (`from`, `to`: a border and a gap on the page).
    """
    spans = [span for span in spans if 0 <= span.start < span.end <= len(text)]
    in_order = sorted(spans, key=lambda span: (span.start, -span.end))
    shade = {span.id: index % 2 for index, span in enumerate(in_order)}
    cuts = sorted({0, len(text), *(s.start for s in spans), *(s.end for s in spans)})
    starting: dict[int, list[ClaimSpan]] = {}
    ending: dict[int, list[ClaimSpan]] = {}
    for span in spans:
        starting.setdefault(span.start, []).append(span)
        ending.setdefault(span.end, []).append(span)
    active: dict[str, ClaimSpan] = {}
    parts: list[str] = []
    for here, following in pairwise(cuts):
        for span in ending.get(here, ()):
            active.pop(span.id, None)
        for span in starting.get(here, ()):
            active[span.id] = span
        piece = escape(text[here:following], quote=False)
        parts.append(_marked_piece(piece, list(active.values()), here, following, shade) if active else piece)
    return mark_safe("".join(parts))  # noqa: S308 - every piece of text above is escaped


def _marked_piece(piece: str, active: list[ClaimSpan], here: int, following: int, shade: dict[str, int]) -> str:
    """One piece of the text (escaped) in the mark of the claims covering it."""
    statuses = {span.status for span in active}
    status = ClaimStatus.CURRENT if ClaimStatus.CURRENT in statuses else next(iter(statuses))
    innermost = max(active, key=lambda span: (span.start, -span.end))
    classes = ["ev", f"d{min(len(active), 3)}", f"st-{status}", f"c{shade[innermost.id]}"]
    if any(span.start == here for span in active):
        classes.append("from")
    if any(span.end == following for span in active):
        classes.append("to")
    ids = " ".join(span.id for span in active)
    # No title naming the claims here: a piece of a passage several claims cite would repeat their statements
    # in every piece (a third of the page at 5,000 claims). The statements are said once, in the list under
    # the text, and afterhack/source.js names a mark's claims from it when it is pointed at or focused.
    return f'<mark class="{" ".join(classes)}" data-claims="{escape(ids)}" tabindex="0">{piece}</mark>'


@dataclass(frozen=True)
class RejectedRow:
    """A rejected claim with the text of its near-miss hint (for reviewers)."""

    statement: str
    evidence_quote: str
    reason: str
    detail: str
    hint: str | None
    hint_span: Span | None

    @property
    def reason_label(self) -> str:
        """Why it was refused, in a few words."""
        return REASON_LABELS[Reason(self.reason)] if self.reason in Reason else self.reason


@dataclass(frozen=True)
class SourceClaim:
    """A claim citing the source's current version, as the source page lists it."""

    id: str
    statement: str
    status: str
    quote: str
    extractor: str
    created_in: str

    @property
    def quote_differs(self) -> bool:
        """Whether the quote says more than the statement (else the page does not repeat it)."""
        return same_statement(self.quote) != same_statement(self.statement)


@dataclass(frozen=True)
class SourcePage:
    version: sources_graph.SourceVersion
    spans: list[ClaimSpan]
    highlighted: SafeString
    extraction: extraction_graph.Extraction | None
    rejected: list[RejectedRow]
    retracted: list[extraction_graph.Retracted]
    claims: list[SourceClaim] = field(default_factory=list)

    @property
    def added(self) -> list[SourceClaim]:
        """The claims the latest extraction added (none while it runs)."""
        if self.extraction is None:
            return []
        return [claim for claim in self.claims if claim.created_in == self.extraction.id]

    @property
    def rejected_reasons(self) -> list[tuple[str, int]]:
        """Why claims proposed for this version were refused, in words, with how many each, most first."""
        return Counter(row.reason_label for row in self.rejected).most_common()


def source_page(*, workspace: Workspace, source_id: str) -> SourcePage | None:
    """Everything the source page shows, or None when there is no such source."""
    version = sources_graph.source_get(workspace=workspace, source_id=source_id)
    if version is None:
        return None
    spans = sources_graph.version_claim_spans(workspace=workspace, version_id=version.id)
    return SourcePage(
        version=version,
        spans=spans,
        highlighted=highlight(version.text, spans),
        extraction=extraction_graph.extraction_latest(workspace=workspace, source_id=source_id),
        rejected=[
            RejectedRow(r.statement, r.evidence_quote, r.reason, r.detail, _hint_text(version.text, r), _hint_span(r))
            for r in extraction_graph.rejected_list(workspace=workspace, source_id=source_id)
        ],
        retracted=extraction_graph.retracted_claims(workspace=workspace, source_id=source_id),
        claims=[
            SourceClaim(s.id, s.statement, s.status, version.text[s.start : s.end], s.extractor, s.created_in)
            for s in spans
        ],
    )


def _hint_span(rejected: extraction_graph.RejectedClaim) -> Span | None:
    if rejected.hint_start is None or rejected.hint_end is None:
        return None
    return Span(rejected.hint_start, rejected.hint_end)


def _hint_text(text: str, rejected: extraction_graph.RejectedClaim) -> str | None:
    if rejected.hint_start is None or rejected.hint_end is None:
        return None
    return text[rejected.hint_start : rejected.hint_end]


# -- provenance ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CitedView:
    """The passage a correction cited, with its source's title and the text around it, for the pages."""

    passage: CitedPassage
    title: str
    context_before: str
    context_after: str


@dataclass(frozen=True)
class Provenance:
    claim: Claim
    version: sources_graph.SourceVersion | None
    context_before: str
    context_after: str
    premises: list[Claim]
    dependents: list[pickers_graph.Dependent]
    cited: CitedView | None = None


CONTEXT_CHARS = 240


def cited_view(*, workspace: Workspace, claim: Claim | None) -> CitedView | None:
    """The passage a correction's replacement cites beside the correction, in the version it was cited in, or None."""
    passage = claim.cited_passage if claim else None
    if passage is None:
        return None
    version = sources_graph.version_get(workspace=workspace, version_id=passage.version_id)
    if version is None:
        return CitedView(passage, "its source", "", "")
    before = version.text[max(0, passage.start - CONTEXT_CHARS) : passage.start]
    return CitedView(passage, version.title, before, version.text[passage.end : passage.end + CONTEXT_CHARS])


def claim_provenance(*, workspace: Workspace, claim_id: str, as_of: str | None = None) -> Provenance | None:
    """The claim's because-chain: source, version, fragment and quote in context, premises, dependents.
    With `as_of` (a graph time): as it was then — its status, evidence (the version and quote it had then) and
    replacement then, its premises with their statuses then; what rests on it is what rests on it now (the page
    rewinds it: agents' `what_rests_on`). None when there is no such claim, or it did not exist yet then."""
    claim = claim_get(workspace=workspace, claim_id=claim_id, as_of=as_of)
    if claim is None:
        return None
    version = sources_graph.version_get(workspace=workspace, version_id=claim.version_id) if claim.version_id else None
    before = after = ""
    if version is not None and claim.start is not None and claim.end is not None:
        before = version.text[max(0, claim.start - CONTEXT_CHARS) : claim.start]
        after = version.text[claim.end : claim.end + CONTEXT_CHARS]
    premise_ids = [pid for justification in claim.derived_from for pid in justification]
    if as_of is not None:
        premises = claims_as_of(workspace=workspace, claim_ids=premise_ids, as_of=as_of) if premise_ids else []
    else:
        premises = claims_graph.claims_get(workspace=workspace, claim_ids=premise_ids)
    dependents = pickers_graph.claim_dependents(workspace=workspace, claim_id=claim_id)
    cited = cited_view(workspace=workspace, claim=claim)
    return Provenance(claim, version, before, after, premises, dependents, cited)


def marked(text: str, span: Span | None) -> SafeString:
    """The text, HTML-escaped, with one span (a claim's own quote) marked."""
    if span is None or not 0 <= span.start < span.end <= len(text):
        return mark_safe(escape(text, quote=False))  # noqa: S308 - the text is escaped
    before, quote, after = (
        escape(part, quote=False) for part in (text[: span.start], text[span.start : span.end], text[span.end :])
    )
    return mark_safe(f'{before}<mark class="own-quote">{quote}</mark>{after}')  # noqa: S308 - every part is escaped


def claims_by_ids(*, workspace: Workspace, claim_ids: list[str]) -> list[Claim]:
    """The claims with these ids that exist, in the order given."""
    return claims_graph.claims_get(workspace=workspace, claim_ids=claim_ids)


def sources(*, workspace: Workspace, offset: int = 0, limit: int = 100) -> list[sources_graph.SourceSummary]:
    """Sources of the workspace, newest first."""
    return sources_graph.source_list(workspace=workspace, offset=offset, limit=limit)


def sources_page(*, workspace: Workspace, limit: int, cursor: str | None) -> Paged[sources_graph.SourceSummary]:
    """A page of the workspace's sources, newest first."""
    return workspace_page(
        "sources", workspace=workspace, cursor=cursor, limit=limit,
        read=sources_graph.source_list, count=sources_graph.source_count,
    )  # fmt: skip


def rejected_page(
    *, workspace: Workspace, source_id: str, limit: int, cursor: str | None
) -> Paged[extraction_graph.RejectedClaim]:
    """A page of the claims refused for the source's current version, oldest first."""
    return workspace_page(
        "rejected", workspace=workspace, source_id=source_id, cursor=cursor, limit=limit,
        read=extraction_graph.rejected_list, count=extraction_graph.rejected_count,
        position=lambda rejected: [rejected.created_at, rejected.key],
    )  # fmt: skip


def source_get(*, workspace: Workspace, source_id: str) -> sources_graph.SourceVersion | None:
    """The source with its current version, or None."""
    return sources_graph.source_get(workspace=workspace, source_id=source_id)


def version_claim_spans(*, workspace: Workspace, version_id: str) -> list[ClaimSpan]:
    """Every claim whose evidence is in this version (any status), by position."""
    return sources_graph.version_claim_spans(workspace=workspace, version_id=version_id)


def claim_get(*, workspace: Workspace, claim_id: str, as_of: str | None = None) -> Claim | None:
    """One claim with its fragments and justifications, or None. With `as_of` (a moment as
    afterhack.clock.moment_iso gives it): the claim as it was then, or None if it did not exist yet."""
    if as_of is None:
        return claims_graph.claim_get(workspace=workspace, claim_id=claim_id)
    then = claims_as_of(workspace=workspace, claim_ids=[claim_id], as_of=as_of)
    return then[0] if then else None


def claims_as_of(*, workspace: Workspace, claim_ids: list[str], as_of: str) -> list[Claim]:
    """The claims with these ids as they were at `as_of` (those that existed then, in the order given): one query
    for the claims and their changes since, and one more only for the old fragments of claims moved since."""
    read = past_graph.claims_as_of(workspace=workspace, claim_ids=claim_ids, as_of=as_of)
    old_ids = [fid for then in read for fid in claims_history.old_fragment_ids(history.after(then.changes, as_of))]
    fragments = past_graph.fragments_get(workspace=workspace, fragment_ids=old_ids) if old_ids else {}
    claims = (
        claims_history.claim_at(
            then.claim, as_of=as_of, changes=then.changes, replaced_at=then.replaced_at, fragments=fragments
        )
        for then in read
    )
    return [claim for claim in claims if claim is not None]


def unembedded_count(*, workspace: Workspace, model: str) -> int:
    """How many of the workspace's claims have no vector of the embeddings model `model`."""
    return embeddings_graph.claims_unembedded_count(workspace=workspace, model=model)


# -- the claim picker ------------------------------------------------------------------------------


def claim_cards(*, workspace: Workspace, claim_ids: list[str]) -> list[ClaimCard]:
    """These claims (those that exist, in order), each with its status, source and date."""
    return pickers_graph.claim_cards(workspace=workspace, claim_ids=claim_ids)


def pick_item(card: ClaimCard) -> PickItem:
    """A claim as the pickers show it: where it comes from in words."""
    if card.source_title:
        origin = f"from {card.source_title}"
    elif card.confidence_kind == ConfidenceKind.HUMAN_CORRECTION:
        origin = "a reviewer's correction"
    elif card.confidence_kind == ConfidenceKind.DERIVED:
        origin = "derived from other claims"
    else:
        origin = ""
    return PickItem(card.id, card.statement, card.status, origin, card.created_at, card.usable)


def claim_items(*, workspace: Workspace, claim_ids: list[str]) -> list[PickItem]:
    """These claims as the pickers show them (those that exist, in order)."""
    return [pick_item(card) for card in claim_cards(workspace=workspace, claim_ids=claim_ids)]


def claim_finds(*, workspace: Workspace, query: str, limit: int = PICK_LIMIT) -> list[PickItem]:
    """The claims THE search finds for the query (the newest for an empty one), as the pickers show them."""
    if query.strip():
        hits = claim_search(workspace=workspace, query=query, limit=limit).hits
    else:
        hits = newest_claims(workspace=workspace, limit=limit)
    return claim_items(workspace=workspace, claim_ids=[hit.id for hit in hits])


def claim_picker(
    *,
    workspace: Workspace,
    field: str,
    query: str = "",
    chosen: list[str] | tuple[str, ...] = (),
    newest: list[PickItem] | None = None,
    **shown: object,
) -> Picker:
    """A claim picker (`claims:pick` answers its searches) with its results for `query` and the `chosen` claims;
    `newest` are the newest claims when a page with many pickers has read them once for all."""
    return picker_of(
        find=lambda q: newest if newest is not None and not q else claim_finds(workspace=workspace, query=q),
        get=lambda ids: claim_items(workspace=workspace, claim_ids=ids),
        query=query, chosen=chosen, endpoint="claims:pick", field=field, noun="claim",
        **{"key": field, "label": "Find claims", **shown},
    )  # fmt: skip
