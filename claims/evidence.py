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


def near_miss(text: str, quote: str) -> Span | None:
    """The span of `text` whose words best match the quote's (a sliding window), or None.

    Linear in the text: a window half again as long as the quote (a paraphrase adds words)
    slides over the text's words, keeping a running count of how many of the quote's words
    it holds; the best window is then trimmed to its first and last matching word.
    """
    wanted = Counter(word.casefold() for word in WORD.findall(quote))
    size = sum(wanted.values())
    if size == 0:
        return None
    words = [(m.group().casefold(), m.start(), m.end()) for m in WORD.finditer(text)]
    if not words:
        return None
    window_size = size + size // 2 + 1
    held: Counter[str] = Counter()
    matched = best = 0
    best_end = -1
    for index, (word, _, _) in enumerate(words):
        held[word] += 1
        if held[word] <= wanted[word]:
            matched += 1
        if index >= window_size:
            leaving = words[index - window_size][0]
            if held[leaving] <= wanted[leaving]:
                matched -= 1
            held[leaving] -= 1
        if matched > best:
            best, best_end = matched, index
    if best < max(1, size * NEAR_MISS_MIN_SHARE):
        return None
    window = words[max(0, best_end - window_size + 1) : best_end + 1]
    inside = [(start, end) for word, start, end in window if wanted[word]]
    return Span(inside[0][0], inside[-1][1])
