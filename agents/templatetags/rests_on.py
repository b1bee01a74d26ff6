"""What the agents app shows on a lower app's page: the decisions resting on a claim, with their actions.

The claim page belongs to `claims`, which never imports `agents`; its template composes this section
(`{% load rests_on %}{% what_rests_on provenance.dependents %}`), as it does corrections' `claim_fate`.
"""

from __future__ import annotations

from typing import Any

from django import template

from agents import selectors
from claims.selectors import Dependent

register = template.Library()


@register.inclusion_tag("agents/partials/rests_on.html", takes_context=True)
def what_rests_on(context: template.Context, dependents: list[Dependent]) -> dict[str, Any]:
    """The derived claims and decisions resting on a claim, each decision with the actions under it (two queries)."""
    workspace = context["workspace"]
    decisions = selectors.decisions_get(
        workspace=workspace, decision_ids=[d.id for d in dependents if d.label == "Decision"]
    )
    actions = selectors.actions_by_decision(workspace=workspace, decisions=decisions)
    under = {decision.id: actions[decision.id] for decision in decisions}
    rows = [(dependent, under.get(dependent.id, [])) for dependent in dependents]
    return {"workspace": workspace, "rows": rows}
