"""The one check typed text goes through: folded, bounded, storable, refused in the caller's words."""

from __future__ import annotations

import pytest

from afterhack.errors import UserError
from afterhack.ids import CONTROL_NAMES, is_storable, storable, unstorable
from afterhack.text import clean_text
from claims.text import normalize


class Refused(UserError):
    pass


def clean(value: object, **options: object) -> str:
    return clean_text(value, noun="A motto", max_chars=10, missing="A flag needs a motto.", **options)  # type: ignore[arg-type]


class CleanTextTests:
    def test_it_folds_whitespace_or_only_strips_it(self) -> None:
        assert clean("  Ever\n\t up ") == "Ever up"
        assert clean("  Ever  up ", fold=False) == "Ever  up"

    @pytest.mark.parametrize(
        ("value", "options", "words"),
        [
            (None, {}, "A flag needs a motto."),
            ("   ", {}, "A flag needs a motto."),
            (5, {}, "A flag needs a motto."),
            (5, {"not_text": "A motto must be text."}, "A motto must be text."),
            (
                "Up\x00",
                {},
                "A motto cannot contain control characters other than tab and line breaks: U+0000 (NUL) at "
                "character 3.",
            ),
            ("\ud800", {}, "A motto cannot contain invalid Unicode: a lone surrogate (U+D800) at character 1."),
            (
                "\x1b[31mUp",
                {},
                "A motto cannot contain control characters other than tab and line breaks: U+001B "
                "(escape) at character 1.",
            ),
            (
                "Ever\n\x07up",
                {"fold": False},
                "A motto cannot contain control characters other than tab and line "
                "breaks: U+0007 (bell) on line 2, column 1.",
            ),
            ("x" * 11, {}, "A motto can be at most 10 characters (this one has 11)."),
        ],
    )
    def test_it_refuses_in_the_callers_words(self, value: object, options: dict[str, object], words: str) -> None:
        with pytest.raises(UserError) as refused:
            clean(value, **options)
        assert str(refused.value) == words

    def test_it_raises_the_callers_error(self) -> None:
        with pytest.raises(Refused):
            clean("", error=Refused)

    def test_text_that_is_not_required_may_be_left_out(self) -> None:
        assert clean(None, required=False) == "" and clean("  ", required=False) == ""
        with pytest.raises(UserError):
            clean(5, required=False)


# Every control character (Unicode's Cc) but tab, newline and carriage return: C0, DEL and C1.
CONTROLS = [chr(c) for c in [*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), *range(0x7F, 0xA0)]]


class ControlCharacterTests:
    @pytest.mark.parametrize("control", CONTROLS, ids=[f"U+{ord(c):04X}" for c in CONTROLS])
    def test_every_control_character_but_tab_and_line_breaks_is_refused_and_named(self, control: str) -> None:
        assert unstorable(f"ab{control}") == (
            f"control characters other than tab and line breaks: U+{ord(control):04X}"
            + (f" ({CONTROL_NAMES[ord(control)]})" if ord(control) in CONTROL_NAMES else "")
            + " at character 3"
        )
        assert not is_storable(f"ab{control}") and storable(f"a{control}b") == "ab"

    def test_tab_line_breaks_and_other_unicode_are_kept(self) -> None:
        text = "Tab\there,\r\nline\nbreaks, “quotes”, é, \u00a0, \u2028, \u200b, 🙂"
        assert is_storable(text) and storable(text) == text

    def test_a_document_may_hold_page_breaks_which_become_line_breaks(self) -> None:
        assert unstorable("page one\x0cpage two\x0b", page_breaks=True) is None
        assert "U+000C (form feed)" in (unstorable("page one\x0cpage two") or "")
        assert "U+001B (escape) on line 2" in (unstorable("one\x0ctwo\n\x1b", page_breaks=True) or "")
        # One character for one: every offset after a page break stays where it was.
        assert normalize("a\x0cb\x0bc\r\nd\re") == "a\nb\nc\nd\ne"
