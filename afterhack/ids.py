"""Ids and text that may reach a store: UUID ids only, and strings PostgreSQL and FalkorDB can hold."""

from __future__ import annotations

import re
import uuid


def parse_id(value: object) -> str | None:
    """The canonical form of a UUID id, or None for anything else (so it can never reach a query)."""
    if not isinstance(value, str) or len(value) > 64:
        return None
    try:
        return str(uuid.UUID(value))
    except ValueError:
        return None


# The control characters (Unicode's category Cc: C0, DEL and C1) no stored text may hold: all but tab, newline and
# carriage return (a line ending: a source's text turns it into a newline, folded text into a space). Nobody types
# them, PostgreSQL cannot store NUL, and the others act where the text is shown: ESC (and C1's CSI, U+009B) starts a
# terminal's command in a log or a psql session, BEL rings; C1 characters in text are mostly a wrong decoding.
CONTROL = r"\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"
# In a document (a source's text, a quote of one) the page and line breaks of plain-text files, form feed and
# vertical tab, are line endings like CR (claims.text.normalize): RFCs and printed text have them.
DOCUMENT_CONTROL = r"\x00-\x08\x0e-\x1f\x7f-\x9f"
_CONTROL = re.compile(f"[{CONTROL}]")
_DOCUMENT_CONTROL = re.compile(f"[{DOCUMENT_CONTROL}]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
CONTROL_NAMES = {
    0x00: "NUL", 0x07: "bell", 0x08: "backspace", 0x0B: "vertical tab", 0x0C: "form feed", 0x1B: "escape",
    0x7F: "delete", 0x9B: "control sequence introducer",
}  # fmt: skip


def unstorable(text: str, *, page_breaks: bool = False) -> str | None:
    """What no stored text may hold, said as what follows "… cannot contain " (with the first such character and
    where it is), or None when the text may be stored. With `page_breaks`, form feed and vertical tab may stay."""
    if (control := (_DOCUMENT_CONTROL if page_breaks else _CONTROL).search(text)) is not None:
        code = ord(control.group())
        name = f"U+{code:04X}" + (f" ({CONTROL_NAMES[code]})" if code in CONTROL_NAMES else "")
        kept = "tab, line breaks and page breaks" if page_breaks else "tab and line breaks"
        return f"control characters other than {kept}: {name} {_where(text, control.start())}"
    if (surrogate := _SURROGATE.search(text)) is not None:
        return f"invalid Unicode: a lone surrogate (U+{ord(surrogate.group()):04X}) {_where(text, surrogate.start())}"
    return None


def _where(text: str, index: int) -> str:
    """Where the character at `index` is, as a person counts: its line and column in text of several lines."""
    if "\n" not in text:
        return f"at character {index + 1}"
    line_start = text.rfind("\n", 0, index) + 1
    return f"on line {text.count(chr(10), 0, index) + 1}, column {index - line_start + 1}"


def is_storable(text: str, *, page_breaks: bool = False) -> bool:
    """False for strings no stored text may hold: control characters (see CONTROL), or lone surrogates (not UTF-8)."""
    return unstorable(text, page_breaks=page_breaks) is None


def storable(text: str) -> str:
    """The text without the control characters stored text may not hold and with lone surrogates replaced, for
    recording what a model said."""
    return _CONTROL.sub("", text).encode("utf-8", "replace").decode("utf-8")
