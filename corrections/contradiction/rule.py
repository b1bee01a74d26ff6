"""STAND-IN until i25-rule merges: the offline rule's interface (`judge`, `Judgement`, `Outcome`, `Kind`) with a
trivial rule, so the watch can be written and tested against it: two statements that are the same but for one
month name contradict each other (a date); anything else is undecided. The coordinator replaces this file."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum


class Outcome(StrEnum):
    CONTRADICTS = "contradicts"
    AGREES = "agrees"
    UNDECIDED = "undecided"


class Kind(StrEnum):
    DATE = "date"
    NUMBER = "number"
    NAMED_VALUE = "named_value"
    NEGATION = "negation"


@dataclass(frozen=True)
class Judgement:
    outcome: Outcome
    kind: Kind | None
    reason: str


MONTHS = frozenset("january february march april may june july august september october november december".split())
WORD = re.compile(r"\w+")


def judge(a: str, b: str) -> Judgement:
    """Contradicts (a date) when the two statements differ in exactly one word and both are month names."""
    left, right = WORD.findall(a.casefold()), WORD.findall(b.casefold())
    if left == right:
        return Judgement(Outcome.AGREES, None, "Both statements say the same.")
    if len(left) == len(right):
        differ = [(x, y) for x, y in zip(left, right, strict=True) if x != y]
        if len(differ) == 1 and differ[0][0] in MONTHS and differ[0][1] in MONTHS:
            x, y = differ[0]
            return Judgement(Outcome.CONTRADICTS, Kind.DATE, f"One says {x.title()} where the other says {y.title()}.")
    return Judgement(Outcome.UNDECIDED, None, "The rule cannot tell.")
