"""What a correction would do: its preview (one graph read: the claim, what rests on it, the revision), and the
remaining supports that restate what it corrects. Apply (apply.py) recomputes it before it writes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from afterhack.errors import Conflict, UserError
from claims.selectors.claims import Claim
from claims.selectors.search import content_words
from claims.services.claims import ClaimNotFound, clean_statement
from claims.statuses import ClaimStatus
from claims.text import same_statement
from corrections.graph import subgraph as subgraph_graph
from corrections.propagation import DECISION, Impact, impact
from workspaces.models import Workspace


class ClaimNotCurrent(Conflict):
    code = "claim_not_current"


class StalePreview(Conflict):
    code = "stale_correction_preview"

    def __init__(self, revision: int) -> None:
        super().__init__(
            "Something this correction depends on changed since the preview (a decision, action or claim "
            f"resting on it); preview it again (now revision {revision})."
        )
        self.extra = {"revision": revision}


@dataclass(frozen=True)
class Preview:
    claim: Claim
    # What the client sends back (the API's `revision`): a fingerprint of everything this correction depends on.
    fingerprint: int
    impact: Impact
    # The workspace graph's counter when it was read: the write's compare-and-set.
    graph_revision: int
    # The statement previewed, as it will be stored.
    statement: str = ""
    # Remaining supports of still-supported decisions that say what is being corrected.
    restating: list[str] = field(default_factory=list)
    # The titles (a claim's statement) of what the impact names, as read with it.
    titles: dict[str, str] = field(default_factory=dict)

    def snapshot(self) -> dict[str, Any]:
        """The impact as it stands now, with titles and what keeps each still-supported decision up: what the
        audit trail keeps, so the correction's page can show it as it was when applied, whatever happens later."""
        impact, titles = self.impact, self.titles

        def named(ids: list[str]) -> list[dict[str, str]]:
            return [{"id": i, "title": titles.get(i, "")} for i in ids]

        return {
            "decisions_needing_review": named(impact.decisions_needing_review),
            "decisions_still_supported": [
                {"id": i, "title": titles.get(i, ""), "by": named(impact.still_supported_by.get(i, []))}
                for i in impact.decisions_still_supported
            ],
            "actions_held": named(impact.actions_held),
            "claims_unsupported": named(impact.claims_unsupported),
            "actions_already_done": named(impact.actions_already_done),
            "restating": named(self.restating),
        }


def _not_current(status: str) -> ClaimNotCurrent:
    return ClaimNotCurrent(f"This claim is already {status}; only a current claim can be corrected.")


class UnchangedStatement(UserError):
    def __init__(self) -> None:
        super().__init__(
            "The corrected statement says the same as the claim: change what is wrong in it (a correction "
            "replaces the claim and flags what rests on it, so it must say something else)."
        )


def preview(*, workspace: Workspace, claim_id: str, statement: object) -> Preview:
    """Exactly what applying the correction would do now, and the revision (fingerprint) it depends on.

    One graph read: the claim, what rests on it, their justifications, the actions and the workspace's counter,
    in one query, so the picture is never mixed (a single query is atomic)."""
    return preview_read(workspace=workspace, claim_id=claim_id, statement=statement)[0]


def preview_read(*, workspace: Workspace, claim_id: str, statement: object) -> tuple[Preview, subgraph_graph.Subgraph]:
    """The preview and the subgraph it was computed from (the one graph read), for the page that also draws it."""
    statement = clean_statement(statement)
    read = subgraph_graph.correction_picture(workspace=workspace, claim_id=claim_id)
    if read is None:
        raise ClaimNotFound()
    claim, sub = read
    if claim.status != ClaimStatus.CURRENT:
        raise _not_current(claim.status)
    # Case, spacing and a final full stop do not make another statement (the page starts with the claim's own).
    if same_statement(statement) == same_statement(claim.statement):
        raise UnchangedStatement()
    policy = workspace.independent_sources
    result = impact(sub.nodes, sub.actions, roots=[claim.id], independent_sources=policy)
    fingerprint = sub.fingerprint(independent_sources=policy, statement=statement)
    flagged = restating(sub, result, corrected=claim, new=statement)
    return Preview(claim, fingerprint, result, sub.revision, statement, flagged, sub.titles), sub


def removed_words(old: str, new: str) -> set[str]:
    """The content words of the old statement that the new one lacks (case-insensitive, stop words ignored)."""
    return set(content_words(old)) - set(content_words(new))


def restating(sub: subgraph_graph.Subgraph, result: Impact, *, corrected: Claim, new: str) -> list[str]:
    """Current claims among the remaining supports of still-supported decisions that say what the correction removes.

    "June" → "July" flags "Northwind expects the launch in June": the decision it holds up may
    be right (the customer was told June), but a reviewer has to be shown it. Judged on the statuses and
    statements read with the subgraph (a claim's title is its statement): no other read.
    """
    removed = removed_words(corrected.statement, new)
    if not removed:
        return []
    return sorted(
        {
            antecedent
            for decision_id in result.decisions_still_supported
            for justification in sub.nodes[decision_id].justifications
            for antecedent in justification
            if (node := sub.nodes.get(antecedent)) is not None
            and node.kind != DECISION
            and node.status == ClaimStatus.CURRENT
            and antecedent != corrected.id
            and removed & set(content_words(sub.titles.get(antecedent, "")))
        }
    )
