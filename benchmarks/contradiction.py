"""Benchmark of the offline contradiction rule (run by `make bench`, group `contradiction`): its precision and
recall per kind on the labelled pairs, and what analysing a statement and judging a pair cost. Pure Python: no
store, a second or two."""

from __future__ import annotations

import json
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.claims import Figure
from corrections.contradiction.frames import Analysis, analyse
from corrections.contradiction.rule import Kind, Outcome, judge_analysed

DATA = Path(__file__).resolve().parents[1] / "tests" / "corrections" / "data"
# Written before the rule; the rule was developed against it.
LABELLED = DATA / "contradiction_pairs.jsonl"
# Written after the first version of the rule and committed before the rule first ran on it (see docs/suggestions.md).
HELD_OUT = DATA / "contradiction_pairs_holdout.jsonl"
CANDIDATES = 50


@dataclass
class Score:
    """How the rule did on labelled pairs: contradictions found right and wrong, and per kind how many of the
    labelled contradictions it found with the right kind."""

    pairs: int = 0
    true_positives: int = 0
    false_positives: list[dict[str, object]] = field(default_factory=list)
    found: dict[str, int] = field(default_factory=dict)
    labelled: dict[str, int] = field(default_factory=dict)

    @property
    def precision(self) -> float:
        predicted = self.true_positives + len(self.false_positives)
        return self.true_positives / predicted if predicted else 1.0

    def recall(self, kind: str | None = None) -> float:
        kinds = [kind] if kind else list(self.labelled)
        labelled = sum(self.labelled.get(k, 0) for k in kinds)
        return sum(self.found.get(k, 0) for k in kinds) / labelled if labelled else 0.0


def load_pairs(path: Path) -> list[dict[str, object]]:
    """The labelled pairs of a JSON Lines file: {"id", "a", "b", "expected", "kind", "why_not"?}."""
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def score(pairs: list[dict[str, object]]) -> Score:
    """Judges every pair and counts: a predicted contradiction is right if the pair is labelled one (whatever the
    kind); recall per kind counts those found with the labelled kind."""
    result = Score(pairs=len(pairs))
    for pair in pairs:
        judgement = judge_analysed(analyse(str(pair["a"])), analyse(str(pair["b"])))
        labelled = pair["expected"] == Outcome.CONTRADICTS
        if labelled:
            kind = str(pair["kind"])
            result.labelled[kind] = result.labelled.get(kind, 0) + 1
            if judgement.outcome == Outcome.CONTRADICTS and judgement.kind == kind:
                result.found[kind] = result.found.get(kind, 0) + 1
        if judgement.outcome == Outcome.CONTRADICTS:
            if labelled:
                result.true_positives += 1
            else:
                result.false_positives.append({**pair, "reason": judgement.reason})
    return result


def timings(pairs: list[dict[str, object]]) -> tuple[float, float, float]:
    """p50 in µs of analysing one statement, of judging one analysed pair, and of judging one new statement
    (analysed once) against 50 analysed candidates."""
    statements = [str(pair[side]) for pair in pairs for side in ("a", "b")]
    analysing = []
    analyses: list[Analysis] = []
    for statement in statements:
        start = time.perf_counter_ns()
        analyses.append(analyse(statement))
        analysing.append(time.perf_counter_ns() - start)
    judging = []
    for x, y in zip(analyses[::2], analyses[1::2], strict=True):
        start = time.perf_counter_ns()
        judge_analysed(x, y)
        judging.append(time.perf_counter_ns() - start)
    per_claim = []
    for i, statement in enumerate(statements[:200]):
        candidates = [analyses[(i + k) % len(analyses)] for k in range(1, CANDIDATES + 1)]
        start = time.perf_counter_ns()
        claim = analyse(statement)
        for candidate in candidates:
            judge_analysed(claim, candidate)
        per_claim.append(time.perf_counter_ns() - start)
    return (
        statistics.median(analysing) / 1000,
        statistics.median(judging) / 1000,
        statistics.median(per_claim) / 1000,
    )


def bench_contradiction() -> list[Figure]:
    """Precision and recall per kind on the labelled and the held-out pairs; the rule's costs."""
    figures = []
    for name, path in (("labelled", LABELLED), ("held-out", HELD_OUT)):
        pairs = load_pairs(path)
        result = score(pairs)
        predicted = result.true_positives + len(result.false_positives)
        figures.append(
            Figure(
                f"contradiction rule, {name} pairs: precision",
                result.precision * 100,
                "%",
                f"{result.true_positives} of {predicted} predicted contradictions right; {len(pairs)} pairs",
            )
        )
        per_kind = ", ".join(
            f"{kind} {result.found.get(kind, 0)}/{result.labelled.get(kind, 0)}" for kind in (k.value for k in Kind)
        )
        figures.append(
            Figure(f"contradiction rule, {name} pairs: recall", result.recall() * 100, "%", f"per kind: {per_kind}")
        )
    analysing, judging, per_claim = timings(load_pairs(LABELLED))
    figures += [
        Figure("contradiction rule: analyse one statement", analysing, "µs p50", "values, frames, names, polarity"),
        Figure("contradiction rule: judge one analysed pair", judging, "µs p50", "judge_analysed"),
        Figure(
            f"contradiction rule: one new statement against {CANDIDATES} candidates",
            per_claim,
            "µs p50",
            "the new statement analysed, the candidates' analyses already made",
        ),
    ]
    return figures
