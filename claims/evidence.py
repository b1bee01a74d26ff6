"""Rule 1, decided in one place: a quote is evidence only if it is an exact substring of the source text.

Offsets are Python code points, end exclusive, and `text[span.start:span.end] == quote`
always holds for an accepted quote. A rejected quote gets a reason and, for reviewers, the
closest near-miss span as a hint; a hint is never accepted automatically.
"""

from __future__ import annotations

import threading
from array import array
from collections import Counter, OrderedDict
from contextlib import suppress
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

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


# Below this share of the quote's words found together, there is no useful hint.
NEAR_MISS_MIN_SHARE = 0.5


# The characters whose class is remembered (about 100 bytes each); a text of rarer ones is slower, not bigger.
BLANKS_REMEMBERED = 100_000


class _Blanks(dict[int, int]):
    """For `str.translate`: every character that is not a word character (`\\w`: alphanumeric or `_`)
    becomes a space, a word character stays itself; filled as characters are first seen."""

    def __missing__(self, code: int) -> int:
        char = chr(code)
        value = code if char.isalnum() or char == "_" else 32
        if len(self) < BLANKS_REMEMBERED:
            self[code] = value
        return value


_BLANKS = _Blanks()


def folded_words(text: str) -> list[str]:
    """The text's words (what `re.findall(r"\\w+", text)` finds) case-folded, by C loops instead of a Python
    step a word: the non-word characters become spaces, the whole casefolds, and the spaces split it. That
    gives the same words because no word character is a space or folds into one (tests/claims/test_near_miss.py
    checks this over every code point)."""
    return text.translate(_BLANKS).casefold().split()


@dataclass(frozen=True)
class WordIndex:
    """A text's words, numbered in order: word i runs from `starts[i]` to `ends[i]` in the text (code points,
    end exclusive). `by_word` holds the words' numbers grouped by their case-folded form, in order within a
    group; `groups[folded]` is where that form's group begins in it, times 2**32, plus its length.
    `bytes` is about the memory it takes, with its text."""

    groups: dict[str, int]
    by_word: np.ndarray
    starts: array[int]
    ends: array[int]
    bytes: int

    @classmethod
    def of(cls, text: str) -> WordIndex:
        blanked = text.translate(_BLANKS)
        words = blanked.casefold().split()
        vocabulary = {word: number for number, word in enumerate(dict.fromkeys(words))}
        codes = np.fromiter(map(vocabulary.__getitem__, words), np.int32, len(words))
        lengths = np.bincount(codes, minlength=len(vocabulary))
        groups = dict(zip(vocabulary, ((np.cumsum(lengths) - lengths) << 32 | lengths).tolist(), strict=True))
        is_word = np.frombuffer(blanked.encode("utf-32-le", "surrogatepass"), np.uint32) != 32
        edges = np.flatnonzero(np.diff(is_word, prepend=False, append=False)).astype(np.intc)
        by_word = np.argsort(codes, kind="stable").astype(np.int32)
        # Measured with tracemalloc: 12 bytes a word in the arrays, ~160 a distinct word in the dictionary.
        size = len(text) * (4 if not text.isascii() else 1) + 12 * len(words) + 160 * len(vocabulary)
        starts, ends = array("i", edges[0::2].tobytes()), array("i", edges[1::2].tobytes())
        return cls(groups, by_word, starts, ends, size)


# The word indexes of recently checked texts are kept (a text is usually checked against many quotes in a
# row), up to about this many bytes in all: what the 64 word lists cached before could take at worst. A text
# whose index alone would take more than half of it (a large source of many distinct words: a log, a table)
# is kept apart, the last such one only, so that quotes checked against it in a row index it once.
CACHED_INDEX_BYTES = 64_000_000
_cache: OrderedDict[str, WordIndex] = OrderedDict()
_cached_bytes = 0
_cache_lock = threading.Lock()
_last_large: tuple[str, WordIndex] | None = None


def word_index(text: str) -> WordIndex:
    """The text's word index, from the cache when it was built lately."""
    global _cached_bytes, _last_large
    found = _cache.get(text)
    if found is not None:
        with suppress(KeyError):  # another thread may have just let it go: it is still good to use
            _cache.move_to_end(text)
        return found
    large = _last_large
    if large is not None and large[0] == text:
        return large[1]
    index = WordIndex.of(text)
    if index.bytes > CACHED_INDEX_BYTES // 2:
        _last_large = (text, index)
    else:
        with _cache_lock:
            if text not in _cache:
                _cache[text] = index
                _cached_bytes += index.bytes
                while _cached_bytes > CACHED_INDEX_BYTES:
                    _cached_bytes -= _cache.popitem(last=False)[1].bytes
    return index


def near_miss(text: str, quote: str) -> Span | None:
    """The span of `text` whose words best match the quote's (a sliding window), or None.

    The measure: a window of the text's words half again as long as the quote's (a paraphrase adds words)
    holds so many of the quote's words, each counted at most as often as the quote has it, words compared
    case-folded. The best window is the one that holds most, among windows ending on a quote word; of equal
    ones the first to end. The result runs from that window's first quote word to its last; there is none
    when the best window holds fewer than half of the quote's words, or none.

    Computed with numpy over the text's word index (cached), touching only the occurrences of the quote's
    words: an occurrence counts for the windows that end from its own position until it leaves them, except
    while they also hold as many earlier occurrences of its word as the quote has. The same spans as the walk
    over the words it replaces, which tests/claims/test_near_miss.py keeps as the oracle.
    """
    words = folded_words(quote)
    wanted, size = Counter(words), len(words)
    index = word_index(text)
    groups = index.groups
    # For each quote word in the text: how far its occurrences are from where they will be among all the
    # quote words' occurrences, how many it has, how many the quote has, and where in all its own end.
    shifts, lengths, allowed, limits = [], [], [], []
    occurrences = reachable = 0
    for word, count in wanted.items():
        group = groups.get(word)
        if group is not None:
            first_at, length = group >> 32, group & 0xFFFF_FFFF
            shifts.append(first_at - occurrences)
            lengths.append(length)
            allowed.append(count)
            limits.append(occurrences + count)
            occurrences += length
            reachable += count if count < length else length
    enough = max(1, size * NEAR_MISS_MIN_SHARE)
    if reachable < enough:  # no window could hold enough
        return None
    window = size + size // 2 + 1
    per_group = np.repeat(np.array([shifts, allowed, limits]), lengths, axis=1)
    number_in_all = np.arange(occurrences)
    # Every occurrence of a quote word, grouped by word and in order within a group.
    positions = index.by_word.take(number_in_all + per_group[0])
    # An occurrence counts for the windows ending from it until it leaves, except while the one `count`
    # before it (of the same word, if the word occurs that often before it) is still inside.
    before = positions.take(number_in_all - per_group[1], mode="clip") + window
    counts_from = np.maximum(positions, before * (number_in_all >= per_group[2]))  # 0 where there is none
    # How many occurrences count for the window ending at each word: those counting from there or before,
    # less those that left it before (their own position plus the window's length is not past the end).
    counting = np.bincount(counts_from, minlength=len(index.starts) + window)
    at_word = np.bincount(positions, minlength=len(index.starts))
    counting[window:] -= at_word
    hits = np.flatnonzero(at_word.astype(np.bool_))  # the quote words' positions in order
    held = counting.cumsum().take(hits)
    best_at = int(held.argmax())  # the first of equal windows
    if held.item(best_at) < enough:
        return None
    last = hits.item(best_at)
    first = hits.item(int(hits.searchsorted(last - window + 1)))
    return Span(index.starts[first], index.ends[last])
