"""Benchmarks of the claims app (run by `make bench`): quote validation, ingest, the source page."""

from __future__ import annotations

import random
import statistics
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.test import Client

from afterhack.clock import now_iso
from claims import graph as claims_graph
from claims import services
from claims.evidence import validate_quote
from claims.statuses import ConfidenceKind
from workspaces import graph as workspace_graph
from workspaces.models import Workspace

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


def bench_ingest(rng: random.Random, workspace: Workspace, actor: Any, count: int) -> list[Figure]:
    texts = [document(rng, rng.randint(1_500, 3_000)) for _ in range(count)]
    nodes_before = _node_count(workspace)
    started = time.perf_counter()
    for number, text in enumerate(texts):
        services.source_add(workspace=workspace, title=f"Bench source {number}", text=text, actor=actor)
    seconds = time.perf_counter() - started
    nodes = _node_count(workspace) - nodes_before
    return [
        Figure(f"ingest {count:,} sources (1,500–3,000 chars) into one workspace", count / seconds, "sources/s",
               f"{seconds:.1f} s in all, one atomic graph query and one audit row each"),
        Figure("  graph nodes written while ingesting", nodes / seconds, "nodes/s", f"{nodes:,} nodes (source, version, fragments)"),
    ]  # fmt: skip


def bench_source_page(rng: random.Random, workspace: Workspace, actor: Any, client: Client) -> list[Figure]:
    text = document(rng, 1_000_000)
    source = services.source_add(workspace=workspace, title="One megabyte", text=text, actor=actor)
    version = claims_graph.source_get(workspace=workspace, source_id=source.id)
    assert version is not None
    rows = []
    for _ in range(5_000):
        start = rng.randrange(0, len(text) - 200)
        end = start + rng.randint(20, 180)
        statement = f"Claim about {text[start:end][:40]}"
        rows.append({
            "key": services.claim_key(version_id=version.id, start=start, end=end, statement=statement),
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
