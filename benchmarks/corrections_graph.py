"""The benchmark's Cypher (run by `make bench`, never by the product): bulk stories to grow a workspace,
and the hackathon original's one-query-per-step correction as the baseline the atomic query is compared to.
"""

from __future__ import annotations

from typing import Any

from afterhack import graph
from afterhack.graph import HasGraph

BENCH_STORIES = """
UNWIND $stories AS n
CREATE (s:Source {id: n.s, title: 'Bench source', origin_type: 'document', status: 'active', created_at: $now})
CREATE (s)-[:HAS_VERSION]->(v:SourceVersion {id: n.v, version: 1, sha256: '', text: 'The launch is in June. Ana owns it.',
        length: 35, current: true, created_at: $now})
CREATE (v)-[:HAS_FRAGMENT]->(f1:SourceFragment {id: n.f1, start: 0, end: 23, text: 'The launch is in June. ', origin_type: 'document'})
CREATE (v)-[:HAS_FRAGMENT]->(f2:SourceFragment {id: n.f2, start: 23, end: 35, text: 'Ana owns it.', origin_type: 'document'})
CREATE (a:Claim {id: n.a, key: n.a, statement: 'The launch is in June.', evidence_quote: 'The launch is in June', start: 0,
        end: 21, status: 'current', confidence_kind: 'manual', version_id: n.v, source_id: n.s, created_at: $now})-[:SUPPORTED_BY {role: 'evidence'}]->(f1)
CREATE (b:Claim {id: n.b, key: n.b, statement: 'Ana owns it.', evidence_quote: 'Ana owns it.', start: 23, end: 35,
        status: 'current', confidence_kind: 'manual', version_id: n.v, source_id: n.s, created_at: $now})-[:SUPPORTED_BY {role: 'evidence'}]->(f2)
CREATE (c:Claim {id: n.c, key: n.c, statement: 'Ana launches in June.', status: 'current', confidence_kind: 'derived',
        created_at: $now})
CREATE (c)-[:DERIVED_FROM {justification: 0}]->(a), (c)-[:DERIVED_FROM {justification: 0}]->(b)
CREATE (d:Decision {id: n.d, title: 'Launch in June', status: 'supported', created_at: $now})
CREATE (a)-[:SUPPORTS {justification: 0}]->(d), (b)-[:SUPPORTS {justification: 1}]->(d)
CREATE (e:Decision {id: n.e, title: 'Brief Ana in May', status: 'supported', created_at: $now})
CREATE (c)-[:SUPPORTS {justification: 0}]->(e)
CREATE (x:Action {id: n.x, title: 'Send the briefing', status: 'pending', created_at: $now})-[:DEPENDS_ON]->(e)
RETURN count(n)
"""
# A source, its version, 2 fragments, 3 claims, 2 decisions, an action (was 11 until issue #14: one too many).
BENCH_NODES_PER_STORY = 10


def bench_stories_create(*, workspace: HasGraph, stories: list[dict[str, str]], now: str) -> None:
    """Adds benchmark stories (BENCH_NODES_PER_STORY nodes each) in one query."""
    graph.query(workspace, BENCH_STORIES, {"stories": stories, "now": now})


NAIVE_STEPS = {
    "supersede": "MATCH (c:Claim {id: $claim_id}) SET c.status = 'superseded'",
    "correction": "CREATE (:Correction {id: $correction_id, statement: $statement, reason: $reason, applied_at: $now})",
    "corrects": "MATCH (x:Correction {id: $correction_id}), (c:Claim {id: $claim_id}) CREATE (x)-[:CORRECTS]->(c)",
    "fragment": "MATCH (x:Correction {id: $correction_id}) CREATE (x)-[:HAS_FRAGMENT]->(:SourceFragment {id: $fragment_id, text: $statement, origin_type: 'human_correction'})",
    "replacement": "CREATE (:Claim {id: $replacement_id, statement: $statement, status: 'current', confidence: 0.0, confidence_kind: 'human_correction'})",
    "cites": "MATCH (r:Claim {id: $replacement_id}), (f:SourceFragment {id: $fragment_id}) CREATE (r)-[:SUPPORTED_BY {role: 'reviewer_correction'}]->(f)",
    "supersedes": "MATCH (r:Claim {id: $replacement_id}), (c:Claim {id: $claim_id}) CREATE (r)-[:SUPERSEDES]->(c)",
    "dependents": "MATCH (c:Claim {id: $claim_id})-[:SUPPORTS]->(d:Decision) RETURN d.id",
    "alternatives": "MATCH (s)-[:SUPPORTS]->(d:Decision {id: $decision_id}) WHERE s.status = 'current' RETURN count(s)",
    "flag": "MATCH (d:Decision {id: $decision_id}) SET d.status = 'needs_review'",
    "actions": "MATCH (a:Action)-[:DEPENDS_ON]->(d:Decision {id: $decision_id}) WHERE a.status = 'pending' SET a.status = 'held'",
}


def naive_step(*, workspace: HasGraph, step: str, params: dict[str, Any]) -> list[Any]:
    """One step of the hackathon original's correction (a query per step: not atomic, one level deep)."""
    return graph.query(workspace, NAIVE_STEPS[step], params)


# A past for the history benchmark: stories are created in the past (bench_stories_create's $now); each event then corrects its story's
# first claim at e.at, as the product's apply would leave it (the claim superseded, the derived claim resting
# on it unsupported, the decision resting on that flagged, its action held), with the Change records the
# product's queries write (afterhack.history_graph) — spread over weeks, which a benchmark cannot wait for.
BENCH_HISTORY = """
UNWIND $events AS e
MATCH (a:Claim {id: e.a}), (c:Claim {id: e.c}), (d:Decision {id: e.e}), (x:Action {id: e.x})
CREATE (:Change {at: e.at, kind: 'claim', id: a.id, from_status: a.status, to_status: 'superseded',
        cause: 'correction', cause_id: e.correction, actor: 'bench'})-[:OF]->(a)
CREATE (:Change {at: e.at, kind: 'claim', id: c.id, from_status: c.status, to_status: 'unsupported',
        cause: 'correction', cause_id: e.correction, actor: 'bench'})-[:OF]->(c)
CREATE (:Change {at: e.at, kind: 'decision', id: d.id, from_status: d.status, to_status: 'needs_review',
        cause: 'correction', cause_id: e.correction, actor: 'bench', from_review_reason: d.review_reason})-[:OF]->(d)
CREATE (:Change {at: e.at, kind: 'action', id: x.id, from_status: x.status, to_status: 'held',
        cause: 'correction', cause_id: e.correction, actor: 'bench'})-[:OF]->(x)
SET a.status = 'superseded', c.status = 'unsupported', d.status = 'needs_review', d.review_reason = 'lost_support',
    x.status = 'held'
RETURN count(e)
"""


def bench_history_create(*, workspace: HasGraph, events: list[dict[str, str]]) -> None:
    """Writes the events' corrections as of their times (stories made with bench_stories_create, dated before)."""
    for start in range(0, len(events), 1_000):
        graph.query(workspace, BENCH_HISTORY, {"events": events[start : start + 1_000]})


# What changed in what an agent relied on (the history benchmark): the agent recorded these decisions.
BENCH_DECISIONS_OF = (
    "UNWIND $ids AS decision_id MATCH (d:Decision {id: decision_id}) SET d.created_by = $me RETURN count(d)"
)


def bench_decisions_of(*, workspace: HasGraph, ids: list[str], me: str) -> None:
    """Makes `me` the one who recorded these decisions."""
    for start in range(0, len(ids), 5_000):
        graph.query(workspace, BENCH_DECISIONS_OF, {"ids": ids[start : start + 5_000], "me": me})


# The memory benchmark (`make bench BENCH_ARGS="--only memory"`): a vector of `dimension` on each story's claims,
# drawn by the server (so the vectors never cross the wire as text), and FalkorDB's own report of a graph's memory.
BENCH_EMBED = """
UNWIND $ids AS claim_id
MATCH (c:Claim {id: claim_id})
SET c.embedding_model = $model, c.embedding = vecf32([i IN range(1, $dimension) | rand() - 0.5])
RETURN count(c)
"""
BENCH_COUNTS = "MATCH (n) WITH count(n) AS nodes MATCH ()-[r]->() RETURN nodes, count(r)"


def bench_embed(*, workspace: HasGraph, ids: list[str], model: str, dimension: int) -> None:
    """Gives the claims `ids` random vectors of `dimension`, in one query."""
    graph.query(workspace, BENCH_EMBED, {"ids": ids, "model": model, "dimension": dimension})


def bench_counts(*, workspace: HasGraph) -> tuple[int, int]:
    """The graph's nodes and relationships."""
    nodes, edges = graph.ro_query(workspace, BENCH_COUNTS)[0]
    return int(nodes), int(edges)


def memory_report(*, workspace: HasGraph) -> dict[str, float]:
    """FalkorDB's GRAPH.MEMORY USAGE of the workspace's graph, part by part in MB ({} if the server cannot say);
    the per-label and per-type attribute parts are summed."""
    try:
        answer = graph.client().connection.execute_command("GRAPH.MEMORY", "USAGE", workspace.graph_name)
    except Exception:  # noqa: BLE001 - an older server without the command: the figures are left out
        return {}
    pairs = answer.items() if isinstance(answer, dict) else zip(answer[::2], answer[1::2], strict=False)
    report = {}
    for name, value in pairs:
        if isinstance(value, dict):  # {label: MB}
            value = sum(float(mb) for mb in value.values())
        elif isinstance(value, list):  # [label, MB, label, MB, ...]
            value = sum(float(mb) for mb in value[1::2])
        report[str(name)] = float(value)
    return report


def server_used_memory_mb() -> float:
    """The FalkorDB server's allocated memory (INFO memory, used_memory: unlike the RSS, it falls when a graph goes);
    on a cluster, the sum over every primary (a graph lives on one, but which one is the slot's choice)."""
    connection = graph.client().connection
    if graph.is_cluster():
        answers = connection.info("memory", target_nodes=connection.PRIMARIES)
        return sum(float(info["used_memory"]) for info in answers.values()) / 2**20
    info = connection.execute_command("INFO", "memory")
    return float(info["used_memory"]) / 2**20


def bench_claim_ids(*, workspace: HasGraph) -> list[str]:
    """Every claim's id (the memory benchmark gives them vectors)."""
    return [row[0] for row in graph.ro_query(workspace, "MATCH (c:Claim) RETURN c.id")]


def bench_note_create(*, workspace: HasGraph, n: int) -> None:
    """One small write (the failover benchmark's client): a numbered note, in one query."""
    graph.query(workspace, "CREATE (:Note {n: $n})", {"n": n})
