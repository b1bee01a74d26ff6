"""Benchmark of the contradiction watch (`make bench BENCH_ARGS="--only watch"`, not in the default run: it loads
100,000 claims, each worded as people word a fact, claim by claim): what watching one new claim costs (its candidates
from the search, and the offline rule on each) in a workspace of that many claims, with the watch's cache of
analyses warm and emptied before each claim; and how many model calls the model path makes per 1,000 new claims
(against the scripted local model, which answers at once: the calls are counted, not the model's time)."""

from __future__ import annotations

import dataclasses
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
from benchmarks.llm_server import ScriptedLLM, empty_answer
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
NUMBER_WORDS = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty".split()  # fmt: skip
# How one fact is worded, drawn claim by claim (every wording here is one the rule reads as the same fact): the
# subject, the verb, and how the value is written.
SUBJECTS = ["The {project} {attribute}", "{project}'s {attribute}", "The {project} project {attribute}",
            "Our {project} {attribute}"]  # fmt: skip
VERBS = {
    "date": ["is on", "is set for", "is planned for", "is scheduled for", "is expected on", "happens on",
             "is tentatively set for", "is currently planned for", "is now on", "is still on"],
    "money": ["is", "is set at", "is still", "is now", "is currently"],
    "count": ["has", "now has", "currently has", "still has", "officially has"],
    "name": ["is", "is now", "is currently", "is still", "is officially"],
    "state": ["is", "is now", "is still", "is officially", "is currently"],
}  # fmt: skip
DATES = ["{month} {day}", "{day} {month}", "{month} {nth}", "the {nth} of {month}", "{day} {month} 2027",
         "2027-{number:02d}-{day:02d}"]  # fmt: skip
AMOUNTS = ["{amount:,} EUR", "EUR {amount:,}", "€{amount:,}", "{k}k EUR", "EUR {k}k", "€{k}k", "{amount:,} euros",
           "{k} thousand euros", "{spaced} EUR"]  # fmt: skip
# One statement in five about an attribute comes with a lead-in (which the rule, on purpose, does not read through:
# such a pair is left undecided, for the model); one in five of all merely mentions an attribute.
LEAD_INS = ["Update: ", "FYI, ", "Reminder: ", "{who} confirmed that ", "Per {who}, ", "As agreed with {who}, ",
            "{who} wrote that "]  # fmt: skip
FILLER = [
    "{who} asked for an update on the {project} {attribute} before the next steering meeting.",
    "The notes from {month} mention the {project} {attribute} twice.",
    "{who} will share the {project} {attribute} slides with the customer team.",
    "{who} and {other} discussed the {project} {attribute} on {month} {day}.",
    "Please send questions about the {project} {attribute} to {who}.",
]
About = tuple[str, str, str]


def project(rng: random.Random) -> str:
    """A project's name: a made-up word drawn as words of real text are (a few common, most rare)."""
    return TOPICS[int(len(TOPICS) ** rng.random()) - 1].capitalize()


def about_anything(rng: random.Random) -> About:
    kind = rng.choice(list(ATTRIBUTES))
    return kind, project(rng), rng.choice(ATTRIBUTES[kind])


def nth(day: int) -> str:
    return f"{day}{'th' if 10 < day < 14 else {1: 'st', 2: 'nd', 3: 'rd'}.get(day % 10, 'th')}"


def written(rng: random.Random, kind: str, value: random.Random) -> str:
    """The attribute's value (drawn from `value`: the same every time for one fact), written one of the ways
    people write it (drawn from `rng`, claim by claim)."""
    if kind == "date":
        number, day = value.randint(1, 12), value.randint(1, 28)
        return rng.choice(DATES).format(month=MONTHS[number - 1], day=day, nth=nth(day), number=number)
    if kind == "money":
        k = value.randint(5, 90)
        return rng.choice(AMOUNTS).format(amount=k * 1000, k=k, spaced=f"{k} 000")
    if kind == "count":
        count, unit = value.randint(2, 60), value.choice(UNITS)
        return f"{NUMBER_WORDS[count] if count < len(NUMBER_WORDS) and rng.random() < 0.5 else count} {unit}"
    return value.choice(NAMES + PLACES if kind == "name" else STATES)


def statement(rng: random.Random, about: About | None = None, changed: bool = False) -> tuple[str, About]:
    """A workplace statement and what it is about: a project's attribute with its value (a date, an amount, a count,
    a name, a state: the same value every time the attribute is stated, as in a memory that holds together, unless
    `changed`), worded and written claim by claim (`SUBJECTS`, `VERBS`, `DATES`, `AMOUNTS`, a lead-in one time in
    five), or, one time in five when `about` is not given, one that merely mentions it."""
    mention = about is None and rng.random() < 0.2
    kind, name, attribute = about or about_anything(rng)
    if mention:
        who, other = rng.sample(NAMES, 2)
        text = rng.choice(FILLER).format(who=who, other=other, project=name, attribute=attribute,
                                         month=rng.choice(MONTHS), day=rng.randint(1, 28))  # fmt: skip
        return text, (kind, name, attribute)
    value = rng if changed else random.Random(zlib.crc32(f"{kind} {name} {attribute}".encode()))
    subject = rng.choice(SUBJECTS).format(project=name, attribute=attribute)
    text = f"{subject} {rng.choice(VERBS[kind])} {written(rng, kind, value)}."
    if rng.random() < 0.2:
        lead = rng.choice(LEAD_INS).format(who=rng.choice(NAMES))
        text = lead + (text[0].lower() + text[1:] if text.startswith(("The ", "Our ")) else text)
    return text, (kind, name, attribute)


def grow(rng: random.Random, workspace: Any, size: int) -> tuple[list[About], int]:
    """Adds `size` current claims in bulk (the fulltext index kept up as they are written); returns what each is
    about, and how many distinct statements they are."""
    abouts: list[About] = []
    distinct: set[str] = set()
    for first in range(0, size, BATCH):
        drawn = [statement(rng) for _ in range(min(BATCH, size - first))]
        rows = [{"id": str(uuid.uuid4()), "statement": text, "status": "current"} for text, _ in drawn]
        bench_graph.bench_claims_create(workspace=workspace, rows=rows, model="", dimension=0, now=now_iso())
        abouts += [about for _, about in drawn]
        distinct.update(text for text, _ in drawn)
    return abouts, len(distinct)


def new_claims(rng: random.Random, workspace: Any, existing: list[About], count: int) -> list[str]:
    """`count` new claims: half about an attribute a stored claim is about (one in five of those with another
    value: a contradiction), half about anything. Added to the graph, not yet watched; their ids."""
    texts = []
    for _ in range(count):
        about = rng.choice(existing) if rng.random() < 0.5 else None
        texts.append(statement(rng, about, changed=about is not None and rng.random() < 0.2)[0])
    rows = [{"id": str(uuid.uuid4()), "statement": text, "status": "current"} for text in texts]
    bench_graph.bench_claims_create(workspace=workspace, rows=rows, model="", dimension=0, now=now_iso())
    return [row["id"] for row in rows]


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def bench_watch(user: Any, size: int = 100_000, watched: int = 100) -> list[Figure]:
    """The watch's cost per new claim (candidates + rule, no model) at `size` claims, with the watch's cache of
    analyses as it is after the claims before (warm) and emptied before each claim (cold: every statement analysed);
    then the model path's calls per 1,000 new claims, each claim watched on its own (a claim added) and all in one
    run (an extraction)."""
    rng = random.Random(20261201)
    workspace = workspace_services.workspace_create(name=f"Bench watch {size}", creator=user)
    figures = []
    try:
        started = time.perf_counter()
        existing, distinct = grow(rng, workspace, size)
        loaded = time.perf_counter() - started
        ids = new_claims(rng, workspace, existing, watched)
        cold_ids = new_claims(rng, workspace, existing, watched)
        warm = new_claims(rng, workspace, existing, 10)
        with override_settings(AFTERHACK_LLM_MODEL="", AFTERHACK_EMBEDDING_MODEL=""):
            for claim_id in warm:
                watch_services.claim_watch(workspace=workspace, claim_id=claim_id)
            for cold, claims in ((False, ids), (True, cold_ids)):
                figures.append(watch_times(workspace, claims, cold=cold, size=size))
        figures[0] = dataclasses.replace(
            figures[0], detail=f"{figures[0].detail}; {size:,} claims ({distinct:,} distinct statements) loaded in "
            f"{loaded:.0f} s",
        )  # fmt: skip
        figures += model_calls(rng, workspace, existing, watched)
    finally:
        graph.graph_delete(workspace)
    return figures


def watch_times(workspace: Any, ids: list[str], *, cold: bool, size: int) -> Figure:
    """`claim_watch` timed on each of these claims: with the watch's cache of analyses as the claims before left it,
    or (`cold`) emptied before each claim, so that the claim's own statement and every candidate's are analysed."""
    times, found, hits, misses = [], 0, 0, 0
    cache = watch_services.analysed
    for claim_id in ids:
        report = watch_services.WatchReport()
        if cold:
            cache.cache_clear()
        before = cache.cache_info()
        start = time.perf_counter()
        watch_services.claim_watch(workspace=workspace, claim_id=claim_id, report=report)
        times.append(time.perf_counter() - start)
        after = cache.cache_info()
        found, hits, misses = (
            found + report.by_rule,
            hits + after.hits - before.hits,
            misses + after.misses - before.misses,
        )
    p50, p90 = statistics.median(times) * 1000, percentile(times, 90) * 1000
    return Figure(
        f"watch one new claim at {size:,} claims" + (", analyses not cached" if cold else ""), p50, "ms p50",
        f"p90 {p90:.1f} ms; {len(ids)} new claims (candidates from the search, the offline rule on each; no model); "
        f"{found} suggestions by the rule; {hits + misses:,} analyses asked for, {hits / max(1, hits + misses):.0%} "
        "found in the cache" + (" (emptied before each claim)" if cold else ""),
    )  # fmt: skip


def model_calls(rng: random.Random, workspace: Any, existing: list[About], count: int) -> list[Figure]:
    """Calls to the (scripted) model per 1,000 new claims: each claim in a watch run of its own, then all `count`
    in one run."""
    server = ScriptedLLM()
    server.script(empty_answer)
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
