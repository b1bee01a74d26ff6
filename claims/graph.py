"""The claims app's slice of the graph: it creates Source, SourceVersion, SourceFragment (a document's
fragments), Claim (extracted, manual and derived), HAS_VERSION, HAS_FRAGMENT, SUPPORTED_BY, DERIVED_FROM,
and the Extraction and RejectedClaim records of extraction runs; it reads them, and nothing else.

It never changes what holds: a claim is created current, and every later change of a claim's
status (superseded, retracted, unsupported) or of a source's (retracted, a new version) is belief
maintenance, written by corrections/graph.py. A claim that must hold is checked with
afterhack.holds. Every write that must be atomic is one query, and bumps the workspace revision.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from afterhack import graph
from afterhack import history_graph as history
from afterhack.clock import is_stale
from afterhack.graph import BUMP_REVISION, HasGraph
from afterhack.holds import claim_holds, status_holds
from afterhack.ids import parse_id
from afterhack.listing import Criteria
from claims import fulltext
from claims.statuses import JobStatus

# -- pages of lists ----------------------------------------------------------------------


def keyset(node: str, *, at: str = "created_at", key: str = "id", newest_first: bool = True) -> tuple[str, str]:
    """The WHERE condition and ORDER BY of a keyset page over `node`, ordered by (`at`, `key`).

    The condition keeps the rows after the position ($after_at, $after_key) where the previous
    page ended ($after_at = '' on the first page), so rows added meanwhile never shift a page.
    Every app's lists are paged with it.
    """
    after, direction = ("<", " DESC") if newest_first else (">", "")
    condition = (
        f"($after_at = '' OR {node}.{at} {after} $after_at "
        f"OR ({node}.{at} = $after_at AND {node}.{key} {after} $after_key))"
    )
    return condition, f"{node}.{at}{direction}, {node}.{key}{direction}"


def after_params(after: tuple[str, str] | None) -> dict[str, str]:
    """The $after_at and $after_key of a keyset page: where the previous page ended, or '' for the first."""
    at, key = after or ("", "")
    return {"after_at": at, "after_key": key}


# -- shapes ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Fragment:
    id: str
    start: int
    end: int
    text: str
    origin_type: str

    @classmethod
    def from_map(cls, row: dict[str, Any]) -> Fragment:
        return cls(row["id"], row["start"], row["end"], row["text"], row.get("origin_type") or "source")


@dataclass(frozen=True)
class SourceSummary:
    id: str
    title: str
    origin_type: str
    status: str
    version: int
    length: int
    claims: int
    created_at: str


@dataclass(frozen=True)
class SourceVersion:
    id: str
    source_id: str
    title: str
    origin_type: str
    status: str
    version: int
    sha256: str
    length: int
    text: str
    created_at: str


@dataclass(frozen=True)
class ClaimSpan:
    """Where a claim's evidence sits in a version's text (for highlighting)."""

    id: str
    start: int
    end: int
    status: str
    statement: str
    extractor: str = ""
    # The write that created the claim: an extraction's id for the claims that extraction added.
    created_in: str = ""


# The role of the SUPPORTED_BY edges from a correction's replacement claim to the fragments of the
# source passage the correction cites, beside its own fragment (role 'reviewer_correction').
CITED_PASSAGE_ROLE = "cited_passage"


@dataclass(frozen=True)
class CitedPassage:
    """A passage of a source that a correction cites: its replacement claim rests on it as well as on the correction."""

    source_id: str
    version_id: str
    version: int
    quote: str
    start: int
    end: int
    fragments: list[Fragment]

    def record(self) -> dict[str, Any]:
        """The passage as its claim records it (the fragments are its SUPPORTED_BY edges)."""
        return {k: getattr(self, k) for k in ("source_id", "version_id", "version", "quote", "start", "end")}


@dataclass(frozen=True)
class Claim:
    id: str
    statement: str
    status: str
    evidence_quote: str | None
    start: int | None
    end: int | None
    confidence: float | None
    confidence_kind: str
    extractor: str
    source_id: str | None
    version_id: str | None
    created_at: str
    created_by: str | None
    fragments: list[Fragment] = field(default_factory=list)
    supersedes: str | None = None
    superseded_by: str | None = None
    derived_from: list[list[str]] = field(default_factory=list)
    status_changed_at: str | None = None
    retraction: str | None = None
    cited_passage: CitedPassage | None = None

    @classmethod
    def from_map(cls, row: dict[str, Any]) -> Claim:
        """A claim from a CLAIM_MAP row: its properties, fragments, neighbours by supersession and premises."""
        props, fragments, premises = row["claim"], row["fragments"], row["premises"]
        cited = [Fragment.from_map(f) for f in fragments if f.get("role") == CITED_PASSAGE_ROLE]
        justifications: dict[int, list[str]] = {}
        for index, premise_id in premises:
            if premise_id is not None:
                justifications.setdefault(int(index), []).append(premise_id)
        return cls(
            id=props["id"],
            statement=props["statement"],
            status=props["status"],
            evidence_quote=props.get("evidence_quote"),
            start=props.get("start"),
            end=props.get("end"),
            confidence=props.get("confidence"),
            confidence_kind=props.get("confidence_kind") or "",
            extractor=props.get("extractor") or "",
            source_id=props.get("source_id"),
            version_id=props.get("version_id"),
            created_at=props.get("created_at") or "",
            created_by=props.get("created_by"),
            fragments=[Fragment.from_map(f) for f in fragments if f.get("role") != CITED_PASSAGE_ROLE],
            supersedes=row["supersedes"],
            superseded_by=row["superseded_by"],
            derived_from=[sorted(ids) for _, ids in sorted(justifications.items())],
            status_changed_at=props.get("status_changed_at"),
            retraction=props.get("retraction"),
            cited_passage=CitedPassage(
                props["cited_source_id"], props["cited_version_id"], props["cited_version"], props["cited_quote"],
                props["cited_start"], props["cited_end"], cited,
            ) if props.get("cited_version_id") else None,
        )  # fmt: skip


class BackgroundJob:
    """A queued or running job as a page sees it: stalled when it stopped reporting progress, busy otherwise."""

    status: str
    updated_at: str

    @property
    def stalled(self) -> bool:
        return self.status in (JobStatus.QUEUED, JobStatus.RUNNING) and is_stale(self.updated_at)

    @property
    def busy(self) -> bool:
        return self.status in (JobStatus.QUEUED, JobStatus.RUNNING) and not self.stalled


@dataclass(frozen=True)
class Extraction(BackgroundJob):
    id: str
    version_id: str
    status: str
    done: int
    total: int
    error: str | None
    extractor: str
    claims_added: int
    rejected: int
    started_at: str
    updated_at: str


@dataclass(frozen=True)
class RejectedClaim:
    statement: str
    evidence_quote: str
    reason: str
    detail: str
    hint_start: int | None
    hint_end: int | None
    extractor: str
    created_at: str
    key: str = ""


@dataclass(frozen=True)
class Dependent:
    """Something that rests on a claim: a derived claim or a decision."""

    id: str
    label: str
    title: str
    status: str


# -- sources ----------------------------------------------------------------------------

# Sources, each with its first version and all its fragments; one row of $sources a source.
SOURCES_CREATE = """
UNWIND $sources AS r
CREATE (s:Source {id: r.source_id, title: r.title, origin_type: $origin_type, origin_name: $origin_name,
                  status: 'active', created_at: $now, created_by: $created_by})
CREATE (s)-[:HAS_VERSION]->(v:SourceVersion {id: r.version_id, version: 1, sha256: r.sha256, text: r.text,
                                             length: r.length, current: true, created_at: $now})
WITH v, r
UNWIND r.fragments AS f
CREATE (v)-[:HAS_FRAGMENT]->(:SourceFragment {id: f[0], start: f[1], end: f[2], text: f[3],
                                              origin_type: $origin_type, created_at: $now})
RETURN count(*)
"""


def sources_create(
    *,
    workspace: HasGraph,
    sources: list[dict[str, Any]],
    origin_type: str,
    origin_name: str,
    created_by: str,
    now: str,
) -> None:
    """Creates sources, each with its first version and all its fragments, in one atomic query. A row:
    source_id, version_id, title, text, sha256, length, fragments (at least one, each [id, start, end, text]:
    a list, not a map, since the client spells out every parameter as Cypher text and the keys would double
    the time it takes for a batch — measured: 24 against 11.5 ms for 500 sources)."""
    graph.query(
        workspace,
        SOURCES_CREATE,
        {"sources": sources, "origin_type": origin_type, "origin_name": origin_name, "created_by": created_by,
         "now": now},
    )  # fmt: skip


SOURCE_AFTER, SOURCE_ORDER = keyset("s")

SOURCE_LIST = f"""
MATCH (s:Source)-[:HAS_VERSION]->(v:SourceVersion {{current: true}})
WHERE {SOURCE_AFTER}
WITH s, v ORDER BY {SOURCE_ORDER} SKIP $offset LIMIT $limit
OPTIONAL MATCH (c:Claim {{version_id: v.id}})
WITH s, v, count(c) AS claims ORDER BY {SOURCE_ORDER}
RETURN {{id: s.id, title: s.title, origin_type: s.origin_type, status: s.status, version: v.version, length: v.length,
        claims: claims, created_at: s.created_at}} AS source
"""

SOURCE_COUNT = "MATCH (s:Source) RETURN count(s)"


def source_list(
    *, workspace: HasGraph, offset: int = 0, limit: int = 100, after: tuple[str, str] | None = None
) -> list[SourceSummary]:
    """Sources, newest first (after the (created_at, id) position `after`), with their current
    version's size and claim count."""
    params = {"offset": offset, "limit": limit, **after_params(after)}
    return [SourceSummary(**row) for row in graph.ro_records(workspace, SOURCE_LIST, params)]


def source_count(*, workspace: HasGraph) -> int:
    """How many sources the workspace has."""
    return int(graph.ro_query(workspace, SOURCE_COUNT)[0][0])


# A version of a source with the source's own fields, as a SourceVersion reads them.
SOURCE_VERSION_FIELDS = """{id: v.id, source_id: s.id, title: s.title, origin_type: s.origin_type, status: s.status,
        version: v.version, sha256: v.sha256, length: v.length, text: v.text, created_at: v.created_at} AS version"""

SOURCE_GET = (
    """
MATCH (s:Source {id: $source_id})-[:HAS_VERSION]->(v:SourceVersion {current: true})
RETURN """
    + SOURCE_VERSION_FIELDS
)


def source_get(*, workspace: HasGraph, source_id: str) -> SourceVersion | None:
    """The source with its current version's text, or None."""
    if parse_id(source_id) is None:
        return None
    rows = graph.ro_records(workspace, SOURCE_GET, {"source_id": source_id})
    return SourceVersion(**rows[0]) if rows else None


VERSION_GET = (
    """
MATCH (s:Source)-[:HAS_VERSION]->(v:SourceVersion {id: $version_id})
RETURN """
    + SOURCE_VERSION_FIELDS
)


def version_get(*, workspace: HasGraph, version_id: str) -> SourceVersion | None:
    """One version of a source with its text, or None."""
    if parse_id(version_id) is None:
        return None
    rows = graph.ro_records(workspace, VERSION_GET, {"version_id": version_id})
    return SourceVersion(**rows[0]) if rows else None


VERSION_FRAGMENTS = """
MATCH (:SourceVersion {id: $version_id})-[:HAS_FRAGMENT]->(f:SourceFragment)
RETURN f {.id, .start, .end, .text, .origin_type}
ORDER BY f.start
"""


def version_fragments(*, workspace: HasGraph, version_id: str) -> list[Fragment]:
    """The version's fragments in text order."""
    return [Fragment.from_map(row) for row in graph.ro_records_of(workspace, VERSION_FRAGMENTS, version_id=version_id)]


# Named columns, not a map a row: a source can have thousands of claims (graph.ro_columns_of says why).
VERSION_CLAIM_SPANS = """
MATCH (c:Claim {version_id: $version_id})
RETURN c.id AS id, c.start AS start, c.end AS end, c.status AS status, c.statement AS statement,
       c.extractor AS extractor, coalesce(c.created_in, '') AS created_in
ORDER BY c.start, c.end DESC
"""


def version_claim_spans(*, workspace: HasGraph, version_id: str) -> list[ClaimSpan]:
    """Every claim whose evidence is in this version, by position."""
    return [ClaimSpan(**row) for row in graph.ro_columns_of(workspace, VERSION_CLAIM_SPANS, version_id=version_id)]


# -- claims -----------------------------------------------------------------------------

# Each row: key, id, statement, evidence_quote, start, end, confidence, confidence_kind, extractor,
# fragment_ids (the fragments its span overlaps, worked out by the caller). MERGE on the key
# makes the write idempotent: the same claim again is the same node, and `created_in` tells
# which rows this very write created. Every lookup is by an indexed property.
CLAIMS_RECORD = (
    """
MATCH (s:Source)-[:HAS_VERSION]->(v:SourceVersion {id: $version_id})
WHERE s.status = 'active' AND v.current = true
"""
    + BUMP_REVISION
    + """
WITH s, v
CALL {
  WITH s, v
  UNWIND $claims AS row
  MERGE (c:Claim {key: row.key})
  ON CREATE SET c.id = row.id, c.statement = row.statement, c.evidence_quote = row.evidence_quote,
                c.start = row.start, c.end = row.end, c.confidence = row.confidence,
                c.confidence_kind = row.confidence_kind, c.extractor = row.extractor, c.status = 'current',
                c.revision = 0, c.source_id = s.id, c.version_id = v.id, c.created_at = $now,
                c.created_by = $created_by, c.created_in = $write_id
  WITH c, row
  UNWIND row.fragment_ids AS fragment_id
  MATCH (f:SourceFragment {id: fragment_id})
  MERGE (c)-[:SUPPORTED_BY {role: 'evidence'}]->(f)
}
CALL {
  WITH v
  UNWIND $rejected AS r
  MERGE (v)-[:REJECTED]->(x:RejectedClaim {key: r.key})
  ON CREATE SET x.statement = r.statement, x.evidence_quote = r.evidence_quote, x.reason = r.reason,
                x.detail = r.detail, x.hint_start = r.hint_start, x.hint_end = r.hint_end,
                x.extractor = r.extractor, x.created_at = $now
}
WITH v
OPTIONAL MATCH (c:Claim) WHERE c.key IN $keys
WITH collect({key: c.key, id: c.id, created: c.created_in = $write_id}) AS stored
OPTIONAL MATCH (e:Extraction {id: $extraction_id})
FOREACH (x IN CASE WHEN e IS NULL THEN [] ELSE [e] END |
  SET x.status = 'done', x.done = x.total, x.updated_at = $now, x.error = null,
      x.claims_added = size([row IN stored WHERE row.created]), x.rejected = size($rejected))
RETURN {stored: stored} AS recorded
"""
)


def claims_record(
    *,
    workspace: HasGraph,
    version_id: str,
    claims: list[dict[str, Any]],
    rejected: list[dict[str, Any]],
    created_by: str,
    now: str,
    write_id: str,
    extraction_id: str | None = None,
) -> list[tuple[str, bool]] | None:
    """Stores validated claims and rejected ones (and finishes the extraction) in one atomic query.

    Returns (claim id, created by this write) for each claim row in order, or None when the
    version is not the current one of an active source (it changed, or the source was retracted).
    """
    params = {
        "version_id": version_id, "claims": claims, "rejected": rejected, "created_by": created_by,
        "now": now, "write_id": write_id, "extraction_id": extraction_id or "",
        "keys": [row["key"] for row in claims],
    }  # fmt: skip
    rows = graph.records(workspace, CLAIMS_RECORD, params)
    if not rows:
        return None
    stored = {c["key"]: (c["id"], bool(c["created"])) for c in rows[0]["stored"] if c["key"] is not None}
    return [stored[row["key"]] for row in claims]


DERIVED_CLAIM_CREATE = (
    """
UNWIND $premise_ids AS premise_id
OPTIONAL MATCH (p:Claim {id: premise_id})
WITH collect(p) AS premises
WITH premises WHERE size(premises) = $count AND all(p IN premises WHERE """
    + claim_holds("p")
    + """)
CREATE (c:Claim {id: $claim_id, key: $claim_id, statement: $statement, status: 'current', revision: 0,
                 confidence_kind: 'derived', extractor: 'derived', created_at: $now, created_by: $created_by})
WITH c, premises
UNWIND premises AS p
CREATE (c)-[:DERIVED_FROM {justification: 0}]->(p)
WITH DISTINCT c
"""
    + BUMP_REVISION
    + """
RETURN c.id
"""
)


def derived_claim_create(
    *, workspace: HasGraph, claim_id: str, statement: str, premise_ids: list[str], created_by: str, now: str
) -> bool:
    """Creates a claim justified by the premises together, only if all exist and are current."""
    rows = graph.query(
        workspace,
        DERIVED_CLAIM_CREATE,
        {
            "claim_id": claim_id, "statement": statement, "premise_ids": premise_ids,
            "count": len(premise_ids), "created_by": created_by, "now": now,
        },
    )  # fmt: skip
    return bool(rows)


CLAIM_STATUSES = """
UNWIND $claim_ids AS claim_id
MATCH (c:Claim {id: claim_id})
RETURN c {.id, .status} AS claim
"""


def claim_statuses(*, workspace: HasGraph, claim_ids: list[str]) -> dict[str, str]:
    """The status of each of these claims that exists."""
    claim_ids = [i for i in claim_ids if parse_id(i)]
    return {c["id"]: c["status"] for c in graph.ro_records(workspace, CLAIM_STATUSES, {"claim_ids": claim_ids})}


# A claim as Claim.from_map reads it by name; `premises` is aggregated in a WITH before (an aggregate
# inside a map literal mis-groups in FalkorDB).
# Its properties are named (not `c {.*}`): a claim's embedding is hundreds of numbers no reader of a claim needs.
CLAIM_PROPERTIES = (
    "c {.id, .statement, .status, .evidence_quote, .start, .end, .confidence, .confidence_kind, .extractor, "
    ".source_id, .version_id, .created_at, .created_by, .status_changed_at, .retraction, .cited_source_id, "
    ".cited_version_id, .cited_version, .cited_quote, .cited_start, .cited_end}"
)
CLAIM_MAP = (
    "{claim: "
    + CLAIM_PROPERTIES
    + ", fragments: fragments, supersedes: old.id, superseded_by: replacement.id, premises: premises} AS claim"
)

CLAIM_GET = (
    """
MATCH (c:Claim {id: $claim_id})
OPTIONAL MATCH (c)-[r:SUPPORTED_BY]->(f:SourceFragment)
WITH c, f, r ORDER BY f.start
WITH c, collect(f {.id, .start, .end, .text, .origin_type, role: r.role}) AS fragments
OPTIONAL MATCH (c)-[:SUPERSEDES]->(old:Claim)
OPTIONAL MATCH (replacement:Claim)-[:SUPERSEDES]->(c)
OPTIONAL MATCH (c)-[d:DERIVED_FROM]->(p:Claim)
WITH c, fragments, old, replacement, collect([d.justification, p.id]) AS premises
RETURN """
    + CLAIM_MAP
)


def claim_get(*, workspace: HasGraph, claim_id: str) -> Claim | None:
    """The claim with its evidence fragments, what it supersedes or is superseded by, and its premises."""
    if parse_id(claim_id) is None:
        return None
    rows = graph.ro_records(workspace, CLAIM_GET, {"claim_id": claim_id})
    return Claim.from_map(rows[0]) if rows else None


# The claims $claim_ids (in that order: `position`), each with what CLAIM_MAP reads.
CLAIMS_FOUND = """
UNWIND range(0, size($claim_ids) - 1) AS position
MATCH (c:Claim {id: $claim_ids[position]})
OPTIONAL MATCH (c)-[r:SUPPORTED_BY]->(f:SourceFragment)
WITH position, c, f, r ORDER BY f.start
WITH position, c, collect(f {.id, .start, .end, .text, .origin_type, role: r.role}) AS fragments
OPTIONAL MATCH (c)-[:SUPERSEDES]->(old:Claim)
OPTIONAL MATCH (replacement:Claim)-[:SUPERSEDES]->(c)
OPTIONAL MATCH (c)-[d:DERIVED_FROM]->(p:Claim)
WITH position, c, fragments, old, replacement, collect([d.justification, p.id]) AS premises
"""

CLAIMS_GET = (
    CLAIMS_FOUND
    + "RETURN "
    + CLAIM_MAP
    + """
ORDER BY position
"""
)


def claims_get(*, workspace: HasGraph, claim_ids: list[str]) -> list[Claim]:
    """The claims with these ids that exist, in the order given, in one query."""
    claim_ids = [i for i in claim_ids if parse_id(i)]
    if not claim_ids:
        return []
    return [Claim.from_map(row) for row in graph.ro_records(workspace, CLAIMS_GET, {"claim_ids": claim_ids})]


# -- claims as they were (docs/history.md, "Reading the past"; the rewind is claims/history.py) ------------------

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


# -- claims as the pickers show them ------------------------------------------------------------


@dataclass(frozen=True)
class ClaimCard:
    """A claim with what a person needs to choose it: its statement, status, where it comes from and when."""

    id: str
    statement: str
    status: str
    source_id: str | None
    source_title: str | None
    confidence_kind: str | None
    created_at: str = ""

    @property
    def usable(self) -> bool:
        """Whether it can support a decision or a derived claim now (only a current claim can)."""
        return status_holds(decision=False, status=self.status)


CLAIM_CARDS = """
UNWIND range(0, size($claim_ids) - 1) AS position
MATCH (c:Claim {id: $claim_ids[position]})
OPTIONAL MATCH (c)-[e:SUPPORTED_BY]->(:SourceFragment)<-[:HAS_FRAGMENT]-(:SourceVersion)<-[:HAS_VERSION]-(src:Source)
WHERE coalesce(e.role, 'evidence') <> 'cited_passage'
WITH position, c, collect(DISTINCT src.title)[0] AS source_title ORDER BY position
RETURN {id: c.id, statement: c.statement, status: c.status, source_id: c.source_id, source_title: source_title,
        confidence_kind: c.confidence_kind, created_at: coalesce(c.created_at, '')} AS card
"""


def claim_cards(*, workspace: HasGraph, claim_ids: list[str]) -> list[ClaimCard]:
    """The claims with these ids that exist, in the order given, each with its source's title."""
    ids = list(dict.fromkeys(canonical for i in claim_ids if (canonical := parse_id(i))))
    if not ids:
        return []
    return [ClaimCard(**row) for row in graph.ro_records(workspace, CLAIM_CARDS, {"claim_ids": ids})]


# Derived claims rest on their premises through DERIVED_FROM (pointing back); decisions rest on
# their supports through SUPPORTS (pointing forward), and decisions can rest on decisions.
CLAIM_DEPENDENTS = """
MATCH (c:Claim {id: $claim_id})
OPTIONAL MATCH (c)<-[:DERIVED_FROM*1..]-(derived:Claim)
WITH c, collect(DISTINCT derived) AS derived
WITH derived, [c] + derived AS claims
UNWIND claims AS x
OPTIONAL MATCH (x)-[:SUPPORTS]->(:Decision)-[:SUPPORTS*0..]->(d:Decision)
WITH derived, collect(DISTINCT d) AS decisions
UNWIND [n IN derived + decisions WHERE n IS NOT NULL] AS n
RETURN {id: n.id, label: labels(n)[0], title: coalesce(n.statement, n.title), status: n.status} AS dependent
LIMIT 200
"""


def claim_dependents(*, workspace: HasGraph, claim_id: str) -> list[Dependent]:
    """Derived claims and decisions that rest on this claim, directly or through others."""
    return [Dependent(**row) for row in graph.ro_records_of(workspace, CLAIM_DEPENDENTS, claim_id=claim_id)]


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
    """
CALL db.idx.fulltext.queryNodes('Claim', $query) YIELD node, score
WITH node AS c, score
WHERE $before = '' OR c.created_at <= $before
WITH c, $hits AS hits, score ORDER BY c.status <> 'current', score DESC, c.id LIMIT $candidates
"""
    + RANKED_WINDOW
)

# One tier of the fallback (claims.graph._tiered): the claims $query finds less those $exclude finds (the tiers
# above, fewer than $candidates claims: a tier is asked only when those above did not fill the ranking). The best
# $window of $query hold the best $candidates of what is left, since each excluded claim takes one place at most.
CLAIM_SEARCH_TIER = (
    """
CALL db.idx.fulltext.queryNodes('Claim', $exclude) YIELD node
WITH node WHERE $before = '' OR node.created_at <= $before
WITH collect(node.id) AS above
CALL db.idx.fulltext.queryNodes('Claim', $query) YIELD node, score
WITH node AS c, score, above
WHERE $before = '' OR c.created_at <= $before
WITH c, score, above ORDER BY c.status <> 'current', score DESC, c.id LIMIT $window
WITH c, score WHERE NOT c.id IN above
WITH c, $hits AS hits, score ORDER BY c.status <> 'current', score DESC, c.id LIMIT $candidates
"""
    + RANKED_WINDOW
)

# The fallback (past claims.fulltext.MAX_TIERED_WORDS words; below it, one query a count of words: `_tiered`):
# each content word asked of the index apart, so a claim's `hits` is how many of the words it has;
# those with more first, then as above (scores summed over the words).
CLAIM_SEARCH_TERMS = (
    """
UNWIND $terms AS term
CALL db.idx.fulltext.queryNodes('Claim', term) YIELD node, score
WITH node AS c, count(*) AS hits, sum(score) AS score
WHERE $before = '' OR c.created_at <= $before
WITH c, hits, score ORDER BY hits DESC, c.status <> 'current', score DESC, c.id LIMIT $candidates
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
    status: str
    source_id: str | None
    hits: int
    # How it matched the query: a claims.statuses.Match (lexical, semantic or both).
    match: str = "lexical"


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


# -- embeddings (semantic search) ---------------------------------------------------------------
#
# A claim's vector is its `embedding` (vecf32), made by the model named in its `embedding_model`; the vector
# index (cosine) covers Claim.embedding at one dimension, the model's. A vector of another model is never
# ranked: the search keeps only claims embedded by the model that embedded the query.

EMBEDDING_INDEX = (
    "CREATE VECTOR INDEX FOR (c:Claim) ON (c.embedding) OPTIONS {dimension: $dimension, similarityFunction: 'cosine'}"
)
EMBEDDING_INDEX_DROP = "DROP VECTOR INDEX FOR (c:Claim) ON (c.embedding)"
EMBEDDING_INDEX_GET = """
CALL db.indexes() YIELD label, types, options
WHERE label = 'Claim'
RETURN {types: types, options: options} AS index
"""

# One write per batch. Embeddings are derived data, like an index: no preview depends on them, so the
# write leaves the workspace revision alone (as extraction progress does), and a claim deleted meanwhile is skipped.
CLAIM_EMBEDDINGS_SET = """
UNWIND $rows AS row
MATCH (c:Claim {id: row.id})
WHERE c.statement = row.statement
SET c.embedding = vecf32(row.vector), c.embedding_model = $model
RETURN count(c)
"""

# Ids only, in one pass: the batches then read their claims by id (indexed), so a backfill stays linear.
CLAIMS_UNEMBEDDED = """
MATCH (c:Claim)
WHERE c.embedding_model IS NULL OR c.embedding_model <> $model
RETURN c.id ORDER BY c.id
"""

CLAIMS_TO_EMBED = """
UNWIND $claim_ids AS claim_id
MATCH (c:Claim {id: claim_id})
WHERE c.embedding_model IS NULL OR c.embedding_model <> $model
RETURN {id: c.id, statement: c.statement} AS claim
"""

CLAIMS_UNEMBEDDED_COUNT = """
MATCH (c:Claim)
WHERE c.embedding_model IS NULL OR c.embedding_model <> $model
RETURN count(c)
"""

# Nearest first: the index answers `$k` nodes with their cosine distance (0 alike, 2 opposite).
CLAIM_NEAREST = """
CALL db.idx.vector.queryNodes('Claim', 'embedding', $k, vecf32($vector)) YIELD node, score
WITH node AS c, score
WHERE c.embedding_model = $model AND score <= $max_distance AND ($before = '' OR c.created_at <= $before)
RETURN {id: c.id, statement: c.statement, status: c.status, source_id: c.source_id, distance: score} AS hit
ORDER BY score, c.id
"""


@dataclass(frozen=True)
class NearHit:
    id: str
    statement: str
    status: str
    source_id: str | None
    distance: float


def embedding_index_dimension(*, workspace: HasGraph) -> int | None:
    """The dimension of the claims' vector index, or None when there is none."""
    for index in graph.ro_records(workspace, EMBEDDING_INDEX_GET):
        if "VECTOR" in (index["types"] or {}).get("embedding", []):
            return int(index["options"]["embedding"]["dimension"])
    return None


def embedding_index_ensure(*, workspace: HasGraph, dimension: int) -> None:
    """Gives the claims a vector index of this dimension, replacing one of another (a new model's vectors)."""
    existing = embedding_index_dimension(workspace=workspace)
    if existing == dimension:
        return
    if existing is not None:
        graph.query(workspace, EMBEDDING_INDEX_DROP)
    graph.query(workspace, EMBEDDING_INDEX, {"dimension": dimension})


def claim_embeddings_set(*, workspace: HasGraph, model: str, rows: list[dict[str, Any]]) -> int:
    """Stores each row's vector on its claim ({id, statement, vector}) in one query, unless the claim's
    statement is no longer the one embedded; returns how many were stored."""
    return int(graph.query(workspace, CLAIM_EMBEDDINGS_SET, {"rows": rows, "model": model})[0][0])


@dataclass(frozen=True)
class ToEmbed:
    id: str
    statement: str


def claims_unembedded(*, workspace: HasGraph, model: str) -> list[str]:
    """The ids of the claims with no vector of `model`, in id order."""
    return [row[0] for row in graph.ro_query(workspace, CLAIMS_UNEMBEDDED, {"model": model})]


def claims_to_embed(*, workspace: HasGraph, model: str, claim_ids: list[str]) -> list[ToEmbed]:
    """Those of these claims that exist and have no vector of `model`, with their statements."""
    claim_ids = [i for i in claim_ids if parse_id(i)]
    params = {"model": model, "claim_ids": claim_ids}
    return [ToEmbed(**row) for row in graph.ro_records(workspace, CLAIMS_TO_EMBED, params)] if claim_ids else []


def claims_unembedded_count(*, workspace: HasGraph, model: str) -> int:
    """How many claims have no vector of `model`."""
    return int(graph.ro_query(workspace, CLAIMS_UNEMBEDDED_COUNT, {"model": model})[0][0])


def claim_nearest(
    *, workspace: HasGraph, model: str, vector: list[float], k: int, max_distance: float, before: str = ""
) -> list[NearHit]:
    """The `k` claims whose `model` vectors are nearest the vector (within `max_distance`), nearest first."""
    params = {"model": model, "vector": vector, "k": k, "max_distance": max_distance, "before": before}
    return [NearHit(**row) for row in graph.ro_records(workspace, CLAIM_NEAREST, params)]


REJECTED_OF = (
    "MATCH (:Source {id: $source_id})-[:HAS_VERSION]->(v:SourceVersion {current: true})-[:REJECTED]->(x:RejectedClaim) "
)
REJECTED_AFTER, REJECTED_ORDER = keyset("x", key="key", newest_first=False)
REJECTED_LIST = f"""{REJECTED_OF}
WHERE {REJECTED_AFTER}
WITH x ORDER BY {REJECTED_ORDER} LIMIT $limit
RETURN x {{.statement, .evidence_quote, .reason, .detail, .hint_start, .hint_end, .extractor, .created_at, .key}} AS rejected
"""
REJECTED_COUNT = REJECTED_OF + "RETURN count(x)"


def rejected_list(
    *, workspace: HasGraph, source_id: str, after: tuple[str, str] | None = None, limit: int = 1_000
) -> list[RejectedClaim]:
    """Claims refused for the source's current version, with why, oldest first (after the
    (created_at, key) position `after`)."""
    if parse_id(source_id) is None:
        return []
    params = {"source_id": source_id, "limit": limit, **after_params(after)}
    return [RejectedClaim(**row) for row in graph.ro_records(workspace, REJECTED_LIST, params)]


def rejected_count(*, workspace: HasGraph, source_id: str) -> int:
    """How many claims were refused for the source's current version."""
    if parse_id(source_id) is None:
        return 0
    return int(graph.ro_query(workspace, REJECTED_COUNT, {"source_id": source_id})[0][0])


# -- extraction runs --------------------------------------------------------------------

EXTRACTION_START = """
MATCH (v:SourceVersion {id: $version_id})
OPTIONAL MATCH (v)<-[:OF]-(busy:Extraction)
WHERE busy.status IN ['queued', 'running'] AND busy.updated_at > $stale_before
WITH v, collect(busy.id) AS busy_ids
WITH v, busy_ids WHERE size(busy_ids) = 0
CREATE (v)<-[:OF]-(e:Extraction {id: $extraction_id, version_id: v.id, status: 'queued', done: 0,
                                 total: $total, error: null, extractor: $extractor, claims_added: 0,
                                 rejected: 0, started_at: $now, updated_at: $now})
RETURN e.id
"""


def extraction_start(
    *, workspace: HasGraph, extraction_id: str, version_id: str, total: int, extractor: str, now: str, stale_before: str
) -> bool:
    """Queues an extraction of the version unless one is already queued or running (and not stale)."""
    params = {
        "extraction_id": extraction_id, "version_id": version_id, "total": total,
        "extractor": extractor, "now": now, "stale_before": stale_before,
    }  # fmt: skip
    return bool(graph.query(workspace, EXTRACTION_START, params))


EXTRACTION_PROGRESS = """
MATCH (e:Extraction {id: $extraction_id})
WHERE e.status IN ['queued', 'running']
SET e.status = 'running', e.done = $done, e.updated_at = $now
RETURN e.id
"""


def extraction_progress(*, workspace: HasGraph, extraction_id: str, done: int, now: str) -> bool:
    """Records how many fragments are done; False if the run is no longer active."""
    params = {"extraction_id": extraction_id, "done": done, "now": now}
    return bool(graph.query(workspace, EXTRACTION_PROGRESS, params))


EXTRACTION_FAIL = """
MATCH (e:Extraction {id: $extraction_id})
SET e.status = 'failed', e.error = $error, e.updated_at = $now
"""


def extraction_fail(*, workspace: HasGraph, extraction_id: str, error: str, now: str) -> None:
    """Marks the run failed with a sentence saying why; it wrote no claims."""
    graph.query(workspace, EXTRACTION_FAIL, {"extraction_id": extraction_id, "error": error, "now": now})


EXTRACTION_FIELDS = """e {.id, .version_id, .status, .done, .total, .error, .extractor,
       .claims_added, .rejected, .started_at, .updated_at} AS extraction"""

EXTRACTION_GET = "MATCH (e:Extraction {id: $extraction_id}) RETURN " + EXTRACTION_FIELDS

EXTRACTION_LATEST = (
    "MATCH (:Source {id: $source_id})-[:HAS_VERSION]->(:SourceVersion {current: true})<-[:OF]-(e:Extraction) "
    "WITH e ORDER BY e.started_at DESC LIMIT 1 RETURN " + EXTRACTION_FIELDS
)


def extraction_get(*, workspace: HasGraph, extraction_id: str) -> Extraction | None:
    """One extraction run, or None."""
    if parse_id(extraction_id) is None:
        return None
    rows = graph.ro_records(workspace, EXTRACTION_GET, {"extraction_id": extraction_id})
    return Extraction(**rows[0]) if rows else None


def extraction_latest(*, workspace: HasGraph, source_id: str) -> Extraction | None:
    """The newest extraction run of the source's current version, or None."""
    if parse_id(source_id) is None:
        return None
    rows = graph.ro_records(workspace, EXTRACTION_LATEST, {"source_id": source_id})
    return Extraction(**rows[0]) if rows else None


VANISHED = """
MATCH (:Source {id: $source_id})-[:HAS_VERSION]->(v:SourceVersion)
MATCH (c:Claim {version_id: v.id})
WHERE c.status = 'retracted'
WITH c, v ORDER BY v.version DESC, c.start
RETURN {id: c.id, statement: c.statement, evidence_quote: c.evidence_quote, version: v.version, why: c.retraction}
       AS retracted
"""


@dataclass(frozen=True)
class Retracted:
    id: str
    statement: str
    evidence_quote: str | None
    version: int
    why: str


def retracted_claims(*, workspace: HasGraph, source_id: str) -> list[Retracted]:
    """The source's claims that were retracted: their quote vanished from a new version, or the source was retracted."""
    return [Retracted(**row) for row in graph.ro_records_of(workspace, VANISHED, source_id=source_id)]


# -- the pages' lists (afterhack/listing.py): one query for a page, one for the count -------------------------
#
# Every filter is a $param that is '' when not asked; the ORDER BY is chosen by sort key from the constant
# columns below (graph.order_by), never written from a request. A page's rows are sorted again after their
# reads, on the same columns, so the reads cannot reorder them.


def _words(criteria: Criteria, name: str) -> str:
    """A text filter as the queries compare it: lower-cased (they lower-case what they compare it with)."""
    return criteria.get(name).lower()


def _days(criteria: Criteria) -> dict[str, str]:
    since, before = criteria.day_range()
    return {"since": since, "before": before}


# What an extraction's state reads as on the sources list: queued counts as running.
EXTRACTION_STATE = (
    "CASE WHEN e IS NULL THEN 'none' WHEN e.status IN ['queued', 'running'] THEN 'running' ELSE e.status END"
)
SOURCE_ROWS_MATCH = (
    "MATCH (s:Source)-[:HAS_VERSION]->(v:SourceVersion {current: true}) "
    "WHERE ($q = '' OR toLower(s.title) CONTAINS $q) AND ($status = '' OR s.status = $status) "
    "AND ($author = '' OR toLower(coalesce(s.created_by, '')) CONTAINS $author) "
    "AND ($since = '' OR s.created_at >= $since) AND ($before = '' OR s.created_at < $before) "
    # The latest extraction of the current version (by when it started), if any.
    "OPTIONAL MATCH (v)<-[:OF]-(x:Extraction) "
    "WITH s, v, collect(x) AS runs "
    "WITH s, v, reduce(e = null, x IN runs | CASE WHEN e IS NULL OR x.started_at > e.started_at THEN x ELSE e END) AS e "
    "WITH s, v, e, " + EXTRACTION_STATE + " AS extraction "
    "WHERE $extraction = '' OR extraction = $extraction "
)
SOURCE_ROWS_COUNT = SOURCE_ROWS_MATCH + "RETURN count(s)"
SOURCE_COLUMNS = {
    "created": "s.created_at",
    "title": "toLower(s.title)",
    "claims": "claims",
    "author": "toLower(coalesce(s.created_by, ''))",
}
SOURCE_ROWS_READ = (
    SOURCE_ROWS_MATCH + "OPTIONAL MATCH (c:Claim {version_id: v.id}) WITH s, v, e, extraction, count(c) AS claims "
)
SOURCE_ROW_FIELDS = (
    "RETURN {id: s.id, title: s.title, status: s.status, version: v.version, claims: claims, "
    "created_at: s.created_at, created_by: s.created_by, extraction: extraction, "
    "extraction_updated_at: e.updated_at} AS source"
)


@dataclass(frozen=True)
class SourceRow:
    """A source as its list shows it: title, claims, who added it when, and how its latest extraction went."""

    id: str
    title: str
    status: str
    version: int
    claims: int
    created_at: str
    created_by: str | None
    # 'none', 'running' (queued or running), 'done' or 'failed'.
    extraction: str
    extraction_updated_at: str | None

    @property
    def extraction_stalled(self) -> bool:
        return self.extraction == "running" and is_stale(self.extraction_updated_at)


def _source_params(criteria: Criteria) -> dict[str, Any]:
    return {
        "q": criteria.q.lower(), "status": criteria.get("status"), "author": _words(criteria, "author"),
        "extraction": criteria.get("extraction"), **_days(criteria),
    }  # fmt: skip


def source_rows(*, workspace: HasGraph, criteria: Criteria, offset: int, limit: int) -> list[SourceRow]:
    """One page of the sources that match the criteria, in its order."""
    order = graph.order_by(SOURCE_COLUMNS, sort=criteria.sort, descending=criteria.descending, tiebreak="s.id")
    cypher = SOURCE_ROWS_READ + "WITH s, v, e, extraction, claims" + order + "SKIP $offset LIMIT $limit "
    params = {**_source_params(criteria), "offset": offset, "limit": limit}
    return [SourceRow(**row) for row in graph.ro_records(workspace, cypher + SOURCE_ROW_FIELDS + order, params)]


def source_rows_count(*, workspace: HasGraph, criteria: Criteria) -> int:
    """How many sources match the criteria."""
    return int(graph.ro_query(workspace, SOURCE_ROWS_COUNT, _source_params(criteria))[0][0])


# The claims of a list: every claim (`rank` 0), or the claims a search ranked (`rank` their place in $ids).
CLAIM_ROWS_ALL = "MATCH (c:Claim) WITH c, 0 AS rank "
CLAIM_ROWS_RANKED = "UNWIND range(0, size($ids) - 1) AS rank MATCH (c:Claim {id: $ids[rank]}) WITH c, rank "
CLAIM_ROWS_FILTER = (
    "WHERE ($status = '' OR c.status = $status) "
    "AND ($author = '' OR toLower(coalesce(c.created_by, '')) CONTAINS $author) "
    "AND ($since = '' OR c.created_at >= $since) AND ($before = '' OR c.created_at < $before) "
    "AND ($source_id = '' OR c.source_id = $source_id) "
    "OPTIONAL MATCH (s:Source {id: c.source_id}) "
    "WITH c, rank, s WHERE $source_title = '' OR toLower(coalesce(s.title, '')) CONTAINS $source_title "
)
CLAIM_COLUMNS = {
    "relevance": "rank",
    "created": "c.created_at",
    "statement": "toLower(c.statement)",
    "status": "c.status",
}
CLAIM_ROW_FIELDS = (
    "RETURN {id: c.id, statement: c.statement, status: c.status, source_id: c.source_id, source_title: s.title, "
    "created_at: c.created_at, created_by: c.created_by, confidence_kind: c.confidence_kind} AS claim"
)


@dataclass(frozen=True)
class ClaimRow:
    """A claim as the claims list shows it: statement, status, its source's title, who added it when."""

    id: str
    statement: str
    status: str
    source_id: str | None
    source_title: str | None
    created_at: str
    created_by: str | None
    confidence_kind: str | None


def _claim_params(criteria: Criteria, ids: list[str] | None) -> dict[str, Any]:
    source = criteria.get("source")
    source_id = parse_id(source) or ""
    return {
        "status": criteria.get("status"), "author": _words(criteria, "author"), **_days(criteria),
        "source_id": source_id, "source_title": "" if source_id else source.lower(), "ids": ids or [],
    }  # fmt: skip


def claim_rows(
    *, workspace: HasGraph, criteria: Criteria, offset: int, limit: int, ids: list[str] | None = None
) -> list[ClaimRow]:
    """One page of the claims that match the criteria's filters, in its order: of all claims, or of those
    `ids` (a search's ranking, best first; sort 'relevance' keeps that order)."""
    order = graph.order_by(CLAIM_COLUMNS, sort=criteria.sort, descending=criteria.descending, tiebreak="c.id")
    head = CLAIM_ROWS_ALL if ids is None else CLAIM_ROWS_RANKED
    cypher = head + CLAIM_ROWS_FILTER + "WITH c, rank, s" + order + "SKIP $offset LIMIT $limit " + CLAIM_ROW_FIELDS
    params = {**_claim_params(criteria, ids), "offset": offset, "limit": limit}
    return [ClaimRow(**row) for row in graph.ro_records(workspace, cypher + order, params)]


def claim_rows_count(*, workspace: HasGraph, criteria: Criteria, ids: list[str] | None = None) -> int:
    """How many claims (of all, or of those `ids`) match the criteria's filters."""
    head = CLAIM_ROWS_ALL if ids is None else CLAIM_ROWS_RANKED
    return int(
        graph.ro_query(workspace, head + CLAIM_ROWS_FILTER + "RETURN count(c)", _claim_params(criteria, ids))[0][0]
    )
