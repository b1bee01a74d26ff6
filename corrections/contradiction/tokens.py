"""A statement cut into tokens: words, numbers (with their k/m/bn suffix), ordinals, codes, times, ISO and slash
dates, currency symbols and punctuation, each with its place in the text. Number words ("three", "two hundred and
fifty", "a dozen") are read here too, so `values` sees one number whichever way it was written."""

from __future__ import annotations

import re
from dataclasses import dataclass

TOKEN = re.compile(
    r"""
    (?P<iso>\d{4}-\d{2}-\d{2})(?![\d-])
   |(?P<time>\d{1,2}:\d{2}(?:\s?(?:[ap]\.m\.|[ap]m\b))?|\d{1,2}\s?(?:[ap]\.m\.|[ap]m\b))
   |(?P<slash>\d{1,2}/\d{1,2}(?:/\d{2,4})?)(?![\d/])
   |(?P<code>[A-Za-z]+[-_]\d[\w.-]*\w|[A-Za-z]{2}-[a-z]+-\d+|v\d+(?:\.\d+)+|[A-Za-z]+\d+[A-Za-z\d]*)
   |(?P<ordinal>\d{1,2}(?:st|nd|rd|th))\b
   |(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?P<suffix>k|K|m|M|mn|bn|B|x)?(?![A-Za-z\d])
   |(?P<word>[A-Za-z][A-Za-z'’]*(?:-[A-Za-z]+)*)
   |(?P<sym>[€$£¥%])
   |(?P<punct>[^\s\w])
    """,
    re.VERBOSE,
)

SUFFIXES = {"k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6, "mn": 1e6, "bn": 1e9, "B": 1e9, "x": 1.0}
UNITS_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}  # fmt: skip
SCALE_WORDS = {"hundred": 100, "thousand": 1e3, "million": 1e6, "billion": 1e9}


@dataclass(frozen=True, slots=True)
class Token:
    """One token: its kind (a group name of TOKEN), its text, lowercased text and place; `number` for numbers,
    ordinals and number words; `ambiguous` for "5.000" (five, or five thousand as Europe writes it)."""

    kind: str
    text: str
    lower: str
    start: int
    end: int
    number: float | None = None
    ambiguous: float | None = None

    @property
    def capitalised(self) -> bool:
        return self.text[:1].isupper()


def tokenise(text: str) -> list[Token]:
    """The statement's tokens, numbers read (digits and words alike)."""
    tokens: list[Token] = []
    for match in TOKEN.finditer(text):
        kind = match.lastgroup or "punct"
        if kind == "suffix":
            kind = "num"
        raw = match.group(0)
        number = ambiguous = None
        if kind == "num":
            digits = match.group("num")
            number = float(digits.replace(",", "")) * SUFFIXES.get(match.group("suffix") or "", 1.0)
            whole, _, decimals = digits.partition(".")
            if len(decimals) == 3 and "," not in whole and not match.group("suffix"):
                ambiguous = float(whole + decimals)
        elif kind == "ordinal":
            number = float(raw[:-2])
        tokens.append(Token(kind, raw, raw.lower(), match.start(), match.end(), number, ambiguous))
    return join_numbers(tokens)


def join_numbers(tokens: list[Token]) -> list[Token]:
    """Joins "40 000" (a space between thousands), "40 thousand" and runs of number words into one number token."""
    out: list[Token] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.kind == "num" and token.number is not None:
            value, j = token.number, i + 1
            while (
                j < len(tokens) and tokens[j].kind == "num" and len(tokens[j].text) == 3
                and tokens[j].start == tokens[j - 1].end + 1 and value == int(value) and "." not in tokens[j].text
            ):  # fmt: skip
                value, j = value * 1000 + (tokens[j].number or 0), j + 1
            if j < len(tokens) and tokens[j].lower in SCALE_WORDS:
                value, j = value * SCALE_WORDS[tokens[j].lower], j + 1
            if j > i + 1:
                token = Token("num", text_between(tokens, i, j), "", token.start, tokens[j - 1].end, value)
            out.append(token)
            i = j
            continue
        words = number_words(tokens, i)
        if words:
            value, j = words
            out.append(Token("num", text_between(tokens, i, j), "", token.start, tokens[j - 1].end, value))
            i = j
            continue
        out.append(token)
        i += 1
    return out


def number_words(tokens: list[Token], i: int) -> tuple[float, int] | None:
    """A number written in words from token i ("three", "two hundred and fifty", "a dozen"): its value and the
    index after it; None if there is none there. A lone "one" is no number ("one of the vendors")."""
    if tokens[i].lower in ("a", "one") and i + 1 < len(tokens) and tokens[i + 1].lower == "dozen":
        return 12.0, i + 2
    total = current = 0.0
    j = i
    seen = False
    while j < len(tokens):
        word = tokens[j].lower
        if word in UNITS_WORDS:
            current += UNITS_WORDS[word]
        elif word in SCALE_WORDS and seen:
            scale = SCALE_WORDS[word]
            if scale == 100:
                current *= 100
            else:
                total, current = total + current * scale, 0.0
        elif word == "and" and seen and j + 1 < len(tokens) and tokens[j + 1].lower in UNITS_WORDS:
            pass
        else:
            break
        seen = True
        j += 1
    if not seen or (j == i + 1 and tokens[i].lower == "one"):
        return None
    return total + current, j


def text_between(tokens: list[Token], i: int, j: int) -> str:
    """The words of tokens[i:j] as written, one space apart."""
    return " ".join(token.text for token in tokens[i:j])
