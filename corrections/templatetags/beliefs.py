"""What belief maintenance shows on other apps' pages: why a claim stopped holding, and the suggested corrections
about a claim or by it.

The claim page belongs to `claims`, which sits below `corrections` and never imports it; its template
composes this section instead (`{% load beliefs %}{% claim_fate claim %}`), so the page shows what only
this app knows while the Python layers keep importing downward only.
"""

from __future__ import annotations

from typing import Any, cast

from django import template

from agents.selectors.decisions import Decision
from claims.selectors.claims import Claim
from corrections.selectors import corrections as corrections_selectors
from corrections.selectors import suggestion_history as suggestion_history_selectors

register = template.Library()


@register.inclusion_tag("corrections/partials/claim_fate.html", takes_context=True)
def claim_fate(context: template.Context, claim: Claim, offer_correct: bool = False) -> dict[str, Any]:
    """Why `claim` no longer holds (corrected or retracted, by whom, when, for what); nothing for a claim that holds."""
    fate = corrections_selectors.claim_fate(workspace=context["workspace"], claim=claim)
    # The whole page context (the workspace, the member's rights, the named statuses) plus the section's own.
    page = cast(dict[str, Any], context.flatten())
    return {**page, "fate": fate, "offer_correct": offer_correct}


@register.inclusion_tag("corrections/partials/decision_flag.html", takes_context=True)
def decision_flag(context: template.Context, decision: Decision) -> dict[str, Any]:
    """Which correction flagged `decision` (a link, who, when, what it changed), or its review reason in words."""
    found = corrections_selectors.corrections_get(
        workspace=context["workspace"], correction_ids=[decision.flagged_by or ""]
    )
    return {"workspace": context["workspace"], "decision": decision, "correction": found[0] if found else None}


@register.inclusion_tag("corrections/partials/replaces.html", takes_context=True)
def replaces(context: template.Context, claim: Claim) -> dict[str, Any]:
    """For a correction's replacement claim: the claim it replaces and the correction that made it (links)."""
    workspace = context["workspace"]
    made_by = [
        correction
        for correction in corrections_selectors.corrections_of_claim(workspace=workspace, claim_id=claim.id)
        if correction.replacement_claim_id == claim.id
    ]
    # The page's moment (afterhack/as_of.py): a page in the past links back in the past.
    as_of = context.get("as_of")
    return {"workspace": workspace, "claim": claim, "correction": made_by[0] if made_by else None, "as_of": as_of}


@register.inclusion_tag("corrections/partials/claim_suggestions.html", takes_context=True)
def claim_suggestions(context: template.Context, claim: Claim) -> dict[str, Any]:
    """The suggestions about `claim` and by it, as they stood at the page's moment (`as_of`), for its history."""
    as_of = context.get("as_of")
    at = str(getattr(as_of, "at", "") or "")
    found = suggestion_history_selectors.claim_suggestions(workspace=context["workspace"], claim_id=claim.id, as_of=at)
    # The whole page context (the workspace, the named statuses) plus the section's own.
    return {**cast(dict[str, Any], context.flatten()), "claim": claim, "found": found}
