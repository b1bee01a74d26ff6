"""What the agents app shows on a lower app's page: the decisions resting on a claim, with their actions.

The claim page belongs to `claims`, which never imports `agents`; its template composes this section
(`{% load rests_on %}{% what_rests_on provenance.dependents %}`), as it does corrections' `claim_fate`.
"""

from __future__ import annotations

from typing import Any

from django import template

from afterhack.as_of import Moment
from agents.selectors import decisions as decision_selectors
from claims.selectors.provenance import Dependent

register = template.Library()


@register.inclusion_tag("agents/partials/rests_on.html", takes_context=True)
def what_rests_on(context: template.Context, dependents: list[Dependent], claim_id: str = "") -> dict[str, Any]:
    """The derived claims and decisions resting on a claim, each decision with the actions under it (two queries).
    On a page in the past (`as_of`, afterhack/as_of.py), what rested on the claim `claim_id` then, with the
    statuses then, its links staying in the past; `rows` None when there was too much to rewind."""
    workspace = context["workspace"]
    as_of = context.get("as_of")
    if isinstance(as_of, Moment) and as_of.past:
        then = decision_selectors.rests_on_then(
            workspace=workspace, claim_id=claim_id, dependents=dependents, as_of=as_of.at
        )
        return {"workspace": workspace, "rows": then, "as_of": as_of, "request": context.get("request")}
    decisions = decision_selectors.decisions_get(
        workspace=workspace, decision_ids=[d.id for d in dependents if d.label == "Decision"]
    )
    actions = decision_selectors.actions_by_decision(workspace=workspace, decisions=decisions)
    under = {decision.id: actions[decision.id] for decision in decisions}
    rows = [(dependent, under.get(dependent.id, [])) for dependent in dependents]
    return {"workspace": workspace, "rows": rows}
