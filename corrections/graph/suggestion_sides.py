"""The review queue's read of suggested corrections side by side: for every side of every suggestion shown (a claim,
or the passage a flag quotes), in ONE read, the claim's statement, where its quote is (its own version's, or the
passage a correction's replacement cites; a flag's in its source's current version) and only the text around the
quote, cut in the graph: never a source's whole text, which may be 2,000,000 characters.

FalkorDB's `substring(text, start, length)` counts Unicode code points, as Python's str does, so the offsets a claim
stores (Python's) cut the same characters; it clips at the end of the text, and refuses a negative start or length,
which the query therefore never gives it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from afterhack import graph
from afterhack.graph import HasGraph
from afterhack.ids import parse_id
from corrections.graph.suggestions import Evidence


@dataclass(frozen=True)
class SideAsked:
    """One side to read: a claim (by id), or the passage a flag quotes (`passage`)."""

    claim_id: str | None = None
    passage: Evidence | None = None


@dataclass(frozen=True)
class SideRead:
    """What the read found for a side. `claim_id` is None when no such claim exists (or the side is a flag's);
    `quote` is None when the claim quotes nothing (a derived claim); `found` is whether the quote's version exists,
    and then `window` is its text from `window_start` (`context` characters before `start`, or the text's start) to
    `context` + 1 characters after `end` (or the text's end); "" when the offsets cannot be a passage."""

    claim_id: str | None
    statement: str | None
    created_at: str | None
    quote: str | None
    start: int | None
    end: int | None
    source_id: str | None
    title: str | None
    dated: str | None
    found: bool
    window_start: int
    window: str

    @classmethod
    def from_map(cls, row: dict[str, Any]) -> SideRead:
        return cls(
            claim_id=row["claim_id"], statement=row["statement"], created_at=row["created_at"], quote=row["quote"],
            start=row["start"], end=row["stop"], source_id=row["source_id"], title=row["title"], dated=row["dated"],
            found=bool(row["found"]), window_start=int(row["lo"]), window=row["window"] or "",
        )  # fmt: skip


# A side's passage is the claim's own quote in its version when it has one, else the passage it cites (a correction's
# replacement), else none (a derived claim); a flag's is the one it quotes, in its source's current version. ONE
# substring a side: FalkorDB walks a text's code points up to the offset asked (about 4 ms at 1,000,000 characters
# that are not all ASCII), so the window is cut once, and split around the quote by its reader. Its offsets
# are made integers and non-negative first (`lo`, `upto`): FalkorDB evaluates a CASE's branch even when it is not
# taken, and substring refuses a null or negative one. (`end` is a Cypher keyword: a passage's end is `stop` here.)
SIDES_READ = """
UNWIND range(0, size($sides) - 1) AS position
WITH position, $sides[position] AS side
OPTIONAL MATCH (c:Claim {id: side.claim_id})
WITH position, side, c,
     c IS NOT NULL AND c.version_id IS NOT NULL AND c.evidence_quote IS NOT NULL AND c.start IS NOT NULL
     AND c.end IS NOT NULL AS own
WITH position, side, c, own, c IS NOT NULL AND NOT own AND c.cited_version_id IS NOT NULL AS cited
WITH position, side, c,
     CASE WHEN own THEN c.version_id WHEN cited THEN c.cited_version_id END AS version_id,
     CASE WHEN own THEN c.evidence_quote WHEN cited THEN c.cited_quote WHEN c IS NULL THEN side.quote END AS quote,
     CASE WHEN own THEN c.start WHEN cited THEN c.cited_start WHEN c IS NULL THEN side.start END AS start,
     CASE WHEN own THEN c.end WHEN cited THEN c.cited_end WHEN c IS NULL THEN side.stop END AS stop
OPTIONAL MATCH (cv:SourceVersion {id: version_id})
OPTIONAL MATCH (cs:Source)-[:HAS_VERSION]->(cv)
OPTIONAL MATCH (fs:Source {id: side.source_id})-[:HAS_VERSION]->(fv:SourceVersion {current: true})
WITH position, c, quote, start, stop, coalesce(cv, fv) AS v, coalesce(cs, fs) AS s,
     coalesce(start >= 0 AND stop >= start, false) AS sane
WITH position, c, quote, start, stop, v, s, sane, CASE WHEN sane THEN stop ELSE 0 END AS upto,
     CASE WHEN sane AND start > $context THEN start - $context ELSE 0 END AS lo
RETURN {position: position, claim_id: c.id, statement: c.statement, created_at: c.created_at, quote: quote,
        start: start, stop: stop, source_id: s.id, title: s.title, dated: v.created_at, found: v IS NOT NULL,
        lo: lo, window: CASE WHEN sane THEN substring(v.text, lo, upto + $context + 1 - lo) END} AS side
ORDER BY side.position
"""


def _asked(side: SideAsked) -> dict[str, Any]:
    passage = side.passage
    claim_id = side.claim_id if side.claim_id and parse_id(side.claim_id) else None
    source_id = passage.source_id if passage is not None and parse_id(passage.source_id) else None
    return {
        "claim_id": claim_id, "source_id": source_id if claim_id is None else None,
        "quote": passage.quote if passage else None, "start": passage.start if passage else None,
        "stop": passage.end if passage else None,
    }  # fmt: skip


def suggestion_sides(*, workspace: HasGraph, asked: list[SideAsked], context: int) -> list[SideRead]:
    """Each side asked, in the order asked, with the text from `context` characters before its quote to `context`
    + 1 after it: one bounded read for the whole review queue."""
    if not asked:
        return []
    rows = graph.ro_records(workspace, SIDES_READ, {"sides": [_asked(side) for side in asked], "context": context})
    # One row a side: each match is by a unique id, or of the one current version (the first row kept if not).
    by_position: dict[int, SideRead] = {}
    for row in rows:
        by_position.setdefault(int(row["position"]), SideRead.from_map(row))
    return [by_position[position] for position in range(len(asked))]
