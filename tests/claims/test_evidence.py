"""Rule 1 in isolation: exact quotes only, code-point offsets, reasons and near-miss hints."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from claims.evidence import Reason, Rejection, near_miss, validate_quote
from claims.text import Span

TEXT = "The launch is in June. Ana owns it.\nThe launch is in June, says Ana."


class ValidateQuoteTests:
    def test_it_accepts_an_exact_quote_at_its_first_occurrence(self) -> None:
        span = validate_quote(TEXT, "The launch is in June")
        assert span == Span(0, 21)

    def test_it_accepts_the_second_occurrence_when_start_points_at_it(self) -> None:
        second = TEXT.index("The launch", 1)
        span = validate_quote(TEXT, "The launch is in June", second)
        assert span == Span(second, second + 21)
        assert isinstance(span, Span) and TEXT[span.start : span.end] == "The launch is in June"

    def test_it_refuses_a_paraphrase_with_a_hint_at_the_closest_span(self) -> None:
        rejection = validate_quote(TEXT, "the launch happens in June")
        assert isinstance(rejection, Rejection) and rejection.reason == Reason.NOT_FOUND
        assert rejection.hint is not None
        assert TEXT[rejection.hint.start : rejection.hint.end] == "The launch is in June"

    def test_it_refuses_an_invented_quote_without_a_hint(self) -> None:
        rejection = validate_quote(TEXT, "Budget approved by the board")
        assert isinstance(rejection, Rejection) and rejection.reason == Reason.NOT_FOUND
        assert rejection.hint is None

    def test_it_refuses_empty_and_whitespace_quotes(self) -> None:
        assert validate_quote(TEXT, "") == Rejection(Reason.EMPTY, "The quote is empty.")
        rejection = validate_quote(TEXT, " \n\t")
        assert isinstance(rejection, Rejection) and rejection.reason == Reason.WHITESPACE_ONLY
        assert isinstance(validate_quote(TEXT, None), Rejection)

    def test_it_refuses_a_quote_not_at_the_given_start(self) -> None:
        rejection = validate_quote(TEXT, "Ana owns it", 3)
        assert isinstance(rejection, Rejection) and rejection.reason == Reason.NOT_AT_START
        assert rejection.hint == Span(TEXT.index("Ana owns"), TEXT.index("Ana owns") + 11)

    def test_it_refuses_a_start_out_of_range_in_words(self) -> None:
        for start in (-1, len(TEXT) + 1, "3", 2.0, True):
            rejection = validate_quote(TEXT, "Ana", start)
            assert isinstance(rejection, Rejection) and rejection.reason == Reason.NOT_AT_START
        assert "from 0 to" in validate_quote(TEXT, "Ana", -1).detail  # type: ignore[union-attr]

    def test_it_counts_code_points_through_emoji_combining_marks_and_cjk(self) -> None:
        text = "Team 🚀🚀 says: cafe\u0301 opens 東京 in July. 👩‍👩‍👧 agrees."
        for quote in ("東京 in July", "cafe\u0301 opens", "👩‍👩‍👧 agrees", "🚀🚀"):
            span = validate_quote(text, quote)
            assert isinstance(span, Span)
            assert text[span.start : span.end] == quote
        # A precomposed é is a different character sequence from e + combining accent.
        assert isinstance(validate_quote(text, "café opens"), Rejection)

    def test_it_does_not_forgive_whitespace_or_case(self) -> None:
        assert isinstance(validate_quote(TEXT, "The launch  is in June"), Rejection)
        assert isinstance(validate_quote(TEXT, "the launch is in june"), Rejection)

    @given(st.text(min_size=1, max_size=300), st.data())
    def test_it_always_returns_a_span_that_slices_back_to_the_quote(self, text: str, data: st.DataObject) -> None:
        start = data.draw(st.integers(0, len(text) - 1))
        end = data.draw(st.integers(start + 1, len(text)))
        quote = text[start:end]
        result = validate_quote(text, quote)
        if quote.strip():
            assert isinstance(result, Span) and text[result.start : result.end] == quote
            assert result.start == text.find(quote)
            at = validate_quote(text, quote, start)
            assert at == Span(start, end)
        else:
            assert isinstance(result, Rejection)


class NearMissTests:
    def test_it_finds_the_window_with_most_words_in_a_long_text(self) -> None:
        filler = "Nothing to see here. " * 5000
        text = filler + "Revenue grew by 12 percent in the third quarter." + filler
        hint = near_miss(text, "revenue grew 12 percent during the third quarter")
        assert hint is not None
        assert text[hint.start : hint.end] == "Revenue grew by 12 percent in the third quarter"
