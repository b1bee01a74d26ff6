"""A correction's write and its recovery in the graph: the correction with its propagation in one atomic query
(PROPAGATE, shared with evidence.py), and the fence and the read that settle an intent after a crash.

It creates Correction, CorrectionTombstone, a correction's human_correction SourceFragment and replacement Claim,
CORRECTS and SUPERSEDES, and changes the statuses of the other apps' nodes it reaches (a claim superseded or
unsupported, a decision flagged, an action held, a done action's follow-up needed): one atomic query that belongs to the app that owns the operation
(docs/conventions.md). What holds is afterhack.holds, the same rule the propagation engine judges by."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from afterhack import graph
from afterhack.clock import epoch_ms
from afterhack.cypher import word
from afterhack.graph import REVISION_PLUS_ONE, HasGraph
from afterhack.history_graph import ChangeCause, ChangeKind, record_change
from afterhack.holds import claim_holds
from agents.graph.actions import follow_up_change
from agents.statuses import ActionStatus, DecisionStatus, FollowUp
from claims.graph.shapes import CITED_PASSAGE_ROLE, CitedPassage
from claims.statuses import ClaimStatus, ConfidenceKind, SourceStatus
from corrections.graph.suggestions import obsolete_suggestions
from corrections.statuses import SuggestionStatus

# What a decision's review state is besides its status: a flag overwrites it, so its Change keeps it.
DECISION_REVIEW_STATE = ("review_reason", "flagged_by", "dismissed_at")

# Each status it changes is recorded (afterhack/history_graph.py) before it is set: the cause is $cause (a
# correction, a retraction or a new version) and its id the anchor's (the Correction, Source or SourceVersion).
# A done action of a flagged decision stays done (it happened): its follow-up becomes needed, recorded likewise,
# whatever it was (a new loss is a new reason to follow up): an earlier answer is dropped (`follow_up_id`,
# `follow_up_reason`, kept in its Change), so a follow-up planned for the earlier loss no longer completes it.
PROPAGATE = (
    """
CALL {
  WITH anchor
  UNWIND $claims_unsupported AS cid
  MATCH (c:Claim {id: cid})
  """
    + record_change("c", kind=ChangeKind.CLAIM, to_status=word(ClaimStatus.UNSUPPORTED), cause="$cause", cause_id="anchor.id",
                    actor="$actor")
    + f"""  SET c.status = {word(ClaimStatus.UNSUPPORTED)}, c.status_changed_at = $now
  WITH c
  {obsolete_suggestions("c")}}}
CALL {{
  WITH anchor
  UNWIND $decisions_needing_review AS did
  MATCH (d:Decision {{id: did}})
  """
    + record_change("d", kind=ChangeKind.DECISION, to_status=word(DecisionStatus.NEEDS_REVIEW), cause="$cause", cause_id="anchor.id",
                    actor="$actor", before=DECISION_REVIEW_STATE)
    + f"""  SET d.status = {word(DecisionStatus.NEEDS_REVIEW)}, d.review_reason = $review_reason, d.flagged_by = $flagged_by, d.dismissed_at = null,
      d.status_changed_at = $now
}}
CALL {{
  WITH anchor
  UNWIND $actions_held AS aid
  MATCH (a:Action {{id: aid}})
  WHERE a.status = {word(ActionStatus.PENDING)}
  """
    + record_change("a", kind=ChangeKind.ACTION, to_status=word(ActionStatus.HELD), cause="$cause", cause_id="anchor.id",
                    actor="$actor")
    + f"""  SET a.status = {word(ActionStatus.HELD)}, a.updated_at = $now
}}
CALL {{
  WITH anchor
  UNWIND $actions_already_done AS aid
  MATCH (a:Action {{id: aid}})
  WHERE a.status = {word(ActionStatus.DONE)}
  """
    + follow_up_change("a", to=word(FollowUp.NEEDED), cause="$cause", cause_id="anchor.id", actor="$actor")
    + f"""  SET a.follow_up = {word(FollowUp.NEEDED)}, a.follow_up_id = null, a.follow_up_reason = null, a.follow_up_at = $now
}}
"""
)  # fmt: skip

# The whole correction in one query, only if the revision is still the one the preview saw, the
# claim is still current, a cited source version is still the current one of an active source, and a suggestion it
# accepts still open, about or by the claim, and not flagged by the reviewer applying it (another reviewer must):
# the old claim superseded (kept), the Correction with its own human_correction fragment, the
# replacement citing that fragment (and the fragments of the cited passage, if any), and the propagation.
# (The count of cited versions is grouped by `fenced`: an aggregate over no rows would make a row again.)
CORRECTION_APPLY = (
    f"""
OPTIONAL MATCH (fence:CorrectionTombstone {{id: $correction_id}})
WITH count(fence) AS fenced WHERE fenced = 0
OPTIONAL MATCH (v:SourceVersion {{id: $cited_version_id}})
OPTIONAL MATCH (s:Source {{status: {word(SourceStatus.ACTIVE)}}})-[:HAS_VERSION]->(v) WHERE v.current = true
WITH fenced, count(s) AS citable WHERE citable = $cited_versions
OPTIONAL MATCH (sg:Suggestion {{id: $suggestion_id}})
WHERE sg.status = {word(SuggestionStatus.OPEN)} AND (sg.claim_id = $claim_id OR sg.by_claim_id = $claim_id)
  AND coalesce(sg.created_by, '') <> $actor
WITH fenced, count(sg) AS acceptable WHERE acceptable = $suggestions
MATCH (w:Workspace) WHERE w.revision = $revision
MATCH (old:Claim {{id: $claim_id}}) WHERE """
    + claim_holds("old")
    + "\n"
    + record_change(
        "old",
        kind=ChangeKind.CLAIM,
        to_status=word(ClaimStatus.SUPERSEDED),
        cause=ChangeCause.CORRECTION,
        cause_id="$correction_id",
        actor="$actor",
    )
    + """SET """
    + REVISION_PLUS_ONE
    + f""", old.status = {word(ClaimStatus.SUPERSEDED)}, old.status_changed_at = $now
WITH old
CALL {{ WITH old MATCH (sg:Suggestion {{id: $suggestion_id}})
  SET sg.status = {word(SuggestionStatus.ACCEPTED)}, sg.correction_id = $correction_id, sg.decided_at = $now,
      sg.decided_by = $actor }}
{obsolete_suggestions("old")}CREATE (correction:Correction {{id: $correction_id, statement: $statement, reason: $reason, actor: $actor,
                               applied_at: $now, revision: $revision, idempotency_key: $idempotency_key,
                               claim_id: old.id, replacement_claim_id: $replacement_id, affected: $affected,
                               suggestion_id: CASE WHEN $suggestion_id = '' THEN null ELSE $suggestion_id END}})
CREATE (correction)-[:CORRECTS]->(old)
CREATE (correction)-[:HAS_FRAGMENT]->(fragment:SourceFragment {{id: $fragment_id, start: 0, end: $length,
        text: $statement, origin_type: 'human_correction', origin_name: 'Workspace reviewer correction',
        created_at: $now}})
CREATE (replacement:Claim {{id: $replacement_id, key: $replacement_id, statement: $statement,
        evidence_quote: $statement, start: 0, end: $length, confidence: 0.0, confidence_kind: {word(ConfidenceKind.HUMAN_CORRECTION)},
        status: {word(ClaimStatus.CURRENT)}, revision: 0, extractor: 'correction', source_id: null, version_id: null,
        correction_id: $correction_id, created_at: $now, current_since_ms: $now_ms, created_by: $actor,
        cited_source_id: $cited.source_id,
        cited_version_id: $cited.version_id, cited_version: $cited.version, cited_quote: $cited.quote,
        cited_start: $cited.start, cited_end: $cited.end}})
CREATE (replacement)-[:SUPPORTED_BY {{role: 'reviewer_correction'}}]->(fragment)
CREATE (replacement)-[:SUPERSEDES]->(old)
WITH correction AS anchor, replacement
CALL {{
  WITH replacement
  UNWIND $cited_fragment_ids AS fid
  MATCH (:SourceVersion {{id: $cited_version_id}})-[:HAS_FRAGMENT]->(f:SourceFragment {{id: fid}})
  CREATE (replacement)-[:SUPPORTED_BY {{role: $cited_role}}]->(f)
}}
WITH anchor
"""
    + PROPAGATE
    + "RETURN anchor.id"
)


def _cited_params(cited: CitedPassage | None) -> dict[str, Any]:
    if cited is None:
        return {"cited": {}, "cited_version_id": "", "cited_versions": 0, "cited_fragment_ids": [],
                "cited_role": CITED_PASSAGE_ROLE}  # fmt: skip
    return {
        "cited": cited.record(), "cited_version_id": cited.version_id, "cited_versions": 1,
        "cited_fragment_ids": [f.id for f in cited.fragments], "cited_role": CITED_PASSAGE_ROLE,
    }  # fmt: skip


def correction_apply(
    *,
    workspace: HasGraph,
    revision: int,
    claim_id: str,
    correction_id: str,
    fragment_id: str,
    replacement_id: str,
    statement: str,
    reason: str,
    actor: str,
    idempotency_key: str,
    affected: dict[str, list[str]],
    review_reason: str,
    now: str,
    cited: CitedPassage | None = None,
    suggestion_id: str | None = None,
) -> bool:
    """Writes the correction and its propagation atomically; False (nothing written) if the revision moved,
    the claim is not current, the cited version is no longer the current one of an active source, or the
    suggestion it accepts is no longer open (or was flagged by `actor`)."""
    params = {
        "suggestion_id": suggestion_id or "", "suggestions": 1 if suggestion_id else 0,
        **_cited_params(cited),
        "revision": revision, "claim_id": claim_id, "correction_id": correction_id, "fragment_id": fragment_id,
        "replacement_id": replacement_id, "statement": statement, "length": len(statement), "reason": reason,
        "actor": actor, "idempotency_key": idempotency_key, "affected": json.dumps(affected), "now": now,
        "now_ms": epoch_ms(now), "claims_unsupported": affected["claims_unsupported"],
        "decisions_needing_review": affected["decisions_needing_review"],
        "actions_held": affected["actions_held"], "actions_already_done": affected.get("actions_already_done", []),
        "review_reason": review_reason, "flagged_by": correction_id,
        "cause": ChangeCause.CORRECTION,
    }  # fmt: skip
    return bool(graph.query(workspace, CORRECTION_APPLY, params))


# Settling a pending intent as failed first fences its correction id: should its graph write
# still be on its way (the client gave up, the server did not), it then writes nothing.
# (Counted, not `WITH x WHERE x IS NULL`: FalkorDB 4.22 does not filter that before a MERGE.)
CORRECTION_FENCE = """
OPTIONAL MATCH (x:Correction {id: $correction_id})
WITH count(x) AS written WHERE written = 0
MERGE (t:CorrectionTombstone {id: $correction_id})
ON CREATE SET t.created_at = $now
RETURN t.id
"""


def correction_fence(*, workspace: HasGraph, correction_id: str, now: str) -> bool:
    """Makes sure a correction id can never be written; False if the correction is already there."""
    return bool(graph.query(workspace, CORRECTION_FENCE, {"correction_id": correction_id, "now": now}))


CORRECTION_EXISTS = """
MATCH (x:Correction {id: $correction_id})
OPTIONAL MATCH (new:Claim {id: x.replacement_claim_id})
RETURN {replacement_claim_id: x.replacement_claim_id, affected: x.affected,
        cited: new {source_id: new.cited_source_id, version_id: new.cited_version_id, version: new.cited_version,
                    quote: new.cited_quote, start: new.cited_start, end: new.cited_end}} AS written
"""


@dataclass(frozen=True)
class Written:
    """What the graph holds of a correction: its replacement, what it did, and the passage it cites."""

    replacement_claim_id: str
    affected: dict[str, list[str]]
    # {"source_id", "version_id", "version", "quote", "start", "end"}, or None when it cites no passage.
    cited: dict[str, Any] | None


def correction_written(*, workspace: HasGraph, correction_id: str) -> Written | None:
    """The correction as the graph holds it, or None if it was never written (used by recovery and replays)."""
    rows = graph.ro_records(workspace, CORRECTION_EXISTS, {"correction_id": correction_id})
    if not rows:
        return None
    cited = rows[0]["cited"]
    return Written(
        replacement_claim_id=rows[0]["replacement_claim_id"],
        affected=json.loads(rows[0]["affected"] or "{}"),
        cited=cited if cited and cited["version_id"] else None,
    )
