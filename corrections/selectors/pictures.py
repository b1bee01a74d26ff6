"""Pictures of a claim's because-chain and of a correction's impact (corrections/picture.py draws nothing itself;
these read what it needs)."""

from __future__ import annotations

from typing import Any

from agents.selectors import decisions as agents_selectors
from claims.selectors import claims as claims_selectors
from claims.selectors import provenance as provenance_selectors
from claims.selectors import sources as sources_selectors
from claims.selectors.claims import Claim
from claims.statuses import ClaimStatus
from corrections.graph import subgraph as subgraph_graph
from corrections.graph.corrections import Correction
from corrections.picture import Drawn, EdgeKind, NodeKind, Picture
from corrections.propagation import DECISION
from workspaces.models import Workspace


def chain_picture(
    *, workspace: Workspace, claim: Claim, source: dict[str, Any] | None, corrections: list[dict[str, Any]]
) -> Drawn:
    """The claim's because-chain as a picture: its source (or premises, or correction), the claim, what rests on
    it (derived claims, decisions, actions) and what replaced it, each with its status now."""
    picture = Picture(str(workspace.id), claim.id)
    sub = subgraph_graph.subgraph(workspace=workspace, roots=[claim.id])
    downstream = [n for n in sub.nodes.values() if n.expanded and n.id != claim.id]
    premises = [i for group in claim.derived_from for i in group]
    related = [i for x in corrections for i in (x["claim_id"], x["replacement_claim_id"])]
    claims = _claims_by_id(workspace, [n.id for n in downstream if n.kind != DECISION] + premises + related)
    if source:
        picture.node(node_id=source["id"], kind=NodeKind.SOURCE, text=source["title"], status=source["status"])
        picture.edge(source=source["id"], target=claim.id, kind=EdgeKind.CITES)
    for premise in premises:
        _claim_node(picture, claims.get(premise))
        picture.edge(source=premise, target=claim.id, kind=EdgeKind.DERIVED_FROM)
    _correction_nodes(workspace, picture, claim, corrections, claims)
    _claim_node(picture, claim)
    _downstream(workspace, picture, sub, claims, status_of=lambda node_id, status: status)
    return picture.drawn(what="the because-chain of this claim")


def _claims_by_id(workspace: Workspace, claim_ids: list[str]) -> dict[str, Claim]:
    unique = list(dict.fromkeys(claim_ids))
    return {c.id: c for c in claims_selectors.claims_by_ids(workspace=workspace, claim_ids=unique)} if unique else {}


def _claim_node(picture: Picture, claim: Claim | None, status: str | None = None) -> None:
    if claim is not None:
        picture.node(node_id=claim.id, kind=NodeKind.CLAIM, text=claim.statement, status=status or claim.status)


def _correction_nodes(
    workspace: Workspace, picture: Picture, claim: Claim, corrections: list[dict[str, Any]], claims: dict[str, Claim]
) -> None:
    """The corrections of the claim (its replacement, cited by the correction) or the one it replaced."""
    for correction in corrections:
        old, new = correction["claim_id"], correction["replacement_claim_id"]
        if old != claim.id:
            _claim_node(picture, claims.get(old))
        picture.node(node_id=correction["id"], kind=NodeKind.CORRECTION, text=correction["reason"],
                     status="applied")  # fmt: skip
        if new == claim.id:
            _cited_source(workspace, picture, claim)
        _claim_node(picture, claims.get(new))
        picture.edge(source=old, target=new, kind=EdgeKind.SUPERSEDED_BY)
        picture.edge(source=correction["id"], target=new, kind=EdgeKind.CITES)


def _cited_source(workspace: Workspace, picture: Picture, replacement: Claim) -> None:
    cited = provenance_selectors.cited_view(workspace=workspace, claim=replacement)
    if cited is not None:
        source_id = cited.passage.source_id
        picture.node(node_id=source_id, kind=NodeKind.SOURCE, text=cited.title, status="cited")
        picture.edge(source=source_id, target=replacement.id, kind=EdgeKind.CITES)


def _downstream(
    workspace: Workspace,
    picture: Picture,
    sub: subgraph_graph.Subgraph,
    claims: dict[str, Claim],
    *,
    status_of: Any,
    keep: Any = lambda node_id: True,
) -> None:
    """What rests on the root, layer by layer as the graph read it, with each node's status from `status_of`."""
    downstream = [n for n in sub.nodes.values() if n.expanded and n.id not in picture.nodes and keep(n.id)]
    decisions = {
        d.id: d
        for d in agents_selectors.decisions_get(
            workspace=workspace, decision_ids=[n.id for n in downstream if n.kind == DECISION]
        )
    }
    for node in downstream:
        if node.kind == DECISION and (decision := decisions.get(node.id)):
            picture.node(node_id=node.id, kind=NodeKind.DECISION, text=decision.title,
                         status=status_of(node.id, decision.status))  # fmt: skip
        elif node.kind != DECISION:
            _claim_node(picture, claims.get(node.id), status_of(node.id, node.status))
    for node in downstream:
        kind = EdgeKind.SUPPORTS if node.kind == DECISION else EdgeKind.DERIVED_FROM
        for antecedent in {a for group in node.justifications for a in group}:
            if antecedent in picture.nodes:
                picture.edge(source=antecedent, target=node.id, kind=kind)
    _actions(workspace, picture, [a.id for a in sub.actions if keep(a.id)], status_of)


def _actions(workspace: Workspace, picture: Picture, action_ids: list[str], status_of: Any) -> None:
    for action in agents_selectors.actions_get(workspace=workspace, action_ids=action_ids) if action_ids else []:
        on = [d for d in action.decision_ids if d in picture.nodes]
        picture.node(
            node_id=action.id, kind=NodeKind.ACTION, text=action.title, status=status_of(action.id, action.status)
        )
        for decision_id in on:
            picture.edge(source=decision_id, target=action.id, kind=EdgeKind.LEADS_TO)


# The replacement a preview would create has no id yet: its node is named by this instead.
PROPOSED = "proposed-replacement"
# The replacement a preview would write: a status of the picture only (an agent's claim awaiting approval is
# `proposed`, a claim status of its own).
REPLACEMENT = "replacement"
# A done action the correction marks (or marked) as needing a follow-up: a status of the picture only (the action
# stays done; its follow-up is a field of its own).
FOLLOW_UP_NEEDED = "follow_up_needed"


def impact_picture(
    *,
    workspace: Workspace,
    claim: Claim,
    affected: dict[str, list[str]],
    still_supported_by: dict[str, list[str]] | None = None,
    statement: str = "",
    correction: Correction | None = None,
    linked: bool = True,
    sub: subgraph_graph.Subgraph | None = None,
) -> Drawn:
    """A correction's impact as a picture, each node coloured by the status the correction gives it (or gave it,
    once applied): the corrected claim and its source, its replacement, the derived claims and decisions
    downstream, the held actions, the done actions that need a follow-up, and (in a preview) what keeps each still-supported decision up. `sub` is what
    rests on the claim when the caller read it already (a preview), so it is not read again."""
    picture = Picture(str(workspace.id), claim.id, linked=linked)
    unsupported, reviewed = (
        set(affected.get("claims_unsupported", [])),
        set(affected.get("decisions_needing_review", [])),
    )
    decisions = reviewed | set(affected.get("decisions_still_supported", []))
    held = set(affected.get("actions_held", []))
    done = set(affected.get("actions_already_done", []))
    if sub is None:
        sub = subgraph_graph.subgraph(workspace=workspace, roots=[claim.id])
    if claim.source_id and (version := sources_selectors.source_get(workspace=workspace, source_id=claim.source_id)):
        picture.node(node_id=claim.source_id, kind=NodeKind.SOURCE, text=version.title, status=version.status)
        picture.edge(source=claim.source_id, target=claim.id, kind=EdgeKind.CITES)
    _claim_node(picture, claim, ClaimStatus.SUPERSEDED)
    _replacement(picture, claim, statement, correction)
    alternatives = [i for ids in (still_supported_by or {}).values() for i in ids]
    claims = _claims_by_id(workspace, [n.id for n in sub.nodes.values() if n.kind != DECISION] + alternatives)
    applied_at = correction.applied_at if correction else None

    def keep(node_id: str) -> bool:
        # A decision or action outside the impact came later (or was not touched); a derived claim
        # made after the correction was applied was not there.
        node = sub.nodes.get(node_id)
        if node is None or node.kind == DECISION:
            return node_id in decisions or node_id in held or node_id in done
        made = claims[node_id].created_at if node_id in claims else None
        return node_id in unsupported or applied_at is None or (made is not None and made <= applied_at)

    def status_of(node_id: str, status: str) -> str:
        if node_id in sub.nodes and sub.nodes[node_id].kind == DECISION:
            return "needs_review" if node_id in reviewed else "supported"
        if node_id in held:
            return "held"
        if node_id in done:
            return FOLLOW_UP_NEEDED
        return ClaimStatus.UNSUPPORTED if node_id in unsupported else ClaimStatus.CURRENT

    _downstream(workspace, picture, sub, claims, status_of=status_of, keep=keep)
    _reached_then(workspace, picture, claim, decisions, held | done, status_of)
    _alternatives(workspace, picture, still_supported_by or {}, claims)
    return picture.drawn(what="what this correction " + ("did" if correction else "would do"))


def _replacement(picture: Picture, claim: Claim, statement: str, correction: Correction | None) -> None:
    if correction is None:
        picture.node(node_id=PROPOSED, kind=NodeKind.CLAIM, text=statement, status=REPLACEMENT)
        picture.nodes[PROPOSED]["href"] = None
        picture.edge(source=claim.id, target=PROPOSED, kind=EdgeKind.SUPERSEDED_BY)
        return
    picture.node(node_id=correction.id, kind=NodeKind.CORRECTION, text=correction.reason, status="applied")
    new = correction.replacement_claim_id
    picture.node(node_id=new, kind=NodeKind.CLAIM, text=correction.statement, status=ClaimStatus.CURRENT)
    picture.edge(source=claim.id, target=new, kind=EdgeKind.SUPERSEDED_BY)
    picture.edge(source=correction.id, target=new, kind=EdgeKind.CITES)


def _reached_then(
    workspace: Workspace, picture: Picture, claim: Claim, decisions: set[str], actions: set[str], status_of: Any
) -> None:
    """What the correction reached that no longer rests on the claim by a stored edge (re-justified, revised or
    moved since): drawn from the claim, so the picture still names everything the correction touched."""
    missing = [d for d in decisions if d not in picture.nodes]
    for decision in agents_selectors.decisions_get(workspace=workspace, decision_ids=missing) if missing else []:
        picture.node(node_id=decision.id, kind=NodeKind.DECISION, text=decision.title,
                     status=status_of(decision.id, decision.status))  # fmt: skip
    _actions(workspace, picture, [a for a in actions if a not in picture.nodes], status_of)
    for node_id in [*missing, *actions]:
        if node_id in picture.nodes and not picture.has_incoming(node_id):
            picture.edge(source=claim.id, target=node_id, kind=EdgeKind.RESTED_ON)


def _alternatives(
    workspace: Workspace, picture: Picture, still_supported_by: dict[str, list[str]], claims: dict[str, Claim]
) -> None:
    """What keeps each still-supported decision up: the claims (or decisions) of its remaining justification."""
    others = [i for ids in still_supported_by.values() for i in ids if i not in claims]
    titles = (
        {d.id: d for d in agents_selectors.decisions_get(workspace=workspace, decision_ids=others)} if others else {}
    )
    for decision_id, support_ids in still_supported_by.items():
        for support_id in support_ids:
            if (decision := titles.get(support_id)) is not None:
                picture.node(node_id=support_id, kind=NodeKind.DECISION, text=decision.title, status=decision.status)
            else:
                _claim_node(picture, claims.get(support_id))
            picture.edge(source=support_id, target=decision_id, kind=EdgeKind.SUPPORTS)
