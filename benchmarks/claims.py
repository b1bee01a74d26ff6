"""Benchmarks of the claims app (run by `make bench`): quote validation, ingest, the source page."""

from __future__ import annotations

import os
import random
import statistics
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.test import Client, override_settings

from afterhack import graph, llm
from afterhack.clock import now_iso
from benchmarks import claims_graph as bench_graph
from claims.evidence import validate_quote
from claims.graph import claims as claims_graph
from claims.graph import embeddings as embeddings_graph
from claims.graph import sources as sources_graph
from claims.selectors import search as search_selectors
from claims.services import claims as claims_services
from claims.services import sources as sources_services
from claims.statuses import ConfidenceKind, SearchMode
from workspaces import graph as workspace_graph
from workspaces.models import Workspace
from workspaces.services import workspaces as workspace_services

WORDS = (
    "launch budget board quarter revenue customer rollout warehouse campaign marketing checklist owner risk "
    "payment provider certification contract supplier delivery schedule meeting decision approval review "
    "team product release market region office invoice forecast target plan update report"
).split()
NAMES = ["Ana", "Priya", "Tom", "Lena", "Kwame", "Mei", "Omar", "Sofia"]
MONTHS = ["January", "March", "May", "June", "July", "September", "November"]


@dataclass(frozen=True)
class Figure:
    name: str
    value: float
    unit: str
    detail: str


def sentence(rng: random.Random) -> str:
    words = rng.sample(WORDS, 7)
    return (
        f"{rng.choice(NAMES)} says the {words[0]} {words[1]} is due in {rng.choice(MONTHS)}, "
        f"with {rng.randint(2, 900)} {words[2]} {words[3]} for the {words[4]} {words[5]} {words[6]}."
    )


def document(rng: random.Random, chars: int) -> str:
    paragraphs, size = [], 0
    while size < chars:
        paragraph = " ".join(sentence(rng) for _ in range(rng.randint(3, 7)))
        paragraphs.append(paragraph)
        size += len(paragraph) + 2
    return "\n\n".join(paragraphs)[:chars]


def median_of(runs: int, work: Callable[[], Any]) -> float:
    """The median wall time of `runs` runs of `work`, in seconds."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def quotes_for(rng: random.Random, texts: list[str], count: int) -> list[tuple[int, str]]:
    """80 % exact quotes, 10 % paraphrases (a word changed), 10 % invented sentences."""
    quotes = []
    for _ in range(count):
        index = rng.randrange(len(texts))
        text = texts[index]
        start = rng.randrange(0, len(text) - 120)
        exact = text[start : start + rng.randint(30, 110)]
        roll = rng.random()
        if roll < 0.8:
            quotes.append((index, exact))
        elif roll < 0.9:
            quotes.append((index, exact.replace(" the ", " a ", 1) + " indeed"))
        else:
            quotes.append((index, sentence(rng).replace("says", "claims")))
    return quotes


def bench_validation(rng: random.Random) -> list[Figure]:
    texts = [document(rng, 8_000) for _ in range(1_000)]
    quotes = quotes_for(rng, texts, 100_000)
    exact = [(i, q) for i, q in quotes if q in texts[i]]
    refused = [(i, q) for i, q in quotes if q not in texts[i]]

    def run(batch: list[tuple[int, str]]) -> Callable[[], None]:
        def validate_all() -> None:
            for index, quote in batch:
                validate_quote(texts[index], quote)

        return validate_all

    figures = []
    for label, batch in (("all", quotes), ("exact only", exact), ("refused only", refused)):
        seconds = median_of(3, run(batch))
        figures.append(Figure(
            f"validate quotes against 1,000 sources of 8,000 chars: {label}", len(batch) / seconds, "quotes/s",
            f"{len(batch):,} quotes, median of 3: {seconds:.2f} s" + (
                "; 80 % exact, 20 % refused (a near-miss hint is searched for each refusal)" if label == "all" else ""),
        ))  # fmt: skip
    return figures


INGEST_BATCHES = (100, 500)


def bench_ingest(rng: random.Random, workspace: Workspace, actor: Any, count: int) -> list[Figure]:
    """The same `count` texts ingested one source at a time (source_add: one graph query and one audit row
    each), then in batches of 100 and of 500 (sources_add: what POST …/sources:batch runs, one graph query
    and one audit INSERT a batch), all durable (`appendfsync always`, PostgreSQL commits synchronous)."""
    texts = [document(rng, rng.randint(1_500, 3_000)) for _ in range(count)]
    figures = []
    for size in (1, *INGEST_BATCHES):
        nodes_before = _node_count(workspace)
        slowest = 0.0
        started = time.perf_counter()
        for first in range(0, count, size):
            batch_started = time.perf_counter()
            if size == 1:
                sources_services.source_add(
                    workspace=workspace, title=f"Bench source {first}", text=texts[first], actor=actor
                )
            else:
                batch = [
                    {"title": f"Bench source {n} of {size}", "text": texts[n]}
                    for n in range(first, min(first + size, count))
                ]
                sources_services.sources_add(workspace=workspace, sources=batch, actor=actor)
            slowest = max(slowest, time.perf_counter() - batch_started)
        seconds = time.perf_counter() - started
        nodes = _node_count(workspace) - nodes_before
        label = "one by one" if size == 1 else f"batches of {size}"
        how = (
            "one atomic graph query, then its audit row (one PostgreSQL round-trip)"
            if size == 1
            else (f"one atomic graph query, then one audit INSERT, a batch; the slowest batch {slowest * 1000:.0f} ms")
        )
        figures += [
            Figure(f"ingest {count:,} sources (1,500–3,000 chars) into one workspace, {label}", count / seconds,
                   "sources/s", f"{seconds:.1f} s in all, {how}"),
            Figure("  graph nodes written while ingesting", nodes / seconds, "nodes/s",
                   f"{nodes:,} nodes (source, version, fragments)"),
        ]  # fmt: skip
    return figures


def bench_source_page(rng: random.Random, workspace: Workspace, actor: Any, client: Client) -> list[Figure]:
    text = document(rng, 1_000_000)
    source = sources_services.source_add(workspace=workspace, title="One megabyte", text=text, actor=actor)
    version = sources_graph.source_get(workspace=workspace, source_id=source.id)
    assert version is not None
    rows = []
    for _ in range(5_000):
        start = rng.randrange(0, len(text) - 200)
        end = start + rng.randint(20, 180)
        statement = f"Claim about {text[start:end][:40]}"
        rows.append({
            "key": claims_services.claim_key(version_id=version.id, start=start, end=end, statement=statement),
            "id": str(uuid.uuid4()), "statement": statement, "evidence_quote": text[start:end], "start": start,
            "end": end, "confidence": None, "confidence_kind": ConfidenceKind.MANUAL, "extractor": "bench",
        })  # fmt: skip
    claims_graph.claims_record(
        workspace=workspace, version_id=version.id, claims=rows, rejected=[], created_by="bench",
        now=now_iso(), write_id=str(uuid.uuid4()),
    )  # fmt: skip
    url = f"/w/{workspace.id}/sources/{source.id}/"
    first = client.get(url)
    assert first.status_code == 200 and first.content.count(b'<mark class="ev') >= 5_000
    seconds = median_of(5, lambda: client.get(url))
    size = len(first.content) / 1e6
    return [Figure("render the source page of a 1 MB source with 5,000 highlights", seconds * 1000, "ms",
                   f"median of 5 full requests (graph reads + highlighting + template), page {size:.1f} MB")]  # fmt: skip


def _node_count(workspace: Workspace) -> int:
    return workspace_graph.node_total(workspace=workspace)


# -- search: lexical, semantic and hybrid at scale (`make bench-search`) ----------------------------

# Queries per mode (and per workspace); fewer where one search scans a million claims.
SEARCH_SAMPLES = int(os.environ.get("AFTERHACK_BENCH_SEARCH_SAMPLES", "30"))
SEARCH_BATCH = 2_000
BENCH_MODEL = "bench-synthetic"


# Words of a topic, drawn as words of real text are: a few common, most rare (the r-th commonest about 1/r as
# often, Zipf). The bench WORDS are 35, so each is in a fifth of all claims, as common as a stop word.
TOPIC_WORDS = 5_000


def topic_words() -> list[str]:
    """TOPIC_WORDS made-up words of three syllables ("kalomi"), the same every run."""
    letters = random.Random(7)
    made: dict[str, None] = {}
    while len(made) < TOPIC_WORDS:
        made["".join(letters.choice("bdfgklmnprstvz") + letters.choice("aeiou") for _ in range(3))] = None
    return list(made)


TOPICS = topic_words()


def search_sentence(rng: random.Random) -> str:
    """A bench sentence about two topic words, commoner ones more often ("…, about kalomi vebasu.")."""
    first, second = (TOPICS[int(TOPIC_WORDS ** rng.random()) - 1] for _ in range(2))
    return f"{sentence(rng)[:-1]}, about {first} {second}."


def search_queries(rng: random.Random, statements: list[str]) -> tuple[list[str], list[str], list[str]]:
    """Two-word queries: phrases cut from stored statements (found as written) of common words ("budget
    board") and of topic words ("kalomi vebasu"); and a name with a word, which no statement has side by side
    (the name is followed by "says"), so they need the fallback."""
    common = [" ".join(rng.choice(statements).split()[3:5]) for _ in range(SEARCH_SAMPLES)]
    topical = [" ".join(rng.choice(statements).split()[-2:]).rstrip(".") for _ in range(SEARCH_SAMPLES)]
    words = [f"{rng.choice(NAMES)} {rng.choice(WORDS)}" for _ in range(SEARCH_SAMPLES)]
    return common, topical, words


def grow_claims(rng: random.Random, workspace: Workspace, size: int, dimension: int) -> tuple[list[str], float]:
    """Adds `size` claims (5 % superseded) with random vectors under the vector index (none when `dimension` is
    0); returns some statements (to search for) and the seconds it took, index upkeep included."""
    if dimension:
        embeddings_graph.embedding_index_ensure(workspace=workspace, dimension=dimension)
    samples: list[str] = []
    started = time.perf_counter()
    for first in range(0, size, SEARCH_BATCH):
        rows = [
            {
                "id": str(uuid.uuid4()),
                "statement": search_sentence(rng),
                "status": "superseded" if rng.random() < 0.05 else "current",
            }
            for _ in range(min(SEARCH_BATCH, size - first))
        ]
        bench_graph.bench_claims_create(
            workspace=workspace, rows=rows, model=BENCH_MODEL, dimension=dimension, now=now_iso()
        )
        samples += [row["statement"] for row in rows[:20]]
    return samples, time.perf_counter() - started


def timed_searches(
    workspace: Workspace,
    queries: list[str],
    vectors: dict[str, list[float]],
    mode: SearchMode,
    fell_back: bool | None = None,
) -> list[float]:
    """Seconds per search: one page of the API's search (`claim_search_page`, 50 claims, up to 1,000 ranked).
    The query's embedding is a precomputed synthetic vector handed over in-process: not part of the time. With
    `fell_back`, every search must (or must not) have fallen back to the content words, and found claims."""
    times = []
    for query in queries:
        started = time.perf_counter()
        with synthetic_embeddings(vectors):
            page = search_selectors.claim_search_page(
                workspace=workspace, query=query, limit=50, cursor=None, mode=mode
            )
        times.append(time.perf_counter() - started)
        if page.degraded or page.mode != mode:
            raise RuntimeError(f"The {mode} search answered {page.mode} (degraded): the figures would be wrong.")
        if fell_back is not None and (page.fell_back != fell_back or not page.claims.items):
            found = len(page.claims.items)
            raise RuntimeError(f"{query!r}: fell back {page.fell_back} (not {fell_back}), {found} found: a wrong kind.")
    return times


@contextmanager
def synthetic_embeddings(vectors: dict[str, list[float]]) -> Iterator[None]:
    """The embeddings model replaced by a lookup of precomputed vectors (the benchmark times the search only)."""
    real = llm.embed
    llm.embed = lambda texts: [vectors[text] for text in texts]
    try:
        with override_settings(AFTERHACK_EMBEDDING_MODEL=BENCH_MODEL):
            yield
    finally:
        llm.embed = real


def bench_search(rng: random.Random, user: Any, sizes: list[int], dimensions: list[int]) -> list[Figure]:
    figures = []
    for dimension in dimensions:
        for size in sizes:
            workspace = workspace_services.workspace_create(name=f"Bench search {size} x {dimension}", creator=user)
            try:
                before = bench_graph.server_memory_mb()
                samples, seconds = grow_claims(rng, workspace, size, dimension)
                grown = bench_graph.server_memory_mb() - before
                graph_mb = bench_graph.graph_memory_mb(workspace=workspace)
                label = f"{size:,} claims x {dimension} dims" if dimension else f"{size:,} claims, no vectors"
                upkeep = "vector and fulltext indexes" if dimension else "fulltext index"
                figures.append(Figure(
                    f"{label}: load", size / seconds, "claims/s",
                    f"{seconds:.0f} s for all, {upkeep} kept up as they are written; server memory +{grown:,.0f} MB"
                    + (f" (the graph itself reports {graph_mb:,.0f} MB)" if graph_mb is not None else ""),
                ))  # fmt: skip
                common, topical, fallbacks = search_queries(rng, samples)
                queries = common + fallbacks
                vectors = {q: [rng.uniform(-0.5, 0.5) for _ in range(dimension)] for q in queries}
                runs: list[tuple[str, SearchMode, list[str], bool | None, str]] = [
                    ("lexical search", SearchMode.LEXICAL, common, False, "two common words side by side"),
                    ("lexical search, topic words", SearchMode.LEXICAL, topical, False, "two Zipf-drawn words"),
                    ("lexical fallback", SearchMode.LEXICAL, fallbacks, True, "two words never side by side"),
                ]
                if dimension:
                    runs += [
                        (f"{mode} search", mode, queries, None, "both kinds")
                        for mode in (SearchMode.SEMANTIC, SearchMode.HYBRID)
                    ]
                for name, mode, asked, fell_back, kind in runs:
                    timed_searches(workspace, asked[:3], vectors, mode)  # warm up
                    p50, p95 = percentiles(timed_searches(workspace, asked, vectors, mode, fell_back))
                    figures.append(
                        Figure(
                            f"{label}: {name}",
                            p50,
                            "ms p50",
                            f"p95 {p95:.1f} ms; {len(asked)} queries ({kind}), first page of 50",
                        )
                    )
            finally:
                graph.graph_delete(workspace)
    return figures


def percentiles(values: list[float]) -> tuple[float, float]:
    """p50 and p95 of the values (seconds), in ms."""
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered) * 1000, p95 * 1000
