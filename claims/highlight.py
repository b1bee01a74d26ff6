"""The source text as HTML: every claim's evidence span marked (the source page), or one quote marked (the
correction's passage picker). Every piece of text is escaped before it is marked.
"""

from __future__ import annotations

from html import escape
from itertools import pairwise

from django.utils.safestring import SafeString, mark_safe

from claims.graph.sources import ClaimSpan
from claims.statuses import ClaimStatus
from claims.text import Span


def highlight(text: str, spans: list[ClaimSpan]) -> SafeString:
    """The text, HTML-escaped, with every claim's evidence span marked; overlaps nest as deeper marks.

    The text is cut at every span boundary; each piece is marked with the claims covering it. So that
    claims side by side read as separate passages, the claims alternate between two shades (`c0`, `c1`,
    by their order in the text, the innermost claim of a piece deciding), and a piece where a claim
    begins or ends says so (`from`, `to`: a border and a gap on the page).
    """
    spans = [span for span in spans if 0 <= span.start < span.end <= len(text)]
    in_order = sorted(spans, key=lambda span: (span.start, -span.end))
    shade = {span.id: index % 2 for index, span in enumerate(in_order)}
    cuts = sorted({0, len(text), *(s.start for s in spans), *(s.end for s in spans)})
    starting: dict[int, list[ClaimSpan]] = {}
    ending: dict[int, list[ClaimSpan]] = {}
    for span in spans:
        starting.setdefault(span.start, []).append(span)
        ending.setdefault(span.end, []).append(span)
    active: dict[str, ClaimSpan] = {}
    parts: list[str] = []
    for here, following in pairwise(cuts):
        for span in ending.get(here, ()):
            active.pop(span.id, None)
        for span in starting.get(here, ()):
            active[span.id] = span
        piece = escape(text[here:following], quote=False)
        parts.append(_marked_piece(piece, list(active.values()), here, following, shade) if active else piece)
    return mark_safe("".join(parts))  # noqa: S308 - every piece of text above is escaped


def _marked_piece(piece: str, active: list[ClaimSpan], here: int, following: int, shade: dict[str, int]) -> str:
    """One piece of the text (escaped) in the mark of the claims covering it."""
    statuses = {span.status for span in active}
    status = ClaimStatus.CURRENT if ClaimStatus.CURRENT in statuses else next(iter(statuses))
    innermost = max(active, key=lambda span: (span.start, -span.end))
    classes = ["ev", f"d{min(len(active), 3)}", f"st-{status}", f"c{shade[innermost.id]}"]
    if any(span.start == here for span in active):
        classes.append("from")
    if any(span.end == following for span in active):
        classes.append("to")
    ids = " ".join(span.id for span in active)
    # No title naming the claims here: a piece of a passage several claims cite would repeat their statements
    # in every piece (a third of the page at 5,000 claims). The statements are said once, in the list under
    # the text, and afterhack/source.js names a mark's claims from it when it is pointed at or focused.
    return f'<mark class="{" ".join(classes)}" data-claims="{escape(ids)}" tabindex="0">{piece}</mark>'


def marked(text: str, span: Span | None) -> SafeString:
    """The text, HTML-escaped, with one span (a claim's own quote) marked."""
    if span is None or not 0 <= span.start < span.end <= len(text):
        return mark_safe(escape(text, quote=False))  # noqa: S308 - the text is escaped
    before, quote, after = (
        escape(part, quote=False) for part in (text[: span.start], text[span.start : span.end], text[span.end :])
    )
    return mark_safe(f'{before}<mark class="own-quote">{quote}</mark>{after}')  # noqa: S308 - every part is escaped
