"""Source text: what is accepted, how line endings are normalised, how text is cut into fragments and sentences.

Offsets are Python string indexes (code points), end exclusive, everywhere.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from afterhack.errors import UserError
from afterhack.ids import unstorable
from afterhack.text import MAX_TITLE_CHARS, clean_text

# A source's text may hold at most this many characters (about 2 MB of English).
MAX_SOURCE_CHARS = 2_000_000
# Fragments aim for this size and never exceed the maximum; the last one may be shorter.
FRAGMENT_TARGET_CHARS = 1_200
FRAGMENT_MAX_CHARS = 2_000


class InvalidSource(UserError):
    """The text cannot become a source; the message says why, in words."""

    code = "invalid_source"


def normalize(text: str) -> str:
    """The text with CRLF and lone CR line endings, and the page and line breaks of plain-text files (form feed,
    vertical tab), turned into LF; nothing else changes."""
    # One character for one: a form feed between an RFC's pages keeps every offset after it.
    return text.replace("\r\n", "\n").translate(LINE_ENDINGS)


LINE_ENDINGS = str.maketrans(dict.fromkeys("\r\x0b\x0c", "\n"))
PAGE_BREAKS = str.maketrans(dict.fromkeys("\x0b\x0c", "\n"))


def page_breaks_as_line_breaks(text: str) -> str:
    """The text with its page breaks (form feed, vertical tab) read as line breaks: what a quote is looked for in.

    Versions stored before ingest turned page breaks into line breaks (issue #23) still hold them, while quotes are
    normalised as ingest normalises text now: read this way, a quote copied from such a text, page break and all, is
    found, and so is the same quote with a line break in its place. One character for one, so a span found in the
    result is the same span of the stored text (whose own characters are what a claim keeps). A text without page
    breaks, every text stored since, is returned as it is, after two scans that find nothing."""
    return text.translate(PAGE_BREAKS) if "\x0c" in text or "\x0b" in text else text


def clean_source_text(text: object) -> str:
    """The normalised text, or InvalidSource: empty, too long, or not text."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as error:
            raise InvalidSource(
                f"The file is not UTF-8 text (byte {error.start} cannot be decoded); save it as UTF-8 and try again."
            ) from None
        text = text.removeprefix("\ufeff")
    if not isinstance(text, str):
        raise InvalidSource("A source's text must be a string.")
    if "\x00" in text:
        raise InvalidSource("The text contains NUL bytes, so it is not plain text (is it a binary file?).")
    text = normalize(text)
    if (problem := unstorable(text)) is not None:
        raise InvalidSource(f"The text cannot contain {problem}.")
    if not text.strip():
        raise InvalidSource("A source needs some text; this one is empty.")
    if len(text) > MAX_SOURCE_CHARS:
        raise InvalidSource(
            f"A source can hold at most {MAX_SOURCE_CHARS:,} characters; this one has {len(text):,}. Split it into parts."
        )
    return text


def clean_title(title: object) -> str:
    """The stripped title, or InvalidSource saying what is wrong with it."""
    return clean_text(
        title, noun="A title", max_chars=MAX_TITLE_CHARS, missing="A source needs a title.", error=InvalidSource
    )


@dataclass(frozen=True)
class Span:
    start: int
    end: int

    def __len__(self) -> int:
        return self.end - self.start

    def overlaps(self, other: Span) -> bool:
        return self.start < other.end and other.start < self.end


PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")
# A sentence ends at . ! ? … (or their CJK forms), optionally followed by closing quotes or
# brackets, then whitespace; CJK full stops need no whitespace after them.
SENTENCE_END = re.compile(r"(?:[.!?…]+[\"'”’)\]]*\s+|[。！？]+[”’」』）]*\s*)")
ABBREVIATIONS = frozenset(
    "mr mrs ms dr prof sr jr st vs etc e.g i.e approx inc ltd co corp dept est fig no vol jan feb mar apr jun jul "
    "aug sep sept oct nov dec mon tue wed thu fri sat sun u.s u.k a.m p.m".split()
)


def _pieces(text: str, start: int, end: int, boundary: re.Pattern[str]) -> list[Span]:
    """Tiles [start, end) into spans that each end just after a boundary match (or at `end`)."""
    spans, cursor = [], start
    for match in boundary.finditer(text, start, end):
        if match.end() > cursor and not _is_abbreviation(text, cursor, match.start()):
            spans.append(Span(cursor, match.end()))
            cursor = match.end()
    if cursor < end:
        spans.append(Span(cursor, end))
    return spans


def _is_abbreviation(text: str, piece_start: int, stop_at: int) -> bool:
    """True when the full stop at `stop_at` ends an abbreviation or an initial, not a sentence."""
    if stop_at >= len(text) or text[stop_at] != ".":
        return False
    word_start = stop_at
    while word_start > piece_start and not text[word_start - 1].isspace():
        word_start -= 1
    word = text[word_start:stop_at].lower().lstrip("(\"'“‘")
    return word in ABBREVIATIONS or (len(word) == 1 and word.isalpha())


def _hard_split(text: str, span: Span, limit: int) -> list[Span]:
    """Cuts a span longer than `limit` at the last whitespace before each limit (or at the limit)."""
    spans, cursor = [], span.start
    while span.end - cursor > limit:
        cut = cursor + limit
        space = text.rfind(" ", cursor + limit // 2, cut)
        cut = space + 1 if space != -1 else cut
        spans.append(Span(cursor, cut))
        cursor = cut
    spans.append(Span(cursor, span.end))
    return spans


def _pack(spans: list[Span], target: int) -> list[Span]:
    """Joins neighbouring spans while the result stays within `target` characters."""
    packed: list[Span] = []
    for span in spans:
        if packed and len(packed[-1]) + len(span) <= target:
            packed[-1] = Span(packed[-1].start, span.end)
        else:
            packed.append(span)
    return packed


def fragment_spans(text: str, *, target: int = FRAGMENT_TARGET_CHARS, limit: int = FRAGMENT_MAX_CHARS) -> list[Span]:
    """Bounded fragments that tile the whole text, cut at paragraph, then sentence, then word boundaries."""
    units: list[Span] = []
    for paragraph in _pieces(text, 0, len(text), PARAGRAPH_BREAK):
        if len(paragraph) <= limit:
            units.append(paragraph)
            continue
        for sentence in _pieces(text, paragraph.start, paragraph.end, SENTENCE_END):
            units.extend(_hard_split(text, sentence, limit) if len(sentence) > limit else [sentence])
    return _pack(units, target)


def sentence_spans(text: str, start: int = 0, end: int | None = None) -> list[Span]:
    """The sentences of text[start:end], each trimmed of surrounding whitespace (empty ones dropped)."""
    end = len(text) if end is None else end
    sentences = []
    for paragraph in _pieces(text, start, end, PARAGRAPH_BREAK):
        for piece in _pieces(text, paragraph.start, paragraph.end, SENTENCE_END):
            trimmed = trim(text, piece)
            if trimmed is not None:
                sentences.append(trimmed)
    return sentences


def trim(text: str, span: Span) -> Span | None:
    """The span without leading and trailing whitespace, or None if nothing is left."""
    start, end = span.start, span.end
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return Span(start, end) if start < end else None


def same_statement(statement: str) -> str:
    """A statement reduced for comparison: case, spacing and final punctuation do not matter."""
    return " ".join(statement.casefold().split()).rstrip(".!。！ ")
