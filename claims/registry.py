"""What an app above registers with claims: how a claim an agent proposes gets its review.

Where a workspace asks for approval of agents' claims, a claim an agent proposes is stored `proposed`, and the app
that reviews proposed claims (corrections: an `agent_claim` suggestion, docs/suggestions.md) writes its review in the
same query, so a proposed claim is never stored without it. Claims names none of that app's labels: the app registers
its clause here (in its `AppConfig.ready()`), and claims/graph/claims.py runs it for each claim the write creates.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ProposedClaimReview:
    """The review written beside each proposed claim: `clause`, the body of a Cypher `CALL { ... }` run once for each
    claim the write creates as proposed (it reads `c`, the new Claim; `row.review_id`, a fresh id for the review;
    `$now` and `$created_by`) and returning nothing; `params`, the parameters it names besides those (named apart
    from claims' own: prefixed `review_`)."""

    clause: str
    params: Mapping[str, Any] = field(default_factory=dict)


class NoReviewRegistered(RuntimeError):
    """A claim was to be stored `proposed`, but no installed app reviews proposed claims."""


_REVIEW: list[ProposedClaimReview] = []


def register_proposed_review(review: ProposedClaimReview) -> None:
    """Registers how proposed claims get their review (one app may; registering the same again changes nothing)."""
    if _REVIEW and _REVIEW[0] != review:
        raise ValueError("another app already reviews proposed claims")
    _REVIEW[:] = [review]


def proposed_review() -> ProposedClaimReview:
    """The registered review of proposed claims; raises NoReviewRegistered when no app registered one."""
    if not _REVIEW:
        raise NoReviewRegistered("no installed app reviews proposed claims, so none can be stored proposed")
    return _REVIEW[0]
