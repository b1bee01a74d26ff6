"""The review queue's section "Claims proposed by agents" (templates/corrections/partials/proposed_claims.html): its
items are read here, so the queue's own view needs nothing for it; its template reads them once
(`{% proposed_claims as proposed %}`), for the section and for whether anything at all waits."""

from __future__ import annotations

from typing import Any

from django import template

from corrections.selectors import suggestions as suggestions_selectors
from corrections.statuses import SuggestionKind, SuggestionStatus

register = template.Library()

# How many waiting claims the section lists (newest first); the bulk form decides at most these.
PROPOSED_LIMIT = 100


@register.simple_tag(takes_context=True)
def proposed_claims(context: template.Context) -> dict[str, Any]:
    """The open agent_claim suggestions of the page's workspace, newest first (at most PROPOSED_LIMIT), and how
    many there are."""
    page = suggestions_selectors.suggestions_page(
        workspace=context["workspace"], status=SuggestionStatus.OPEN, kind=SuggestionKind.AGENT_CLAIM,
        limit=PROPOSED_LIMIT, cursor=None,
    )  # fmt: skip
    return {"items": page.items, "count": page.count, "limit": PROPOSED_LIMIT}
