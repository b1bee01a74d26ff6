"""Rule 1, decided in one place: a quote is evidence only if it is an exact substring of the source text.

Offsets are Python code points, end exclusive, and `text[span.start:span.end] == quote`
always holds for an accepted quote. A rejected quote gets a reason and, for reviewers, the
closest near-miss span as a hint; a hint is never accepted automatically.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

from claims.text import Span


class Reason(StrEnum):
    EMPTY = "empty"
    WHITESPACE_ONLY = "whitespace_only"
    NOT_FOUND = "not_found"
    NOT_AT_START = "not_at_start"


REASON_WORDS = {
    Reason.EMPTY: "The quote is empty.",
    Reason.WHITESPACE_ONLY: "The quote is only whitespace.",
    Reason.NOT_FOUND: "The quote does not occur in the source text, character for character.",
    Reason.NOT_AT_START: "The quote does not occur at the given start offset.",
}

# Each reason as a short label for the pages (the sentence above, or the row's own detail, says the rest).
REASON_LABELS = {
    Reason.EMPTY: "nothing to check",
    Reason.WHITESPACE_ONLY: "blank quote",
    Reason.NOT_FOUND: "quote not in the text",
    Reason.NOT_AT_START: "quote not at that place",
}


@dataclass(frozen=True)
class Rejection:
    reason: Reason
    detail: str
    hint: Span | None = None


def validate_quote(text: str, quote: object, start: object = None) -> Span | Rejection:
    """The span where `quote` occurs in `text` (at `start` if given, else first), or why it is refused."""
    if not isinstance(quote, str) or quote == "":
        return Rejection(Reason.EMPTY, REASON_WORDS[Reason.EMPTY])
    if not quote.strip():
        return Rejection(Reason.WHITESPACE_ONLY, REASON_WORDS[Reason.WHITESPACE_ONLY])
    if start is not None:
        return _at(text, quote, start)
    found = text.find(quote)
    if found == -1:
        return Rejection(Reason.NOT_FOUND, REASON_WORDS[Reason.NOT_FOUND], near_miss(text, quote))
    return Span(found, found + len(quote))


def _at(text: str, quote: str, start: object) -> Span | Rejection:
    if isinstance(start, bool) or not isinstance(start, int) or not 0 <= start <= len(text):
        detail = f"The start offset must be a whole number from 0 to {len(text)} (the text's length); got {start!r}."
        return Rejection(Reason.NOT_AT_START, detail, _hint_or_occurrence(text, quote))
    if text.startswith(quote, start):
        return Span(start, start + len(quote))
    return Rejection(Reason.NOT_AT_START, REASON_WORDS[Reason.NOT_AT_START], _hint_or_occurrence(text, quote))


def _hint_or_occurrence(text: str, quote: str) -> Span | None:
    found = text.find(quote)
    return Span(found, found + len(quote)) if found != -1 else near_miss(text, quote)


WORD = re.compile(r"\w+", re.UNICODE)
# Below this share of the quote's words found together, there is no useful hint.
NEAR_MISS_MIN_SHARE = 0.5


# Texts up to this size have their word lists cached (64 of them: a few tens of MB at most).
CACHED_TEXT_CHARS = 100_000


def _words(text: str) -> list[str]:
    """The text's words, case-folded; cached for texts of ordinary size, which are usually checked
    against many quotes in a row."""
    return _cached_words(text) if len(text) <= CACHED_TEXT_CHARS else _fold_words(text)


def _fold_words(text: str) -> list[str]:
    return [word.casefold() for word in WORD.findall(text)]


_cached_words = lru_cache(maxsize=64)(_fold_words)


def _word_span(text: str, first: int, last: int) -> Span:
    """From the start of the text's word number `first` to the end of word number `last`."""
    start = 0
    for number, match in enumerate(WORD.finditer(text)):
        if number == first:
            start = match.start()
        if number == last:
            return Span(start, match.end())
    raise ValueError("word index out of range")


def near_miss(text: str, quote: str) -> Span | None:
    """The span of `text` whose words best match the quote's (a sliding window), or None.

    A window half again as long as the quote (a paraphrase adds words) slides over the
    text's words, counting how many of the quote's words it holds; only positions where a
    quote word occurs are visited. The result runs from the best window's first matching
    word to its last.
    """
    wanted = Counter(word.casefold() for word in WORD.findall(quote))
    size = sum(wanted.values())
    if size == 0:
        return None
    words = _words(text)
    hits = [index for index, word in enumerate(words) if word in wanted]
    window = size + size // 2 + 1
    held: Counter[str] = Counter()
    matched = best = left = 0
    best_range = (0, 0)
    for index in hits:
        word = words[index]
        held[word] += 1
        if held[word] <= wanted[word]:
            matched += 1
        while index - hits[left] >= window:
            leaving = words[hits[left]]
            if held[leaving] <= wanted[leaving]:
                matched -= 1
            held[leaving] -= 1
            left += 1
        if matched > best:
            best, best_range = matched, (hits[left], index)
    if best < max(1, size * NEAR_MISS_MIN_SHARE):
        return None
    return _word_span(text, *best_range)
