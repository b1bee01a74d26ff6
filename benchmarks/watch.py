"""Benchmark of the contradiction watch (`make bench BENCH_ARGS="--only watch"`, not in the default run: it loads
100,000 claims): what watching one new claim costs (its candidates from the search, and the offline rule on each)
in a workspace of that many claims, and how many model calls the model path makes per 1,000 new claims (against the
scripted local model, which answers at once: the calls are counted, not the model's time)."""

from __future__ import annotations

import random
import statistics
import time
import uuid
import zlib
from typing import Any

from django.test import override_settings

from afterhack import graph
from afterhack.clock import now_iso
from benchmarks import claims_graph as bench_graph
from benchmarks.claims import TOPICS, Figure
from benchmarks.llm_server import ScriptedLLM, json_reply
from corrections.services import watch as watch_services
from workspaces.services import workspaces as workspace_services

BATCH = 2_000
# What a workplace statement is about, and the values each kind of attribute takes.
ATTRIBUTES = {
    "date": ["launch", "kickoff", "deadline", "review", "release", "go-live", "board meeting", "audit", "pilot end"],
    "money": ["budget", "price", "quote", "licence cost", "travel budget", "marketing spend"],
    "count": ["team", "office", "event", "training"],
    "name": ["venue", "owner", "payment provider", "supplier", "project lead", "region", "hosting provider"],
    "state": ["contract", "budget request", "hiring plan", "vendor review", "security review"],
}
MONTHS = "January February March April May June July August September October November December".split()
NAMES = ["Ana Costa", "Priya Nair", "Tom Berg", "Lena Vogel", "Kwame Mensah", "Mei Lin", "Omar Haddad", "Sofia Ruiz"]
PLACES = ["Hall B", "Hall C", "Lisbon", "Berlin", "eu-west-1", "Stripe", "Adyen", "Acme", "Globex", "Room 4"]
UNITS = ["engineers", "seats", "people", "laptops"]
STATES = ["approved", "not approved", "signed", "on hold", "rejected", "complete"]
FILLER = [
    "{who} asked for an update on the {project} {attribute} before the next steering meeting.",
    "The notes from {month} mention the {project} {attribute} twice.",
    "{who} will share the {project} {attribute} slides with the customer team.",
]


def project(rng: random.Random) -> str:
    """A project's name: a made-up word drawn as words of real text are (a few common, most rare)."""
    return TOPICS[int(len(TOPICS) ** rng.random()) - 1].capitalize()


def statement(rng: random.Random, about: tuple[str, str, str] | None = None, changed: bool = False) -> str:
    """A workplace statement: about a project's attribute with its value (a date, an amount, a count, a name, a
    state: the same value every time the attribute is stated, as in a memory that holds together, unless
    `changed`), or, one time in five, one that merely mentions it."""
    kind, name, attribute = about or (lambda k: (k, project(rng), rng.choice(ATTRIBUTES[k])))(
        rng.choice(list(ATTRIBUTES))
    )
    if about is None and rng.random() < 0.2:
        return rng.choice(FILLER).format(
            who=rng.choice(NAMES), project=name, attribute=attribute, month=rng.choice(MONTHS)
        )
    value = rng if changed else random.Random(zlib.crc32(f"{kind} {name} {attribute}".encode()))
    subject = f"The {name} {attribute}"
    if kind == "date":
        return f"{subject} is on {value.choice(MONTHS)} {value.randint(1, 28)}."
    if kind == "money":
        return f"{subject} is {value.randint(5, 90) * 1000:,} EUR."
    if kind == "count":
        return f"{subject} has {value.randint(2, 60)} {value.choice(UNITS)}."
    if kind == "name":
        return f"{subject} is {value.choice(NAMES + PLACES)}."
    return f"{subject} is {value.choice(STATES)}."


def subject_of(text: str) -> tuple[str, str, str] | None:
    """(kind, project, attribute) of a statement `statement` made about a project's attribute."""
    for kind, attributes in ATTRIBUTES.items():
        for attribute in sorted(attributes, key=len, reverse=True):
            marker = f" {attribute} "
            if text.startswith("The ") and marker in text:
                name = text[4 : text.index(marker)]
                if " " not in name:
                    return kind, name, attribute
    return None


def grow(rng: random.Random, workspace: Any, size: int) -> list[str]:
    """Adds `size` current claims in bulk (the fulltext index kept up as they are written); returns their
    statements."""
    statements: list[str] = []
    for first in range(0, size, BATCH):
        rows = [{"id": str(uuid.uuid4()), "statement": statement(rng), "status": "current"}
                for _ in range(min(BATCH, size - first))]  # fmt: skip
        bench_graph.bench_claims_create(workspace=workspace, rows=rows, model="", dimension=0, now=now_iso())
        statements += [row["statement"] for row in rows]
    return statements


def new_claims(rng: random.Random, workspace: Any, existing: list[str], count: int) -> list[str]:
    """`count` new claims: half about an attribute a stored claim is about (one in five of those with another
    value: a contradiction), half about anything. Added to the graph, not yet watched; their ids."""
    texts = []
    for _ in range(count):
        about = subject_of(rng.choice(existing)) if rng.random() < 0.5 else None
        texts.append(statement(rng, about, changed=about is not None and rng.random() < 0.2))
    rows = [{"id": str(uuid.uuid4()), "statement": text, "status": "current"} for text in texts]
    bench_graph.bench_claims_create(workspace=workspace, rows=rows, model="", dimension=0, now=now_iso())
    return [row["id"] for row in rows]


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def bench_watch(user: Any, size: int = 100_000, watched: int = 100) -> list[Figure]:
    """The watch's cost per new claim (candidates + rule, no model) at `size` claims; then the model path's calls
    per 1,000 new claims, each claim watched on its own (a claim added) and all in one run (an extraction)."""
    rng = random.Random(20261201)
    workspace = workspace_services.workspace_create(name=f"Bench watch {size}", creator=user)
    figures = []
    try:
        started = time.perf_counter()
        existing = grow(rng, workspace, size)
        loaded = time.perf_counter() - started
        ids = new_claims(rng, workspace, existing, watched)
        warm = new_claims(rng, workspace, existing, 10)
        with override_settings(AFTERHACK_LLM_MODEL="", AFTERHACK_EMBEDDING_MODEL=""):
            for claim_id in warm:
                watch_services.claim_watch(workspace=workspace, claim_id=claim_id)
            times, found, undecided = [], 0, 0
            for claim_id in ids:
                report = watch_services.WatchReport()
                start = time.perf_counter()
                pending = watch_services.claim_watch(workspace=workspace, claim_id=claim_id, report=report)
                times.append(time.perf_counter() - start)
                found, undecided = found + report.by_rule, undecided + len(pending)
        p50, p90 = statistics.median(times) * 1000, percentile(times, 90) * 1000
        figures.append(Figure(
            f"watch one new claim at {size:,} claims", p50, "ms p50",
            f"p90 {p90:.1f} ms; {watched} new claims (candidates from the search, the offline rule on each; no model); "
            f"{found} suggestions by the rule; {size:,} claims loaded in {loaded:.0f} s",
        ))  # fmt: skip
        figures += model_calls(rng, workspace, existing, watched)
    finally:
        graph.graph_delete(workspace)
    return figures


def model_calls(rng: random.Random, workspace: Any, existing: list[str], count: int) -> list[Figure]:
    """Calls to the (scripted) model per 1,000 new claims: each claim in a watch run of its own, then all `count`
    in one run."""
    server = ScriptedLLM()
    server.script(json_reply({"verdicts": []}))
    figures = []
    try:
        with override_settings(
            OPENAI_BASE_URL=server.url, OPENAI_API_KEY="bench", AFTERHACK_LLM_MODEL="bench-scripted",
            AFTERHACK_EMBEDDING_MODEL="",
        ):  # fmt: skip
            for runs in ("one claim a run", f"{count} claims in one run"):
                ids = new_claims(rng, workspace, existing, count)
                before = len(server.requests)
                reports = (
                    [watch_services.watch(workspace=workspace, claim_ids=[claim_id]) for claim_id in ids]
                    if runs == "one claim a run"
                    else [watch_services.watch(workspace=workspace, claim_ids=ids)]
                )
                calls = len(server.requests) - before
                pairs = sum(report.model_pairs for report in reports)
                tokens = sum(report.prompt_tokens + report.completion_tokens for report in reports)
                figures.append(Figure(
                    f"watch with a model, {runs}: model calls per 1,000 new claims", calls * 1000 / count, "calls",
                    f"{pairs * 1000 / count:,.0f} pairs the rule left undecided sent per 1,000 (at most "
                    f"{watch_services.MODEL_PAIRS_PER_CLAIM} a claim, {calls} calls for {count} claims; "
                    f"{tokens:,} tokens as the scripted model counts them)",
                ))  # fmt: skip
    finally:
        server.close()
    return figures
