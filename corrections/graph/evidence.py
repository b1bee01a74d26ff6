"""Evidence that goes away, in the graph: a source retracted, or a new version of it (claims whose quote is still
there move to it, the others are retracted; so do contradictions flagged with a passage of it, set obsolete rather
than retracted), each with its propagation in one atomic query. Like apply.py, these
change the statuses of the claims' and agents' nodes on purpose (docs/conventions.md)."""

from __future__ import annotations

from typing import Any

from afterhack import graph
from afterhack.cypher import word
from afterhack.graph import REVISION_PLUS_ONE, HasGraph
from afterhack.history_graph import ChangeCause, ChangeKind, record_change
from afterhack.holds import claim_holds
from claims.statuses import ClaimStatus, SourceStatus
from corrections.graph.apply import PROPAGATE
from corrections.graph.suggestions import flags_follow_new_version, flags_obsolete, obsolete_suggestions

# -- evidence that goes away -----------------------------------------------------------------------


RETRACT = (
    """
CALL {
  WITH anchor
  UNWIND $retracted AS cid
  MATCH (c:Claim {id: cid})
  WHERE """
    + claim_holds("c")
    + "\n  "
    + record_change(
        "c",
        kind=ChangeKind.CLAIM,
        to_status=word(ClaimStatus.RETRACTED),
        cause="$cause",
        cause_id="anchor.id",
        actor="$actor",
    )
    + f"""  SET c.status = {word(ClaimStatus.RETRACTED)}, c.retraction = $retraction, c.status_changed_at = $now
  WITH c
  {obsolete_suggestions("c")}}}
"""
)

SOURCE_RETRACT = (
    "MATCH (w:Workspace) WHERE w.revision = $revision "
    f"MATCH (anchor:Source {{id: $source_id}}) WHERE anchor.status = {word(SourceStatus.ACTIVE)} "
    "SET "
    + REVISION_PLUS_ONE
    + f", anchor.status = {word(SourceStatus.RETRACTED)}, anchor.retracted_at = $now, anchor.retracted_by = $actor "
    "WITH anchor " + flags_obsolete("anchor") + RETRACT + PROPAGATE + "RETURN anchor.id"
)


def _propagation_params(affected: dict[str, list[str]], review_reason: str) -> dict[str, Any]:
    return {
        "claims_unsupported": affected["claims_unsupported"],
        "decisions_needing_review": affected["decisions_needing_review"],
        "actions_held": affected["actions_held"],
        "actions_already_done": affected.get("actions_already_done", []),
        "review_reason": review_reason,
        "flagged_by": None,
    }


def source_retract(
    *, workspace: HasGraph, revision: int, source_id: str, retracted: list[str], affected: dict[str, list[str]],
    review_reason: str, actor: str, now: str,
) -> bool:  # fmt: skip
    """Retracts the source and its current claims (the open flags citing it become obsolete) and writes the
    propagation, in one query; False if the revision moved."""
    params = {
        "revision": revision, "source_id": source_id, "retracted": retracted, "retraction": "source_retracted",
        "cause": ChangeCause.RETRACTION, "actor": actor, "now": now, **_propagation_params(affected, review_reason),
    }  # fmt: skip
    return bool(graph.query(workspace, SOURCE_RETRACT, params))


# A claim moved to a new version keeps its status; its Change keeps the evidence it had (version, offsets, and
# each SUPPORTED_BY as 'role:fragment id': the edges are replaced), so an as-of read can show it as it was.
MOVED_RECORD = record_change(
    "c",
    kind=ChangeKind.CLAIM,
    to_status="c.status",
    cause=ChangeCause.NEW_VERSION,
    cause_id="anchor.id",
    actor="$actor",
    before=("version_id", "start", "end", "moved_from"),
    also={"from_supported_by": "cited"},
)

# The new version with its fragments; claims whose quote is still in the text move to it (new
# offsets, new fragments); the others are retracted; open flags citing the source move with their quote or become
# obsolete (as claims do, but a flag is no claim: nothing rests on it); and the propagation — all in one query.
SOURCE_NEW_VERSION = (
    "MATCH (w:Workspace) WHERE w.revision = $revision "
    "MATCH (s:Source {id: $source_id})-[:HAS_VERSION]->(old:SourceVersion {id: $old_version_id}) "
    f"WHERE old.current = true AND s.status = {word(SourceStatus.ACTIVE)} "
    "SET " + REVISION_PLUS_ONE + ", old.current = false "
    "CREATE (s)-[:HAS_VERSION]->(anchor:SourceVersion {id: $version_id, version: old.version + 1, sha256: $sha256, "
    "text: $text, length: $length, current: true, created_at: $now, created_by: $actor}) "
    "WITH anchor "
    "CALL { WITH anchor UNWIND $fragments AS f "
    "  CREATE (anchor)-[:HAS_FRAGMENT]->(:SourceFragment {id: f.id, start: f.start, end: f.end, text: f.text, "
    "  origin_type: 'document', created_at: $now}) } "
    "CALL { WITH anchor UNWIND $moved AS m MATCH (c:Claim {id: m.id}) "
    "  OPTIONAL MATCH (c)-[was:SUPPORTED_BY]->(wf:SourceFragment) "
    "  WITH anchor, c, m, collect(was.role + ':' + wf.id) AS cited "
    + MOVED_RECORD
    + "  SET c.start = m.start, c.end = m.end, c.version_id = anchor.id, c.moved_from = m.from_version "
    "  WITH c, m OPTIONAL MATCH (c)-[r:SUPPORTED_BY]->() DELETE r "
    "  WITH DISTINCT c, m UNWIND m.fragment_ids AS fid MATCH (f:SourceFragment {id: fid}) "
    "  CREATE (c)-[:SUPPORTED_BY {role: 'evidence'}]->(f) } "
    + flags_follow_new_version("anchor") + RETRACT + PROPAGATE + "RETURN anchor.id"
)  # fmt: skip


def source_new_version(
    *, workspace: HasGraph, revision: int, source_id: str, old_version_id: str, version_id: str, text: str,
    sha256: str, fragments: list[dict[str, Any]], moved: list[dict[str, Any]], retracted: list[str],
    affected: dict[str, list[str]], review_reason: str, actor: str, now: str, flags_moved: list[dict[str, Any]],
) -> bool:  # fmt: skip
    """Writes the new version, moved claims, retracted claims, the open flags moved (`{id, start, end}`: the others
    become obsolete) and the propagation in one query; False if anything moved."""
    params = {
        "revision": revision, "source_id": source_id, "old_version_id": old_version_id, "version_id": version_id,
        "text": text, "sha256": sha256, "length": len(text), "fragments": fragments, "moved": moved,
        "flags_moved": flags_moved,
        "retracted": retracted, "retraction": "quote_vanished", "cause": ChangeCause.NEW_VERSION, "actor": actor, "now": now,
        **_propagation_params(affected, review_reason),
    }  # fmt: skip
    return bool(graph.query(workspace, SOURCE_NEW_VERSION, params))
