"""Source text: normalisation, limits, fragments that tile the text, sentences."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from claims.text import (
    FRAGMENT_MAX_CHARS,
    MAX_SOURCE_CHARS,
    InvalidSource,
    clean_source_text,
    fragment_spans,
    sentence_spans,
)


class CleanSourceTextTests:
    def test_it_normalises_line_endings_and_nothing_else(self) -> None:
        assert clean_source_text("a\r\nb\rc\n  d\t") == "a\nb\nc\n  d\t"

    def test_it_decodes_utf8_bytes_and_drops_a_byte_order_mark(self) -> None:
        assert clean_source_text("\ufeffJune 🚀".encode()) == "June 🚀"

    @pytest.mark.parametrize(
        ("text", "words"),
        [
            ("", "empty"),
            (" \n\t ", "empty"),
            ("bad\x00byte", "NUL"),
            (b"\xff\xfe\x00", "not UTF-8"),
            ("x" * (MAX_SOURCE_CHARS + 1), "at most"),
            (12, "must be a string"),
        ],
    )
    def test_it_refuses_what_is_not_a_usable_text(self, text: object, words: str) -> None:
        with pytest.raises(InvalidSource, match=words):
            clean_source_text(text)


class FragmentTests:
    def test_it_cuts_at_paragraphs_and_keeps_small_ones_together(self) -> None:
        text = "First paragraph.\n\nSecond paragraph.\n\n" + "Long sentence here. " * 200
        spans = fragment_spans(text)
        assert spans[0].start == 0 and spans[-1].end == len(text)
        assert text[spans[0].start : spans[0].end].startswith("First paragraph.\n\nSecond paragraph.")
        assert all(len(span) <= FRAGMENT_MAX_CHARS for span in spans)
        assert all(text[s.start : s.end].endswith(("\n", " ")) for s in spans[:-1])

    def test_it_splits_a_single_huge_word_run_at_the_limit(self) -> None:
        text = "x" * (FRAGMENT_MAX_CHARS * 3 + 5)
        spans = fragment_spans(text)
        assert [len(s) for s in spans] == [FRAGMENT_MAX_CHARS] * 3 + [5]

    @settings(max_examples=200)
    @given(st.text(alphabet=st.sampled_from("ab .!?\n東🚀"), min_size=1, max_size=6000))
    def test_it_always_tiles_the_text_without_gaps_or_overlaps(self, text: str) -> None:
        spans = fragment_spans(text)
        assert spans[0].start == 0 and spans[-1].end == len(text)
        for before, after in pairwise(spans):
            assert before.end == after.start
        assert all(0 < len(span) <= FRAGMENT_MAX_CHARS for span in spans)


class SentenceTests:
    def test_it_splits_sentences_but_not_abbreviations_or_initials(self) -> None:
        text = "Dr. Smith met J. Doe on Jan. 5. They agreed, e.g. on price! Did they sign?\n\nYes."
        sentences = [text[s.start : s.end] for s in sentence_spans(text)]
        assert sentences == ["Dr. Smith met J. Doe on Jan. 5.", "They agreed, e.g. on price!", "Did they sign?", "Yes."]

    def test_it_splits_cjk_sentences(self) -> None:
        text = "発売は六月です。担当はアナです。"
        assert [text[s.start : s.end] for s in sentence_spans(text)] == ["発売は六月です。", "担当はアナです。"]
