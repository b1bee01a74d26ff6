"""JSON API of the review queue: the decisions that lost their support and the questions the agent could not
answer."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Field, Router, Schema

from afterhack.schemas import PathId, errors
from agents.api.actions import ActionOut, action_out
from agents.api.decisions import DecisionOut, decision_out
from agents.selectors import decisions as decision_selectors
from workspaces.access import get_workspace_for_user

router = Router()


class ReviewOut(Schema):
    lost_support: list[DecisionOut] = Field(
        description="Decisions that lost their last support, not dismissed; the most recently flagged first, "
        f"at most {decision_selectors.REVIEW_LIMIT}."
    )
    unanswered: list[DecisionOut] = Field(
        description="Questions the agent found no source-backed answer to, not dismissed; newest first, "
        f"at most {decision_selectors.REVIEW_LIMIT}."
    )
    acted_on: list[ActionOut] = Field(
        description="Done actions that rested on a decision that lost its support, their follow_up needed: plan a "
        "follow-up or say none is needed (POST …/actions/{id}/follow-up); the most recently flagged first, "
        f"at most {decision_selectors.REVIEW_LIMIT}."
    )


# The operation ids are those the API had as one module, agents/api.py (ninja would derive them from the module).


@router.get("/{ws_id}/review", response={200: ReviewOut, **errors(401, 404, 503)}, operation_id="agents_api_review")
def review(request: HttpRequest, ws_id: PathId) -> Any:
    """What waits for a reviewer: decisions that lost their support, questions the agent could not answer, and
    done actions that need a follow-up (each list at most 200 long, the most recently flagged first; dismissed ones are left out).
    GET /decisions?status=needs_review pages through all decisions needing review."""
    workspace = get_workspace_for_user(request.user, ws_id)
    queue = decision_selectors.review(workspace=workspace)
    return {
        "lost_support": [decision_out(d) for d in queue.lost_support],
        "unanswered": [decision_out(d) for d in queue.unanswered],
        "acted_on": [action_out(a) for a in queue.acted_on],
    }
