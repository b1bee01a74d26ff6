"""The judgement: do two statements contradict each other, agree, or can the rule not tell?

Two statements contradict when they have the same frame (the same content words, each value replaced by its type)
and say a different value in it: a different date, number or name (`Kind.DATE`, `Kind.NUMBER`,
`Kind.NAMED_VALUE`), or when one is the other negated (`Kind.NEGATION`). It refuses on purpose, and says
`undecided`: statements that only share words or a topic (their frames differ), the same value written differently
(it compares equal), a differing date beside another value that is the same ("grew 10% in June" / "grew 10% in
July": the date says which fact, not what it is), two values differing at once (two facts), a differing period of
a measure that moves ("sales grew in June" / "in July"), hedged or conditional statements (if, may, might, could,
a question), and a frame with no subject word left ("it is in June").

Use: `judge(a, b)`; or, to compare one statement with many, `analyse` each statement once and call
`judge_analysed(x, y)` (a few microseconds)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from corrections.contradiction.frames import OPENERS, Analysis, analyse
from corrections.contradiction.values import Comparison, Value, ValueType, compare


class Outcome(StrEnum):
    CONTRADICTS = "contradicts"
    AGREES = "agrees"
    UNDECIDED = "undecided"


class Kind(StrEnum):
    """What differs in a contradiction."""

    DATE = "date"
    NUMBER = "number"
    NAMED_VALUE = "named_value"
    NEGATION = "negation"


@dataclass(frozen=True, slots=True)
class Judgement:
    """The outcome; for a contradiction its kind and the two values as written (`first` from the first statement,
    `second` from the second; for a negation, the two statements); and a one-sentence reason a reviewer reads."""

    outcome: Outcome
    reason: str
    kind: Kind | None = None
    first: str = ""
    second: str = ""


KINDS = {
    ValueType.DATE: Kind.DATE,
    ValueType.NAME: Kind.NAMED_VALUE,
    ValueType.NUMBER: Kind.NUMBER,
    ValueType.PERCENT: Kind.NUMBER,
    ValueType.QUANTITY: Kind.NUMBER,
    ValueType.DURATION: Kind.NUMBER,
}
HEDGED = "One of them is hedged or conditional, so it does not state a value to contradict."
UNRELATED = "They do not say the same thing about the same subject."


def judge(a: str, b: str) -> Judgement:
    """Judges two statements."""
    return judge_analysed(analyse(a), analyse(b))


def judge_analysed(x: Analysis, y: Analysis) -> Judgement:
    """Judges two analysed statements (`analyse`)."""
    if x.hedged or y.hedged:
        return Judgement(Outcome.UNDECIDED, HEDGED)
    if x.frame == y.frame and x.slots and x.content >= 1:
        if not x.negated and not y.negated:
            return judge_values(x, y)
        if x.negated == y.negated:
            return Judgement(Outcome.UNDECIDED, "Both are denials; one may rule out what the other does not.")
    if x.light == y.light and x.content >= 1 and len(x.light) >= 2:
        pairs = compared(x, y)
        if pairs is None or any(outcome not in (Comparison.EQUAL, Comparison.COMPATIBLE) for outcome, *_ in pairs):
            return Judgement(Outcome.UNDECIDED, "One denies something, but not with the same values.")
        if x.polarity != y.polarity:
            # The one without a "not" reads best as what is said ("closed" / "not closed": the first).
            positive = (y if x.negated else x) if x.negated != y.negated else (y if x.polarity else x)
            return Judgement(Outcome.CONTRADICTS, negation_reason(positive), Kind.NEGATION, first=x.text, second=y.text)
        return Judgement(Outcome.AGREES, "They say the same thing.")
    return Judgement(Outcome.UNDECIDED, UNRELATED)


def compared(x: Analysis, y: Analysis) -> list[tuple[Comparison, str, Value, Value]] | None:
    """Each value of x beside the value of y in the same slot, in order, and how they compare; None if the two do
    not have the same slots."""
    if len(x.slots) != len(y.slots):
        return None
    pairs = []
    for (slot_x, values_x), (slot_y, values_y) in zip(x.slots, y.slots, strict=True):
        if slot_x != slot_y or len(values_x) != len(values_y):
            return None
        for a, b in zip(values_x, values_y, strict=True):
            outcome, what = compare(a, b)
            pairs.append((outcome, what, a, b))
    return pairs


def judge_values(x: Analysis, y: Analysis) -> Judgement:
    pairs = compared(x, y)
    if pairs is None:
        return Judgement(Outcome.UNDECIDED, UNRELATED)
    if any(outcome == Comparison.INCOMPARABLE for outcome, *_ in pairs):
        return Judgement(Outcome.UNDECIDED, "Their values cannot be compared (another unit, or too little said).")
    different = [pair for pair in pairs if pair[0] == Comparison.DIFFERENT]
    if not different:
        if all(pair[0] == Comparison.EQUAL for pair in pairs):
            return Judgement(Outcome.AGREES, "They say the same thing, with the same values.")
        return Judgement(Outcome.AGREES, "They say the same thing; one says it more precisely or as a range.")
    if {x.tense, y.tense} == {"past", "present"}:
        return Judgement(Outcome.UNDECIDED, "One says what the value was, the other what it is: it may have changed.")
    if len(different) > 1:
        return Judgement(Outcome.UNDECIDED, "More than one value differs: they are more likely two facts than one.")
    _, what, a, b = different[0]
    if a.type == ValueType.DATE and (len(pairs) > 1 or x.trend or y.trend):
        return Judgement(
            Outcome.UNDECIDED, f"Only the {what[:-1]} differs, which says which period each is about: two facts."
        )
    kind = KINDS[a.type]
    return Judgement(Outcome.CONTRADICTS, value_reason(kind, x, what, a, b), kind, a.text, b.text)


def value_reason(kind: Kind, x: Analysis, what: str, a: Value, b: Value) -> str:
    """ "Both say when the launch is, with different months: June and July."."""
    values = f"with different {what}: {a.text} and {b.text}."
    if kind == Kind.NAMED_VALUE and a.start == 0:
        return f"Both say who {x.text[a.end :].strip().rstrip('.!')}, {values}"
    subject = x.subject
    if subject:
        lead = {Kind.DATE: "Both say when {} is", Kind.NAMED_VALUE: "Both name {}"}.get(kind, "Both give {}")
        return f"{lead.format(subject)}, {values}"
    before = lead_in(x.text[: a.start])
    if kind == Kind.DATE and before:
        return f"Both say when {before}, {values}"
    return f"Both say “{before} …”, {values}" if before else f"Both say the same thing, {values}"


TRAILING = {"in", "on", "at", "for", "to", "by", "of", "is", "are", "was", "were", "be", "been", "has", "have",
            "will", "the", "a", "an", "planned", "scheduled", "set", "moved", "now", "due", "from", "as", "than"}  # fmt: skip


def lead_in(text: str) -> str:
    """The words before a value, without the prepositions and filler that lead to it: "the vendor contract renews"."""
    words = text.split()
    while words and words[-1].lower() in TRAILING:
        words.pop()
    if words and words[0] in OPENERS:
        words[0] = words[0].lower()
    return " ".join(words).rstrip(",;:")


def negation_reason(positive: Analysis) -> str:
    """ "One says the launch budget is approved; the other says it is not so."."""
    text = positive.text.strip().rstrip(".!")
    first, _, rest = text.partition(" ")
    if first in OPENERS:
        return f"One says {first.lower()} {rest}; the other says it is not so."
    return f"One says “{text}”; the other says it is not so."
