"""The near-miss hint computed over a word index is the hint the plain walk over the text's words gives.

`walked_near_miss` below is the hint as it was first written (a sliding window over the text's words in
Python, claims/evidence.py before issue 15): the definition, kept here as the oracle. The fast one must give
the same span for every text and quote, ties, case folding and word boundaries included.
"""

from __future__ import annotations

import re
import sys
from collections import Counter

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from claims import evidence
from claims.evidence import folded_words, near_miss, validate_quote
from claims.text import Span

WORD = re.compile(r"\w+", re.UNICODE)


def walked_near_miss(text: str, quote: str) -> Span | None:
    wanted = Counter(word.casefold() for word in WORD.findall(quote))
    size = sum(wanted.values())
    if size == 0:
        return None
    words = [word.casefold() for word in WORD.findall(text)]
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
    if best < max(1, size * 0.5):
        return None
    spans = [match.span() for match in WORD.finditer(text)]
    return Span(spans[best_range[0]][0], spans[best_range[1]][1])


# Few words, so that texts and quotes share many and windows tie; cases, ß/ss, the ﬁ ligature, a dotted
# capital I (it folds to i and a combining dot, not a word character), digits, underscores, CJK and emoji.
VOCABULARY = [
    "the",
    "The",
    "THE",
    "launch",
    "Launch",
    "is",
    "in",
    "June",
    "june",
    "Ana",
    "ana",
    "ß",
    "SS",
    "ss",
    "ﬁle",
    "FILE",
    "İstanbul",
    "i̇stanbul",
    "12",
    "x_y",
    "東京",
    "café",
    "cafe\u0301",
    "Σίσυφος",
    "ΣΊΣΥΦΟΣ",
]
SEPARATORS = [" ", "  ", ", ", ".\n", "\n\n", " — ", "'", "🚀", "\u0301", "\u00a0", "-", "\t"]
words = st.lists(st.sampled_from(VOCABULARY), min_size=0, max_size=60)
separators = st.lists(st.sampled_from(SEPARATORS), min_size=61, max_size=61)


def joined(chosen: list[str], between: list[str]) -> str:
    return "".join(separator + word for word, separator in zip(chosen, between, strict=False))


@st.composite
def text_and_quote(draw: st.DrawFn) -> tuple[str, str]:
    text = joined(draw(words), draw(separators))
    if draw(st.booleans()) and text:
        start = draw(st.integers(0, len(text) - 1))
        quote = text[start : draw(st.integers(start, len(text)))]
        changed = draw(st.lists(st.sampled_from(VOCABULARY), max_size=4))
        quote = " ".join([quote, *changed]) if draw(st.booleans()) else " ".join([*changed, quote])
    else:
        quote = joined(draw(st.lists(st.sampled_from(VOCABULARY), max_size=20)), draw(separators))
    return text, quote


class NearMissIsTheWalkTests:
    @settings(max_examples=1500)
    @given(text_and_quote())
    @example(("the launch is in June. The launch is in June", "the launch in June"))  # a tie: the first
    @example(("Ana the the the launch", "the the launch"))  # a word the quote has twice
    @example(("STRASSE and straße", "strasse"))  # full case folding
    @example(("the a the the b the c the the the d", "the the x the the the"))  # a word five times
    def test_it_gives_the_walks_span_for_every_text_and_quote(self, case: tuple[str, str]) -> None:
        text, quote = case
        assert near_miss(text, quote) == walked_near_miss(text, quote)

    @settings(max_examples=300)
    @given(st.text(max_size=200), st.text(max_size=60))
    def test_it_gives_the_walks_span_for_any_characters(self, text: str, quote: str) -> None:
        assert near_miss(text, quote) == walked_near_miss(text, quote)

    @given(st.text(max_size=300))
    def test_the_words_are_the_word_patterns_words_casefolded(self, text: str) -> None:
        assert folded_words(text) == [word.casefold() for word in WORD.findall(text)]

    def test_characters_past_the_remembered_ones_are_told_apart_the_same(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(evidence, "BLANKS_REMEMBERED", 0)
        text = "Ünïcödé wörds—and 東京 ＡＢＣ、ﬁne_print 🚀 \u2028 straße"
        monkeypatch.setattr(evidence, "_BLANKS", evidence._Blanks())
        assert folded_words(text) == [word.casefold() for word in WORD.findall(text)]
        assert len(evidence._BLANKS) == 0

    def test_no_word_character_is_a_space_or_folds_into_one(self) -> None:
        # What folded_words rests on, checked over every code point of this Python's Unicode tables.
        for code in range(sys.maxunicode + 1):
            char = chr(code)
            if char.isalnum() or char == "_":
                folded = char.casefold()
                assert WORD.fullmatch(char) and folded and not any(c.isspace() for c in folded), hex(code)
            else:
                assert not WORD.fullmatch(char), hex(code)

    def test_the_cache_keeps_only_its_budget_and_answers_the_same(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(evidence, "CACHED_INDEX_BYTES", 10_000)
        texts = [f"Ana says the launch {number} is in June, then the board {number} agrees." for number in range(40)]
        for _ in range(2):
            for text in texts:
                assert validate_quote(text, "the launch is in July").hint == walked_near_miss(  # type: ignore[union-attr]
                    text, "the launch is in July"
                )
        assert 1 < len(evidence._cache) < len(texts)
        assert sum(index.bytes for index in evidence._cache.values()) <= 10_000

    def test_a_text_too_large_for_the_cache_is_indexed_once_for_quotes_in_a_row(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A large source of many distinct words (a log) is kept apart, the last one only: refusals against it in
        a row do not index it again and again (and its hints stay the walk's)."""
        monkeypatch.setattr(evidence, "CACHED_INDEX_BYTES", 10_000)
        monkeypatch.setattr(evidence, "_last_large", None)
        log = " ".join(f"event{number} at node{number % 97} took {number % 13} ms" for number in range(2_000))
        small = "Ana says the launch is in June."
        first = evidence.word_index(log)
        assert first.bytes > 5_000 and log not in evidence._cache
        assert evidence.word_index(log) is first
        assert validate_quote(log, "event7 at node7 took 8 ms").hint == walked_near_miss(  # type: ignore[union-attr]
            log, "event7 at node7 took 8 ms"
        )
        evidence.word_index(small)  # a small text goes to the cache and leaves the large one kept
        assert evidence.word_index(log) is first
        other = log + " and one more"
        assert evidence.word_index(other) is not first and evidence.word_index(log) is not first  # the last only

    def test_a_long_text_and_a_long_quote(self) -> None:
        text = " ".join(f"word{number % 977} and the" for number in range(20_000))
        quote = " ".join(f"word{number % 977} or the" for number in range(3_000, 5_000))
        assert near_miss(text, quote) == walked_near_miss(text, quote)
