"""What belief maintenance shows on other apps' pages: why a claim stopped holding.

The claim page belongs to `claims`, which sits below `corrections` and never imports it; its template
composes this section instead (`{% load beliefs %}{% claim_fate claim %}`), so the page shows what only
this app knows while the Python layers keep importing downward only.
"""

from __future__ import annotations

from typing import Any, cast

from django import template

from claims.selectors import Claim
from corrections import selectors

register = template.Library()


@register.inclusion_tag("corrections/partials/claim_fate.html", takes_context=True)
def claim_fate(context: template.Context, claim: Claim, offer_correct: bool = False) -> dict[str, Any]:
    """Why `claim` no longer holds (corrected or retracted, by whom, when, for what); nothing for a claim that holds."""
    fate = selectors.claim_fate(workspace=context["workspace"], claim=claim)
    # The whole page context (the workspace, the member's rights, the named statuses) plus the section's own.
    page = cast(dict[str, Any], context.flatten())
    return {**page, "fate": fate, "offer_correct": offer_correct}
