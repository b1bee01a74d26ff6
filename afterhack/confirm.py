"""The confirm step of destructive buttons: a second, explicit POST, shown in place over HTMX.

A destructive form posts once without ``confirmed``: nothing is changed, and the answer asks
(in place of the buttons for HTMX, as a page otherwise). Its "Yes" posts the same fields again
with ``confirmed=yes``. No browser alert, no inline script (the Content-Security-Policy refuses
those), and a client without JavaScript gets the same two steps.
"""

from __future__ import annotations

from collections.abc import Mapping

from django.http import HttpResponse
from django.shortcuts import render

from afterhack.htmx import HtmxRequest

CONFIRMED = "yes"


def is_confirmed(request: HtmxRequest) -> bool:
    """Whether this POST is the second step, the one that acts."""
    return request.POST.get("confirmed") == CONFIRMED


def ask(
    request: HtmxRequest,
    *,
    question: str,
    consequence: str,
    action: str,
    fields: Mapping[str, str],
    yes: str,
    back: str,
    target: str = "",
    columns: int = 0,
) -> HttpResponse:
    """Asks before acting: `question` and `consequence` in words, then `yes` (posts `fields` to `action`) or Keep.

    `target` is the CSS selector of the element the HTMX "Yes" replaces with the answer; without
    it the confirmed form posts as a plain form. `back` is where "Keep" goes without JavaScript.
    An id selector (``#action-…``) stays on the question, which takes that element's place: "Yes"
    replaces the question with the answer, and "Keep" with that element as `back` shows it again.
    `columns`, when the element is a table row, is the row's width: the question then comes as a
    row itself (``<tr><td colspan>``), since a box is not allowed between rows.
    """
    context = {
        "question": question,
        "consequence": consequence,
        "action": action,
        "fields": sorted(fields.items()),
        "yes": yes,
        "back": back,
        "target": target,
        "element_id": target.removeprefix("#") if target.startswith("#") else "",
        "columns": columns,
        "confirmed": CONFIRMED,
    }
    if not request.htmx:
        return render(request, "confirm.html", context)
    return render(request, "partials/confirm_row.html" if columns else "partials/confirm.html", context)
