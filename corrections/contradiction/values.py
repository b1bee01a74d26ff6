"""The values in a statement, each normalised so that two ways of writing one value compare equal: dates ("June 12",
"12 June", "the 12th of June", "2025-06-12", "Q3", "Tuesday", "mid-June", "14:00" = "2pm"), numbers with their
unit (money in any currency form and k/m/bn suffix, "€40k" = "40,000 EUR"; percentages; quantities, "120 seats";
durations, "2 weeks" = "14 days"). Relative words ("next week", "tomorrow", "next Tuesday") are no values. Names
are values too, but only where the sentence makes them one (`frames` decides); they compare here."""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

from corrections.contradiction.dates import DateParts, compare_dates, read_date
from corrections.contradiction.tokens import Token, tokenise


class ValueType(StrEnum):
    """What kind of value: a date (or time), a number (money or a bare number), a percentage, a quantity of some
    unit, a duration, or a name."""

    DATE = "date"
    NUMBER = "number"
    PERCENT = "percent"
    QUANTITY = "quantity"
    DURATION = "duration"
    NAME = "name"


class Comparison(StrEnum):
    """Two values of the same type: the same, consistent (one more precise, or a bound the other meets), different,
    or not comparable (different currencies, a weekday against a date without its year)."""

    EQUAL = "equal"
    COMPATIBLE = "compatible"
    DIFFERENT = "different"
    INCOMPARABLE = "incomparable"


CURRENCY_SYMBOLS = {"€": "EUR", "$": "USD", "£": "GBP", "¥": "JPY"}
CURRENCY_WORDS = {
    "eur": "EUR", "euro": "EUR", "euros": "EUR", "usd": "USD", "dollar": "USD", "dollars": "USD", "gbp": "GBP",
    "pound": "GBP", "pounds": "GBP", "chf": "CHF", "jpy": "JPY", "sek": "SEK", "dkk": "DKK", "nok": "NOK",
}  # fmt: skip
PERCENT_WORDS = {"%": "", "percent": "", "pct": "", "per cent": "", "percentage points": "points", "pp": "points"}
# Durations in seconds (clock time) or in months (calendar time): the two are not compared with each other.
DURATION_UNITS = {
    "ms": ("time", 0.001), "millisecond": ("time", 0.001), "milliseconds": ("time", 0.001),
    "second": ("time", 1), "seconds": ("time", 1), "sec": ("time", 1), "secs": ("time", 1),
    "minute": ("time", 60), "minutes": ("time", 60), "min": ("time", 60), "mins": ("time", 60),
    "hour": ("time", 3600), "hours": ("time", 3600), "hr": ("time", 3600), "hrs": ("time", 3600),
    "day": ("time", 86400), "days": ("time", 86400), "week": ("time", 604800), "weeks": ("time", 604800),
    "month": ("calendar", 1), "months": ("calendar", 1), "year": ("calendar", 12), "years": ("calendar", 12),
}  # fmt: skip
# Words between a number and its unit that are not the unit ("2 more designers"), and words that are never one.
UNIT_SKIP = {"more", "new", "additional", "extra", "other", "full-time", "part-time"}
NOT_UNITS = {
    "a", "an", "the", "and", "or", "but", "of", "in", "on", "at", "for", "to", "from", "by", "with", "per", "as",
    "is", "are", "was", "were", "be", "been", "will", "has", "have", "had", "this", "that", "than", "so", "if",
    "after", "before", "until", "since", "each", "every", "in total", "total", "far", "ago", "later", "earlier",
}  # fmt: skip
# A number right after one of these words is part of a name ("Release 2.4", "Room 4.12", "SOC 2"), not a value.
NAME_NOUNS = {"version", "release", "room", "sprint", "build", "phase", "wave", "gate", "floor", "building", "hall"}
# Words before a value that bound it: (words, what they mean). Longest first.
BOUNDS = [
    (("no", "later", "than"), "by"), (("not", "later", "than"), "by"), (("no", "earlier", "than"), "after"),
    (("not", "before"), "after"), (("no", "more", "than"), "max"), (("not", "more", "than"), "max"),
    (("no", "less", "than"), "min"), (("not", "less", "than"), "min"), (("more", "than"), "min"),
    (("at", "least"), "min"), (("less", "than"), "max"), (("at", "most"), "max"), (("up", "to"), "max"),
    (("fewer", "than"), "max"), (("over",), "min"), (("above",), "min"), (("under",), "max"), (("below",), "max"),
    (("about",), "about"), (("around",), "about"), (("approximately",), "about"), (("roughly",), "about"),
    (("nearly",), "about"), (("almost",), "about"), (("~",), "about"), (("some",), "about"),
    (("before",), "before"), (("after",), "after"), (("by",), "by"), (("until",), "until"), (("till",), "until"),
    (("through",), "until"), (("since",), "since"), (("every",), "every"), (("each",), "every"),
]  # fmt: skip
BOUNDS_BY_LAST: dict[str, list[tuple[tuple[str, ...], str]]] = {}
for _words, _bound in BOUNDS:
    BOUNDS_BY_LAST.setdefault(_words[-1], []).append((_words, _bound))
# "Delayed until July" is "moved to July".
MOVES = {"delayed", "postponed", "pushed", "deferred", "moved", "back", "slipped", "rescheduled"}
# Bounds that say where a number lies rather than what it is: compared as intervals, not part of the frame.
INTERVAL_BOUNDS = {"min", "max", "about"}


@dataclass(frozen=True, slots=True)
class Value:
    """One value found in a statement: its type, the text as written, where it is, and its normalised form:
    `low`/`high` (an interval; equal for an exact number) and `unit` (currency, unit word, "time"/"calendar") for
    numbers, `date` for dates, `name` (lowercased words) for names. `alt` is the other reading of an ambiguous
    number ("5.000"). `bound` is what a word before it made of it ("by" June, "at least" 150): part of the frame for
    dates and deltas, an interval for numbers."""

    type: ValueType
    text: str
    start: int
    end: int
    unit: str = ""
    low: float = 0.0
    high: float = 0.0
    alt: float | None = None
    date: DateParts | None = None
    name: tuple[str, ...] = ()
    bound: str = ""

    @property
    def slot(self) -> str:
        """What stands for this value in the statement's frame: its type, and what two values must share to be
        compared (a quantity's unit, a duration's clock, a date's bound)."""
        frame_bound = "" if self.bound in INTERVAL_BOUNDS else self.bound
        unit = self.unit if self.type in (ValueType.QUANTITY, ValueType.DURATION, ValueType.PERCENT) else ""
        return f"<{self.type}{':' + unit if unit else ''}{'/' + frame_bound if frame_bound else ''}>"


@dataclass(frozen=True, slots=True)
class Word:
    """A token that is no value: a word, a code, punctuation, or a number that is part of a name."""

    text: str
    lower: str
    start: int
    end: int
    kind: str


Piece = Word | Value


def read_values(text: str) -> list[Piece]:
    """The statement as a list of words and values, in order; bound words ("at least", "by") go into their value."""
    tokens = tokenise(text)
    pieces: list[Piece] = []
    i = 0
    while i < len(tokens):
        found = read_date(tokens, i) or read_number(tokens, i)
        if found is None:
            token = tokens[i]
            pieces.append(Word(token.text, token.lower, token.start, token.end, token.kind))
            i += 1
            continue
        value, i = found
        pieces.append(with_bound(pieces, value))
    return pieces


def with_bound(pieces: list[Piece], value: Value | DateParts) -> Value:
    """The value, bounded by the words just before it (which are taken off `pieces`)."""
    last = pieces[-1] if pieces else None
    for words, bound in BOUNDS_BY_LAST.get(last.lower, ()) if isinstance(last, Word) else ():
        n = len(words)
        if len(pieces) >= n and all(
            isinstance(piece, Word) and piece.lower == word for piece, word in zip(pieces[-n:], words, strict=True)
        ):
            if isinstance(value, Value) and value.type != ValueType.DATE and bound in ("before", "after", "until"):
                continue
            verb = pieces[-n - 1] if len(pieces) > n else None
            if bound == "until" and isinstance(verb, Word) and verb.lower in MOVES:
                del pieces[-n:]  # "delayed until July": moved to July, no bound
                return value if isinstance(value, Value) else bounded(value, "", [])
            if (
                words == ("up", "to")
                and isinstance(verb, Word)
                and verb.lower in ("went", "go", "goes", "gone", "moved")
            ):
                continue  # "went up to 9,000 GBP": the new level, not a bound
            said = [piece for piece in pieces[-n:] if isinstance(piece, Word)]
            del pieces[-n:]
            return bounded(value, bound, said)
    return value if isinstance(value, Value) else bounded(value, "", [])


def bounded(value: Value | DateParts, bound: str, said: list[Word]) -> Value:
    """The value with its bound; an interval's words are part of its text ("at least 150 seats")."""
    if isinstance(value, DateParts):
        return Value(ValueType.DATE, value.text, value.start, value.end, date=value, bound=bound)
    low, high, text, start = value.low, value.high, value.text, value.start
    if bound in INTERVAL_BOUNDS:
        low, high = {"min": (low, math.inf), "max": (-math.inf, high), "about": (low * 0.75, high * 1.25)}[bound]
        text, start = " ".join([word.text for word in said] + [text]), said[0].start if said else start
    elif bound not in ("by", "every"):
        return value
    return Value(value.type, text, start, value.end, value.unit, low, high, bound=bound)


def read_number(tokens: list[Token], i: int) -> tuple[Value, int] | None:
    """A number at token i with its currency, percent sign or unit; None if there is none, or if the number is part
    of a name ("Release 2.4")."""
    currency = ""
    j = i
    if tokens[j].kind == "sym" and tokens[j].text in CURRENCY_SYMBOLS and j + 1 < len(tokens):
        currency, j = CURRENCY_SYMBOLS[tokens[j].text], j + 1
    elif tokens[j].lower in CURRENCY_WORDS and tokens[j].text.isupper() and j + 1 < len(tokens):
        currency, j = CURRENCY_WORDS[tokens[j].lower], j + 1
    token = tokens[j]
    if token.kind != "num" or token.number is None:
        return None
    if not currency and i > 0 and is_name_part(tokens[i - 1]):
        return None
    number, alt, j = token.number, token.ambiguous, j + 1
    following = tokens[j] if j < len(tokens) else None
    if following is not None and not currency:
        if following.text in CURRENCY_SYMBOLS or following.lower in CURRENCY_WORDS:
            currency, j = CURRENCY_SYMBOLS.get(following.text) or CURRENCY_WORDS[following.lower], j + 1
        elif following.text == "%" or following.lower in PERCENT_WORDS:
            return made(ValueType.PERCENT, tokens, i, j + 1, number, alt, PERCENT_WORDS.get(following.lower, ""))
        elif following.lower == "per" and j + 1 < len(tokens) and tokens[j + 1].lower == "cent":
            return made(ValueType.PERCENT, tokens, i, j + 2, number, alt, "")
        elif following.lower == "percentage" and j + 1 < len(tokens) and tokens[j + 1].lower == "points":
            return made(ValueType.PERCENT, tokens, i, j + 2, number, alt, "points")
        elif following.lower in DURATION_UNITS:
            clock, scale = DURATION_UNITS[following.lower]
            alt = alt * scale if alt is not None else None
            return made(ValueType.DURATION, tokens, i, j + 1, number * scale, alt, clock)
    if currency:
        return made(ValueType.NUMBER, tokens, i, j, number, alt, currency)
    if number == int(number) and 1990 <= number <= 2100 and len(token.text) == 4 and not is_plural_noun(following):
        return None  # a year: read_date reads it
    unit_at = j
    while unit_at < len(tokens) and tokens[unit_at].lower in UNIT_SKIP:
        unit_at += 1
    unit = tokens[unit_at] if unit_at < len(tokens) else None
    if unit is not None and unit.kind == "word" and unit.lower not in NOT_UNITS and not unit.capitalised:
        # "12 engineers", "2 more designers", "6 account executives": one value, whose unit is the (head) noun.
        head = tokens[unit_at + 1] if unit_at + 1 < len(tokens) else None
        if (
            head is not None and head.kind == "word" and not unit.lower.endswith("s") and head.lower.endswith("s")
            and head.lower not in NOT_UNITS and not head.capitalised
        ):  # fmt: skip
            unit, unit_at = head, unit_at + 1
        return made(ValueType.QUANTITY, tokens, i, unit_at + 1, number, alt, stem_unit(unit.lower))
    return made(ValueType.NUMBER, tokens, i, j, number, alt, "")


def made(
    kind: ValueType, tokens: list[Token], first: int, j: int, number: float, alt: float | None, unit: str
) -> tuple[Value, int]:
    """The value of tokens[first:j]."""
    start, end = tokens[first].start, tokens[j - 1].end
    text = " ".join(token.text for token in tokens[first:j])
    text = text.replace("$ ", "$").replace("€ ", "€").replace("£ ", "£").replace(" %", "%")
    return Value(kind, text, start, end, unit, number, number, alt), j


def is_name_part(previous: Token) -> bool:
    """A number right after this token belongs to a name: "Release 2.4", "Room 4.12", "SOC 2", "version 2.4"."""
    if previous.lower in NAME_NOUNS:
        return True
    return previous.kind == "word" and previous.text.isupper() and previous.lower not in CURRENCY_WORDS


def is_plural_noun(token: Token | None) -> bool:
    return token is not None and token.kind == "word" and token.lower.endswith("s") and not token.capitalised


def stem_unit(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def compare(a: Value, b: Value) -> tuple[Comparison, str]:
    """How two values of one slot compare, and what differs in words ("months", "amounts")."""
    if a.type == ValueType.DATE and a.date is not None and b.date is not None:
        outcome, what = compare_dates(a.date, b.date)
        return Comparison(outcome), what
    if a.type == ValueType.NAME:
        return compare_names(a.name, b.name)
    if a.unit != b.unit:
        if a.type == ValueType.NUMBER and not (a.unit and b.unit):
            pass  # "40k" and "40,000 EUR": one says no currency; the amounts still compare
        else:
            return Comparison.INCOMPARABLE, "units"
    what = {ValueType.PERCENT: "percentages", ValueType.DURATION: "durations", ValueType.QUANTITY: "numbers"}.get(
        a.type, "amounts" if a.unit or b.unit else "numbers"
    )
    readings_a = [(a.low, a.high)] + ([(a.alt, a.alt)] if a.alt is not None else [])
    readings_b = [(b.low, b.high)] + ([(b.alt, b.alt)] if b.alt is not None else [])
    outcomes = {interval_compare(x, y) for x in readings_a for y in readings_b}
    if outcomes == {Comparison.DIFFERENT}:
        return Comparison.DIFFERENT, what
    if Comparison.EQUAL in outcomes and a.bound == b.bound and len(outcomes) == 1:
        return Comparison.EQUAL, what
    if Comparison.EQUAL in outcomes or Comparison.COMPATIBLE in outcomes:
        return Comparison.COMPATIBLE, what
    return Comparison.INCOMPARABLE, what


def interval_compare(a: tuple[float, float], b: tuple[float, float]) -> Comparison:
    if a == b or (math.isclose(a[0], b[0], rel_tol=1e-9) and math.isclose(a[1], b[1], rel_tol=1e-9)):
        return Comparison.EQUAL
    if a[1] < b[0] * (1 - 1e-9) or b[1] < a[0] * (1 - 1e-9):
        return Comparison.DIFFERENT
    if a[0] == a[1] and b[0] == b[1]:
        return Comparison.DIFFERENT
    return Comparison.COMPATIBLE


CORPORATE = {"corp", "corporation", "inc", "ltd", "llc", "gmbh", "plc", "ag", "sa", "co", "group", "the"}


def compare_names(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[Comparison, str]:
    """Names: the same words (case aside, corporate suffixes aside) are the same name; one name inside the other
    ("Ana" and "Ana Costa", "Acme" and "Acme Corp") is consistent; anything else differs."""
    words_a = {word for word in a if word not in CORPORATE}
    words_b = {word for word in b if word not in CORPORATE}
    if words_a == words_b:
        return Comparison.EQUAL, "names"
    if words_a <= words_b or words_b <= words_a:
        return Comparison.COMPATIBLE, "names"
    return Comparison.DIFFERENT, "names"
