"""Suggested corrections in the graph: a (:Suggestion) ABOUT the claim it would correct (the older belief) and, for
a contradiction found between claims, BY the newer claim that says otherwise; its `statement` and evidence are
what that claim (or the agent or person who flagged it) says, with the exact quote.

Each is recorded by ONE query, idempotent by its `pair_key` (the two claim ids sorted and joined, or the claim and
the flagged passage): two workers finding the same pair at once store one suggestion, and a pair that has one in any
status (rejected included) is never suggested again. Only current claims are paired, checked in the same query.
A suggestion whose claims stop being current is set `obsolete` by the very write that changes them
(OBSOLETE_SUGGESTIONS, a clause of corrections/graph/apply.py and evidence.py). Nothing here bumps the workspace's
revision: a suggestion changes no belief."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from afterhack import graph
from afterhack.clock import epoch_ms
from afterhack.cypher import word
from afterhack.graph import BUMP_REVISION, HasGraph
from afterhack.history_graph import ChangeCause, ChangeKind, record_change
from afterhack.holds import claim_holds
from afterhack.ids import parse_id
from afterhack.lists.graph import after_params, filter_params, keyset, where
from claims.statuses import ClaimStatus, SourceStatus
from corrections.lists import SUGGESTIONS
from corrections.statuses import FoundBy, SuggestionKind, SuggestionStatus

# What a proposed claim's suggestion says (docs/suggestions.md, "Claims proposed by agents").
PROPOSED_REASON = "An agent proposed this claim; this workspace asks a reviewer to approve agents' claims."

# The review of a claim an agent proposes, registered with claims (claims/registry.py) and run by its write for each
# claim it creates `proposed` (`c`), in the same query: an open Suggestion of kind agent_claim ABOUT it, keyed
# `agent_claim|<claim id>`, which a reviewer approves (AGENT_CLAIMS_APPROVE) or rejects (SUGGESTION_REJECT).
AGENT_CLAIM_REVIEW = f"""
  MERGE (x:Suggestion {{pair_key: {word(SuggestionKind.AGENT_CLAIM)} + '|' + c.id}})
  ON CREATE SET x.id = row.review_id, x.kind = {word(SuggestionKind.AGENT_CLAIM)},
      x.status = {word(SuggestionStatus.OPEN)}, x.statement = c.statement, x.found_by = {word(FoundBy.AGENT)},
      x.reason = $review_reason, x.rule_kind = null, x.created_at = $now, x.created_by = $created_by,
      x.claim_id = c.id, x.by_claim_id = null, x.evidence_source_id = c.source_id, x.evidence_quote = c.evidence_quote,
      x.evidence_start = c.start, x.evidence_end = c.end
  MERGE (x)-[:ABOUT]->(c)
"""
AGENT_CLAIM_REVIEW_PARAMS = {"review_reason": PROPOSED_REASON}


def pair_key(claim_id: str, other: str) -> str:
    """The key of a pair of claims, the same whichever comes first."""
    return "|".join(sorted((claim_id, other)))


@dataclass(frozen=True)
class Evidence:
    """The passage a suggestion cites: a source, the exact quote and where it is in the source's version."""

    source_id: str
    quote: str
    start: int
    end: int


@dataclass(frozen=True)
class Suggestion:
    id: str
    kind: SuggestionKind
    status: SuggestionStatus
    claim_id: str
    by_claim_id: str | None
    statement: str
    evidence: Evidence | None
    found_by: FoundBy
    reason: str
    rule_kind: str | None
    created_at: str
    decided_at: str | None
    decided_by: str | None
    decision_reason: str | None
    both_hold: bool | None
    correction_id: str | None
    # Who flagged it (a person's or an agent's name); None for one the rule or the model found.
    created_by: str | None = None
    # The agent run that flagged it (an MCP session's run in this workspace), if one did.
    run_id: str | None = None

    @classmethod
    def from_map(cls, row: dict[str, Any]) -> Suggestion:
        source_id = row.get("evidence_source_id")
        evidence = (
            Evidence(source_id, row["evidence_quote"], int(row["evidence_start"]), int(row["evidence_end"]))
            if source_id
            else None
        )
        return cls(
            id=row["id"], kind=SuggestionKind(row["kind"]), status=SuggestionStatus(row["status"]),
            claim_id=row["claim_id"], by_claim_id=row.get("by_claim_id"), statement=row["statement"],
            evidence=evidence, found_by=FoundBy(row["found_by"]), reason=row.get("reason") or "",
            rule_kind=row.get("rule_kind"), created_at=row["created_at"], decided_at=row.get("decided_at"),
            decided_by=row.get("decided_by"), decision_reason=row.get("decision_reason"),
            both_hold=row.get("both_hold"), correction_id=row.get("correction_id"), created_by=row.get("created_by"),
            run_id=row.get("run_id"),
        )  # fmt: skip


FIELDS = """x {.id, .kind, .status, .claim_id, .by_claim_id, .statement, .found_by, .reason, .rule_kind, .created_at,
     .decided_at, .decided_by, .decision_reason, .both_hold, .correction_id, .evidence_source_id, .evidence_quote,
     .evidence_start, .evidence_end, .created_by, .run_id}"""

OPEN = word(SuggestionStatus.OPEN)


def obsolete_suggestions(var: str) -> str:
    """Cypher: a unit subquery setting the open suggestions about or by the claim `var` obsolete (uses $now). A
    clause of every write that makes a claim stop being current (corrections/graph/apply.py, evidence.py), so a
    suggestion never stays open on a claim that no longer holds."""
    return (
        f"CALL {{ WITH {var} MATCH (sg:Suggestion)-[:ABOUT|BY]->({var}) WHERE sg.status = {OPEN} "
        f"SET sg.status = {word(SuggestionStatus.OBSOLETE)}, sg.decided_at = $now }}\n"
    )


# An open flag citing the source $source_id (after a MATCH of `x`): a contradiction flagged with a passage (no newer
# claim; a suggestion found between claims follows its newer claim, and an agent's claim its own status).
IS_OPEN_FLAG = (
    f"x.evidence_source_id = $source_id AND x.by_claim_id IS NULL AND x.kind = {word(SuggestionKind.CONTRADICTION)} "
    f"AND x.status = {OPEN} "
)
OPEN_FLAGS_OF_SOURCE = "MATCH (x:Suggestion) WHERE " + IS_OPEN_FLAG


def flags_obsolete(anchor: str, keep_version: str = "''") -> str:
    """Cypher: a unit subquery (a clause of the writes of corrections/graph/evidence.py, where `anchor` is in scope)
    setting obsolete the open flags citing the source $source_id, but those already citing the version `keep_version`
    (a Cypher expression; none by default: a retraction). Uses $now."""
    return (
        f"CALL {{ WITH {anchor} {OPEN_FLAGS_OF_SOURCE}AND coalesce(x.evidence_version_id, '') <> {keep_version} "
        f"SET x.status = {word(SuggestionStatus.OBSOLETE)}, x.decided_at = $now }}\n"
    )


def flags_follow_new_version(anchor: str) -> str:
    """Cypher: unit subqueries for a new version `anchor` of the source $source_id: each open flag of $flags_moved
    (`{id, start, end}`: its quote is in the new text, there) cites the new version at those offsets; every other open
    flag citing the source becomes obsolete (its quote is not in the new text, or it was flagged after the flags were
    read: it would cite a version that is no longer current). Uses $now."""
    return (
        f"CALL {{ WITH {anchor} UNWIND $flags_moved AS m MATCH (x:Suggestion {{id: m.id}}) WHERE {IS_OPEN_FLAG}"
        f"SET x.evidence_version_id = {anchor}.id, x.evidence_start = m.start, x.evidence_end = m.end }}\n"
        + flags_obsolete(anchor, keep_version=f"{anchor}.id")
    )


@dataclass(frozen=True)
class Flagged:
    """An open flag's passage: where its quote is in the source's current version."""

    id: str
    quote: str
    start: int


OPEN_FLAGS = OPEN_FLAGS_OF_SOURCE + "RETURN x.id AS id, x.evidence_quote AS quote, x.evidence_start AS start"


def open_flags(*, workspace: HasGraph, source_id: str) -> list[Flagged]:
    """The open flags citing this source, with their passages (a new version moves them: evidence.py)."""
    rows = graph.ro_columns_of(workspace, OPEN_FLAGS, source_id=source_id)
    return [Flagged(row["id"], row["quote"], int(row["start"])) for row in rows]


# -- writes -----------------------------------------------------------------------------------------------

# The newer claim's evidence: its own source's quote, or, for a correction's replacement, the passage it cites (a
# derived claim has none).
CONTRADICTION_RECORD = f"""
MATCH (old:Claim {{id: $claim_id}}) WHERE {claim_holds("old")}
MATCH (new:Claim {{id: $by_claim_id}}) WHERE {claim_holds("new")}
OPTIONAL MATCH (known:Suggestion {{pair_key: $pair_key}})
WITH old, new, count(known) AS known WHERE known = 0
MERGE (x:Suggestion {{pair_key: $pair_key}})
ON CREATE SET x.id = $id, x.kind = {word(SuggestionKind.CONTRADICTION)}, x.status = {OPEN}, x.statement = new.statement,
    x.found_by = $found_by, x.reason = $reason, x.rule_kind = $rule_kind, x.created_at = $now,
    x.claim_id = old.id, x.by_claim_id = new.id,
    x.evidence_source_id = CASE WHEN new.source_id IS NULL THEN new.cited_source_id ELSE new.source_id END,
    x.evidence_quote = CASE WHEN new.source_id IS NULL THEN new.cited_quote ELSE new.evidence_quote END,
    x.evidence_start = CASE WHEN new.source_id IS NULL THEN new.cited_start ELSE new.start END,
    x.evidence_end = CASE WHEN new.source_id IS NULL THEN new.cited_end ELSE new.end END
WITH x, old, new WHERE x.id = $id
CREATE (x)-[:ABOUT]->(old)
CREATE (x)-[:BY]->(new)
RETURN x.id
"""


def contradiction_record(
    *, workspace: HasGraph, suggestion_id: str, claim_id: str, by_claim_id: str, found_by: FoundBy, reason: str,
    rule_kind: str | None, now: str,
) -> bool:  # fmt: skip
    """Records that `by_claim_id` (the newer claim) contradicts `claim_id`: True if this write stored it; False when
    either is not current or the pair already has a suggestion (in any status)."""
    params = {
        "id": suggestion_id, "claim_id": claim_id, "by_claim_id": by_claim_id, "pair_key": pair_key(claim_id, by_claim_id),
        "found_by": str(found_by), "reason": reason, "rule_kind": rule_kind, "now": now,
    }  # fmt: skip
    return bool(graph.query(workspace, CONTRADICTION_RECORD, params))


# A flag: the claim must be current and the passage's version the current one of an active source. It keeps that
# version (`evidence_version_id`): a new version of the source moves the flag to where its quote now is, or makes it
# obsolete (FLAGS_FOLLOW_NEW_VERSION), and a retraction of the source makes it obsolete (FLAGS_OBSOLETE).
FLAG_RECORD = f"""
MATCH (old:Claim {{id: $claim_id}}) WHERE {claim_holds("old")}
MATCH (s:Source {{id: $source_id}})-[:HAS_VERSION]->(v:SourceVersion {{id: $version_id}})
WHERE s.status = {word(SourceStatus.ACTIVE)} AND v.current = true
OPTIONAL MATCH (known:Suggestion {{pair_key: $pair_key}})
WITH old, count(known) AS known WHERE known = 0
MERGE (x:Suggestion {{pair_key: $pair_key}})
ON CREATE SET x.id = $id, x.kind = {word(SuggestionKind.CONTRADICTION)}, x.status = {OPEN}, x.statement = $statement,
    x.found_by = $found_by, x.reason = $reason, x.rule_kind = null, x.created_at = $now, x.created_by = $actor,
    x.claim_id = old.id, x.by_claim_id = null, x.evidence_source_id = $source_id, x.evidence_version_id = $version_id,
    x.evidence_quote = $quote, x.evidence_start = $start, x.evidence_end = $end, x.run_id = $run_id
WITH x, old WHERE x.id = $id
CREATE (x)-[:ABOUT]->(old)
RETURN x.id
"""


def flag_record(
    *, workspace: HasGraph, suggestion_id: str, key: str, claim_id: str, statement: str, source_id: str,
    version_id: str, quote: str, start: int, end: int, found_by: FoundBy, reason: str, actor: str, now: str,
    run_id: str | None = None,
) -> bool:  # fmt: skip
    """Records a contradiction flagged with a passage (by the agent run `run_id`, if one flagged it): True if this
    write stored it; False when the claim is not current, the version is no longer the source's current one, or the
    same flag was recorded before."""
    params = {
        "id": suggestion_id, "pair_key": key, "claim_id": claim_id, "statement": statement, "source_id": source_id,
        "version_id": version_id, "quote": quote, "start": start, "end": end, "found_by": str(found_by),
        "reason": reason, "actor": actor, "now": now, "run_id": run_id,
    }  # fmt: skip
    return bool(graph.query(workspace, FLAG_RECORD, params))


# Turning suggestions down, each of $ids that is open. An agent's claim waiting for approval (kind agent_claim) is
# rejected with its suggestion, in the same write and with its Change (a rejected claim never comes back). Nothing
# else changes and the revision stays: a proposed claim supports nothing.
SUGGESTION_REJECT = (
    f"UNWIND $ids AS sid MATCH (x:Suggestion {{id: sid}}) WHERE x.status = {OPEN} "
    f"OPTIONAL MATCH (x)-[:ABOUT]->(c:Claim) WHERE x.kind = {word(SuggestionKind.AGENT_CLAIM)} "
    f"AND c.status = {word(ClaimStatus.PROPOSED)} "
    "FOREACH (p IN CASE WHEN c IS NULL THEN [] ELSE [c] END | "
    + record_change(
        "p", kind=ChangeKind.CLAIM, to_status=word(ClaimStatus.REJECTED), cause=ChangeCause.CLAIM_REVIEW,
        cause_id="x.id", actor="$actor",
    )
    + f" SET p.status = {word(ClaimStatus.REJECTED)}, p.status_changed_at = $now) "
    f"SET x.status = {word(SuggestionStatus.REJECTED)}, x.decided_at = $now, x.decided_by = $actor, "
    "x.decision_reason = $reason, x.both_hold = $both_hold "
    "RETURN " + FIELDS + " AS suggestion"
)  # fmt: skip


def suggestions_reject(
    *, workspace: HasGraph, suggestion_ids: list[str], reason: str, both_hold: bool, actor: str, now: str
) -> list[Suggestion]:
    """Turns down each of these suggestions that is open (its pair is never suggested again; an agent's claim is
    rejected with it), in one write: the ones turned down."""
    ids = [i for i in suggestion_ids if parse_id(i)]
    params = {"ids": ids, "reason": reason, "both_hold": both_hold, "actor": actor, "now": now}
    return [Suggestion.from_map(row) for row in graph.records(workspace, SUGGESTION_REJECT, params)] if ids else []


def suggestion_reject(
    *, workspace: HasGraph, suggestion_id: str, reason: str, both_hold: bool, actor: str, now: str
) -> Suggestion | None:
    """Turns down an open suggestion (its pair is never suggested again); None if it is not open (or not here)."""
    rejected = suggestions_reject(
        workspace=workspace, suggestion_ids=[suggestion_id], reason=reason, both_hold=both_hold, actor=actor, now=now
    )
    return rejected[0] if rejected else None


# Approving agents' claims: each of $ids that is an open agent_claim suggestion whose claim is still `proposed`,
# not proposed by the approver ($actor: an agent holding a reviewer's token never approves its own claims), and
# whose quote's version is still the current one of an active source. The claim becomes current (with its Change)
# and the suggestion accepted, all in one write, which raises the revision (a new current claim, as CLAIMS_RECORD).
AGENT_CLAIMS_APPROVE = (
    f"UNWIND $ids AS sid MATCH (x:Suggestion {{id: sid}})-[:ABOUT]->(c:Claim) "
    f"WHERE x.kind = {word(SuggestionKind.AGENT_CLAIM)} AND x.status = {OPEN} AND c.status = {word(ClaimStatus.PROPOSED)} "
    "AND coalesce(x.created_by, '') <> $actor "
    "MATCH (s:Source {id: c.source_id})-[:HAS_VERSION]->(v:SourceVersion {id: c.version_id}) "
    f"WHERE s.status = {word(SourceStatus.ACTIVE)} AND v.current = true "
    + record_change(
        "c", kind=ChangeKind.CLAIM, to_status=word(ClaimStatus.CURRENT), cause=ChangeCause.CLAIM_REVIEW,
        cause_id="x.id", actor="$actor",
    )
    + f"SET c.status = {word(ClaimStatus.CURRENT)}, c.status_changed_at = $now, c.current_since_ms = $now_ms, "
    f"x.status = {word(SuggestionStatus.ACCEPTED)}, x.decided_at = $now, x.decided_by = $actor, "
    "x.decision_reason = $reason "
    "WITH collect(x) AS approved WHERE size(approved) > 0 "
    + BUMP_REVISION
    + " WITH approved UNWIND approved AS x RETURN " + FIELDS + " AS suggestion"
)  # fmt: skip


def agent_claims_approve(
    *, workspace: HasGraph, suggestion_ids: list[str], reason: str, actor: str, now: str
) -> list[Suggestion]:
    """Approves each of these suggestions that is an open agent_claim whose claim can become current (above), in
    one write: the ones approved (their claims are now current)."""
    ids = [i for i in suggestion_ids if parse_id(i)]
    params = {"ids": ids, "reason": reason, "actor": actor, "now": now, "now_ms": epoch_ms(now)}
    return [Suggestion.from_map(row) for row in graph.records(workspace, AGENT_CLAIMS_APPROVE, params)] if ids else []


SUGGESTIONS_GET = "UNWIND $ids AS sid MATCH (x:Suggestion {id: sid}) RETURN " + FIELDS + " AS suggestion"


def suggestions_get(*, workspace: HasGraph, suggestion_ids: list[str]) -> dict[str, Suggestion]:
    """These suggestions that exist, by id, in one read."""
    ids = [i for i in suggestion_ids if parse_id(i)]
    rows = graph.ro_records(workspace, SUGGESTIONS_GET, {"ids": ids}) if ids else []
    return {row["id"]: Suggestion.from_map(row) for row in rows}


# -- reads --------------------------------------------------------------------------------------------------

SUGGESTION_GET = "MATCH (x:Suggestion {id: $id}) RETURN " + FIELDS + " AS suggestion"
SUGGESTION_BY_PAIR = "MATCH (x:Suggestion {pair_key: $pair_key}) RETURN " + FIELDS + " AS suggestion"


def suggestion_get(*, workspace: HasGraph, suggestion_id: str) -> Suggestion | None:
    if parse_id(suggestion_id) is None:
        return None
    rows = graph.ro_records(workspace, SUGGESTION_GET, {"id": suggestion_id})
    return Suggestion.from_map(rows[0]) if rows else None


SUGGESTION_OF_CORRECTION = "MATCH (x:Suggestion {correction_id: $correction_id}) RETURN " + FIELDS + " AS suggestion"


def suggestion_of_correction(*, workspace: HasGraph, correction_id: str) -> Suggestion | None:
    """The suggestion this correction accepted, or None."""
    rows = graph.ro_records(workspace, SUGGESTION_OF_CORRECTION, {"correction_id": correction_id})
    return Suggestion.from_map(rows[0]) if rows else None


def suggestion_by_key(*, workspace: HasGraph, key: str) -> Suggestion | None:
    """The suggestion recorded for this pair (or flag), whatever its status."""
    rows = graph.ro_records(workspace, SUGGESTION_BY_PAIR, {"pair_key": key})
    return Suggestion.from_map(rows[0]) if rows else None


PAIR_KEYS_KNOWN = "UNWIND $keys AS key MATCH (x:Suggestion {pair_key: key}) RETURN collect(DISTINCT key)"


def pair_keys_known(*, workspace: HasGraph, keys: list[str]) -> set[str]:
    """Which of these pair keys already have a suggestion (in any status): the watch asks the model about no other."""
    if not keys:
        return set()
    rows = graph.ro_query(workspace, PAIR_KEYS_KNOWN, {"keys": keys})
    return set(rows[0][0]) if rows else set()


# Each claim's quote as the watch sends it to the model: its own source's, or, for a correction's replacement, the
# passage it cites (as CONTRADICTION_RECORD takes the newer claim's evidence); null for a derived claim.
CLAIM_QUOTES = """
UNWIND $claim_ids AS claim_id MATCH (c:Claim {id: claim_id})
RETURN collect([claim_id, CASE WHEN c.source_id IS NULL THEN c.cited_quote ELSE c.evidence_quote END])
"""


def claim_quotes(*, workspace: HasGraph, claim_ids: list[str]) -> dict[str, str | None]:
    """The quote each of these claims rests on (None: none, a derived claim), in one read; absent ids are left out."""
    if not claim_ids:
        return {}
    rows = graph.ro_query(workspace, CLAIM_QUOTES, {"claim_ids": claim_ids})
    return {claim_id: quote for claim_id, quote in rows[0][0]} if rows else {}


SUGGESTION_AFTER, SUGGESTION_ORDER = keyset("x")
SUGGESTION_WHERE = "MATCH (x:Suggestion) WHERE " + where(SUGGESTIONS.filters, "status", "kind")
SUGGESTION_LIST = (
    SUGGESTION_WHERE + "AND " + SUGGESTION_AFTER + " WITH x ORDER BY " + SUGGESTION_ORDER + " LIMIT $limit "
    "RETURN " + FIELDS + " AS suggestion ORDER BY suggestion.created_at DESC, suggestion.id DESC"
)
SUGGESTION_COUNT = SUGGESTION_WHERE + "RETURN count(x)"


def _params(status: str, kind: str) -> dict[str, Any]:
    return filter_params(SUGGESTIONS.filters, SUGGESTIONS.criteria({"status": status, "kind": kind})[0])


def suggestion_list(
    *, workspace: HasGraph, status: str = "", kind: str = "", limit: int = 100, after: tuple[str, str] | None = None
) -> list[Suggestion]:
    """Suggestions, newest first (after the (created_at, id) position `after`), of this status and kind ('' any)."""
    params = {**_params(status, kind), "limit": limit, **after_params(after)}
    rows = graph.ro_records(workspace, SUGGESTION_LIST, params)
    return [Suggestion.from_map(row) for row in rows]


def suggestion_count(*, workspace: HasGraph, status: str = "", kind: str = "") -> int:
    """How many suggestions there are of this status and kind ('' any)."""
    return int(graph.ro_query(workspace, SUGGESTION_COUNT, _params(status, kind))[0][0])


# A claim as the watch reads it: its status and statement, and what it must not be paired with: itself, and those
# it was derived from or that were derived from it (a derived claim and its premise are both current, and may read
# as contradictory: "… is in July" derived from "… is in June"). SUPERSEDES is in the kin too, but today it never
# decides anything: a claim and its replacement are never both current, and candidates are current claims only. It
# stays so that a replacement is never paired with the claim it replaced, should that ever change.
CLAIM_KIN = """
MATCH (c:Claim {id: $claim_id})
OPTIONAL MATCH (c)-[:SUPERSEDES|DERIVED_FROM]-(k:Claim)
WITH c, collect(DISTINCT k.id) AS kin
RETURN {status: c.status, statement: c.statement, kin: kin} AS claim
"""


@dataclass(frozen=True)
class Watched:
    status: str
    statement: str
    kin: set[str]


def claim_kin(*, workspace: HasGraph, claim_id: str) -> Watched | None:
    """The claim's status, statement and the ids it must not be paired with (its own included); None if absent."""
    rows = graph.ro_records(workspace, CLAIM_KIN, {"claim_id": claim_id})
    if not rows:
        return None
    return Watched(rows[0]["status"], rows[0]["statement"], {claim_id, *rows[0]["kin"]})
