"""A claim's because-chain (source, version, quote in context, premises, dependents) and the passage a
correction cited.
"""

from __future__ import annotations

from dataclasses import dataclass

from claims.graph import claims as claims_graph
from claims.graph import pickers as pickers_graph
from claims.graph import sources as sources_graph
from claims.graph.pickers import Dependent as Dependent
from claims.graph.shapes import CitedPassage, Claim
from claims.selectors.claims import claim_get, claims_as_of
from workspaces.models import Workspace


@dataclass(frozen=True)
class CitedView:
    """The passage a correction cited, with its source's title and the text around it, for the pages."""

    passage: CitedPassage
    title: str
    context_before: str
    context_after: str


@dataclass(frozen=True)
class Provenance:
    claim: Claim
    version: sources_graph.SourceVersion | None
    context_before: str
    context_after: str
    premises: list[Claim]
    dependents: list[pickers_graph.Dependent]
    cited: CitedView | None = None


CONTEXT_CHARS = 240


def cited_view(*, workspace: Workspace, claim: Claim | None) -> CitedView | None:
    """The passage a correction's replacement cites beside the correction, in the version it was cited in, or None."""
    passage = claim.cited_passage if claim else None
    if passage is None:
        return None
    version = sources_graph.version_get(workspace=workspace, version_id=passage.version_id)
    if version is None:
        return CitedView(passage, "its source", "", "")
    before = version.text[max(0, passage.start - CONTEXT_CHARS) : passage.start]
    return CitedView(passage, version.title, before, version.text[passage.end : passage.end + CONTEXT_CHARS])


def claim_provenance(*, workspace: Workspace, claim_id: str, as_of: str | None = None) -> Provenance | None:
    """The claim's because-chain: source, version, fragment and quote in context, premises, dependents.
    With `as_of` (a graph time): as it was then — its status, evidence (the version and quote it had then) and
    replacement then, its premises with their statuses then; what rests on it is what rests on it now (the page
    rewinds it: agents' `what_rests_on`). None when there is no such claim, or it did not exist yet then."""
    claim = claim_get(workspace=workspace, claim_id=claim_id, as_of=as_of)
    if claim is None:
        return None
    version = sources_graph.version_get(workspace=workspace, version_id=claim.version_id) if claim.version_id else None
    before = after = ""
    if version is not None and claim.start is not None and claim.end is not None:
        before = version.text[max(0, claim.start - CONTEXT_CHARS) : claim.start]
        after = version.text[claim.end : claim.end + CONTEXT_CHARS]
    premise_ids = [pid for justification in claim.derived_from for pid in justification]
    if as_of is not None:
        premises = claims_as_of(workspace=workspace, claim_ids=premise_ids, as_of=as_of) if premise_ids else []
    else:
        premises = claims_graph.claims_get(workspace=workspace, claim_ids=premise_ids)
    dependents = pickers_graph.claim_dependents(workspace=workspace, claim_id=claim_id)
    cited = cited_view(workspace=workspace, claim=claim)
    return Provenance(claim, version, before, after, premises, dependents, cited)
