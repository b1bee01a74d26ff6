"""The one check typed text goes through: folded, bounded, storable, refused in the caller's words."""

from __future__ import annotations

import pytest

from afterhack.errors import UserError
from afterhack.text import clean_text


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
            ("Up\x00", {}, "A motto cannot contain NUL characters or invalid Unicode."),
            ("\ud800", {}, "A motto cannot contain NUL characters or invalid Unicode."),
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
