"""Reads of the corrections app: the workspace's corrections (a page at a time, filtered, or by id), a claim's
chain (and its picture), a correction's impact as a picture, and what happened to a claim."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from django.db.models import QuerySet

from afterhack import history_graph
from afterhack.errors import UserError
from afterhack.history_graph import CAUSES as CAUSES
from afterhack.history_graph import KINDS as KINDS
from afterhack.history_graph import Change as Change
from afterhack.ids import parse_id
from afterhack.listing import Criteria
from afterhack.pagination import Paged, page_of, workspace_page
from agents import selectors as agents_selectors
from claims import selectors as claims_selectors
from claims.selectors import Claim
from claims.statuses import ClaimStatus
from corrections import disclosure, prov, prov_graph, timeline_graph
from corrections import graph as corrections_graph
from corrections.graph import MAX_REVISION as MAX_REVISION
from corrections.graph import Chain as Chain
from corrections.graph import Correction as Correction
from corrections.graph import CorrectionOutline as CorrectionOutline
from corrections.picture import Drawn, EdgeKind, NodeKind, Picture
from corrections.propagation import DECISION
from corrections.prov import ProvFormat as ProvFormat
from workspaces import selectors as workspace_selectors
from workspaces.models import AuditEvent, Workspace

# The shapes these reads return (and the largest revision a preview hands out) are re-exported above (`X as X`),
# so pages and API modules name them without a graph.py.


def corrections_page(*, workspace: Workspace, limit: int, cursor: str | None) -> Paged[corrections_graph.Correction]:
    """A page of the workspace's corrections, newest first."""
    return workspace_page(
        "corrections", workspace=workspace, cursor=cursor, limit=limit,
        read=corrections_graph.correction_list, count=corrections_graph.correction_count,
        position=lambda correction: [correction.applied_at, correction.id],
    )  # fmt: skip


@dataclass(frozen=True)
class Fate:
    """What happened to a claim that no longer holds: when, who, why, and (after a correction) what replaced it."""

    status: str
    when: str | None
    who: str | None
    why: str
    correction: corrections_graph.Correction | None = None
    replacement: Claim | None = None
    source_id: str | None = None


def claim_fate(*, workspace: Workspace, claim: Claim) -> Fate | None:
    """Why a superseded or retracted claim stopped holding, for its pages; None for a claim that holds."""
    if claim.status == ClaimStatus.SUPERSEDED:
        return _superseded(workspace, claim)
    if claim.status == ClaimStatus.RETRACTED:
        return _retracted(workspace, claim)
    return None


def _superseded(workspace: Workspace, claim: Claim) -> Fate:
    found = corrections_graph.correction_list(workspace=workspace, claim_id=claim.id, limit=10)
    correction = next((c for c in found if c.claim_id == claim.id), None)
    if correction is None:
        return Fate(claim.status, claim.status_changed_at, None, "It was replaced by a correction.")
    replacement = claims_selectors.claim_get(workspace=workspace, claim_id=correction.replacement_claim_id)
    return Fate(claim.status, correction.applied_at, correction.actor, correction.reason, correction, replacement)


def _retracted(workspace: Workspace, claim: Claim) -> Fate:
    # The graph keeps that the claim was retracted and when; who did it, and to which version,
    # is in the audit trail (the event lists the claims it retracted).
    verb = "source.versioned" if claim.retraction == "quote_vanished" else "source.retracted"
    event = (
        AuditEvent.objects.filter(workspace=workspace, verb=verb, payload__retracted__contains=[claim.id])
        .order_by("-created_at", "-id")
        .first()
    )
    title = event.target if event else "its source"
    if verb == "source.versioned":
        version = event.payload.get("version") if event else None
        why = f"Its quote is no longer in {f'version {version}' if version else 'the newer version'} of “{title}”."
    else:
        why = f"Its source “{title}” was retracted."
    return Fate(
        claim.status,
        event.created_at.isoformat() if event else claim.status_changed_at,
        event.actor_name if event else None,
        why,
        source_id=claim.source_id,
    )


def _applied_event(workspace: Workspace, correction_id: str) -> QuerySet[AuditEvent]:
    return AuditEvent.objects.filter(
        workspace=workspace, verb="correction.applied", payload__correction_id=correction_id
    ).order_by("created_at", "id")


def applied_impact(*, workspace: Workspace, correction_id: str) -> dict[str, Any] | None:
    """The impact a correction had when it was applied, with the titles as they were (kept by its audit event);
    None for a correction applied (or recovered) before the audit trail kept it."""
    event = _applied_event(workspace, correction_id).first()
    impact = event.payload.get("impact") if event else None
    return impact if isinstance(impact, dict) else None


def applied_impact_outline(*, workspace: Workspace, correction_id: str) -> dict[str, Any] | None:
    """`applied_impact` as staff who may not read the workspace read it (workspaces/disclosure.py): what the
    correction touched, by title, and the ids alone of the decisions it left standing and of the supports that
    restated it, read so: their titles never leave the database."""
    read = _applied_event(workspace, correction_id).values(**disclosure.impact_columns()).first()
    row: dict[str, Any] = dict(read or {})
    if row.pop("impact_type", None) != "object":
        return None
    return {key: value for key, value in row.items() if value is not None}


def correction_get(*, workspace: Workspace, correction_id: str) -> corrections_graph.Correction | None:
    """One correction with what it corrected, or None."""
    return corrections_graph.correction_get(workspace=workspace, correction_id=correction_id)


def correction_outline(*, workspace: Workspace, correction_id: str) -> CorrectionOutline | None:
    """One correction as staff who may not read its workspace read it (no quote, no source), or None."""
    return corrections_graph.correction_outline_get(workspace=workspace, correction_id=correction_id)


def corrections_get(*, workspace: Workspace, correction_ids: list[str]) -> list[corrections_graph.Correction]:
    """The corrections with these ids that exist, in the order given (one query for all of them)."""
    return corrections_graph.corrections_get(workspace=workspace, correction_ids=correction_ids)


def corrections_of_claim(*, workspace: Workspace, claim_id: str) -> list[corrections_graph.Correction]:
    """The corrections of this claim (as the old claim or as the replacement), newest first."""
    return corrections_graph.correction_list(workspace=workspace, claim_id=claim_id)


def history_filters(criteria: Criteria) -> corrections_graph.CorrectionFilters:
    """The history's filters as the graph reads them: the person as part of a username (any case) or of a full
    name, the claim id ('' when it is not one), whole UTC days from `since` through `until`, and the impact."""
    person = criteria.get("actor").lower()
    until = criteria.get("until")
    # Up to the end of that day; the last day there is has no end to stop at.
    end = date.fromisoformat(until) + timedelta(days=1) if until and until < date.max.isoformat() else None
    return corrections_graph.CorrectionFilters(
        actor=person,
        actors=tuple(workspace_selectors.usernames_named(words=person)) if person else (),
        claim_id=parse_id(criteria.get("claim")) or "",
        since=criteria.get("since"),
        until=end.isoformat() if end else "",
        impact=criteria.get("kind"),
    )


def history_page(*, workspace: Workspace, criteria: Criteria, offset: int, limit: int) -> list[Correction]:
    """One page of the corrections the history's criteria select, in their sort."""
    return corrections_graph.correction_page(
        workspace=workspace, filters=history_filters(criteria), sort=criteria.sort,
        descending=criteria.descending, offset=offset, limit=limit,
    )  # fmt: skip


def history_count(*, workspace: Workspace, criteria: Criteria) -> int:
    """How many corrections the history's criteria select."""
    return corrections_graph.correction_count(workspace=workspace, filters=history_filters(criteria))


def claim_chain(*, workspace: Workspace, claim_id: str) -> Chain | None:
    """Where the claim comes from, what rests on it (derived claims, decisions, actions), and its corrections;
    None for no such claim."""
    return corrections_graph.claim_chain(workspace=workspace, claim_id=claim_id)


# -- pictures (corrections/picture.py draws nothing itself; these read what it needs) -------------------------


def chain_picture(
    *, workspace: Workspace, claim: Claim, source: dict[str, Any] | None, corrections: list[dict[str, Any]]
) -> Drawn:
    """The claim's because-chain as a picture: its source (or premises, or correction), the claim, what rests on
    it (derived claims, decisions, actions) and what replaced it, each with its status now."""
    picture = Picture(str(workspace.id), claim.id)
    sub = corrections_graph.subgraph(workspace=workspace, roots=[claim.id])
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
    cited = claims_selectors.cited_view(workspace=workspace, claim=replacement)
    if cited is not None:
        source_id = cited.passage.source_id
        picture.node(node_id=source_id, kind=NodeKind.SOURCE, text=cited.title, status="cited")
        picture.edge(source=source_id, target=replacement.id, kind=EdgeKind.CITES)


def _downstream(
    workspace: Workspace,
    picture: Picture,
    sub: corrections_graph.Subgraph,
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


def impact_picture(
    *,
    workspace: Workspace,
    claim: Claim,
    affected: dict[str, list[str]],
    still_supported_by: dict[str, list[str]] | None = None,
    statement: str = "",
    correction: Correction | None = None,
    linked: bool = True,
) -> Drawn:
    """A correction's impact as a picture, each node coloured by the status the correction gives it (or gave it,
    once applied): the corrected claim and its source, its replacement, the derived claims and decisions
    downstream, the held actions, and (in a preview) what keeps each still-supported decision up."""
    picture = Picture(str(workspace.id), claim.id, linked=linked)
    unsupported, reviewed = (
        set(affected.get("claims_unsupported", [])),
        set(affected.get("decisions_needing_review", [])),
    )
    decisions = reviewed | set(affected.get("decisions_still_supported", []))
    held = set(affected.get("actions_held", []))
    sub = corrections_graph.subgraph(workspace=workspace, roots=[claim.id])
    if claim.source_id and (version := claims_selectors.source_get(workspace=workspace, source_id=claim.source_id)):
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
            return node_id in decisions or node_id in held
        made = claims[node_id].created_at if node_id in claims else None
        return node_id in unsupported or applied_at is None or (made is not None and made <= applied_at)

    def status_of(node_id: str, status: str) -> str:
        if node_id in sub.nodes and sub.nodes[node_id].kind == DECISION:
            return "needs_review" if node_id in reviewed else "supported"
        if node_id in held:
            return "held"
        return ClaimStatus.UNSUPPORTED if node_id in unsupported else ClaimStatus.CURRENT

    _downstream(workspace, picture, sub, claims, status_of=status_of, keep=keep)
    _reached_then(workspace, picture, claim, decisions, held, status_of)
    _alternatives(workspace, picture, still_supported_by or {}, claims)
    return picture.drawn(what="what this correction " + ("did" if correction else "would do"))


def _replacement(picture: Picture, claim: Claim, statement: str, correction: Correction | None) -> None:
    if correction is None:
        picture.node(node_id=PROPOSED, kind=NodeKind.CLAIM, text=statement, status="proposed")
        picture.nodes[PROPOSED]["href"] = None
        picture.edge(source=claim.id, target=PROPOSED, kind=EdgeKind.SUPERSEDED_BY)
        return
    picture.node(node_id=correction.id, kind=NodeKind.CORRECTION, text=correction.reason, status="applied")
    new = correction.replacement_claim_id
    picture.node(node_id=new, kind=NodeKind.CLAIM, text=correction.statement, status=ClaimStatus.CURRENT)
    picture.edge(source=claim.id, target=new, kind=EdgeKind.SUPERSEDED_BY)
    picture.edge(source=correction.id, target=new, kind=EdgeKind.CITES)


def _reached_then(
    workspace: Workspace, picture: Picture, claim: Claim, decisions: set[str], held: set[str], status_of: Any
) -> None:
    """What the correction reached that no longer rests on the claim by a stored edge (re-justified, revised or
    moved since): drawn from the claim, so the picture still names everything the correction touched."""
    missing = [d for d in decisions if d not in picture.nodes]
    for decision in agents_selectors.decisions_get(workspace=workspace, decision_ids=missing) if missing else []:
        picture.node(node_id=decision.id, kind=NodeKind.DECISION, text=decision.title,
                     status=status_of(decision.id, decision.status))  # fmt: skip
    _actions(workspace, picture, [a for a in held if a not in picture.nodes], status_of)
    for node_id in [*missing, *held]:
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


# -- the W3C PROV export (docs/prov.md) ------------------------------------------------------------------------


@dataclass(frozen=True)
class ProvExport:
    """An export ready to answer: its text, its media type and a file name for a download."""

    text: str
    content_type: str
    filename: str


def prov_export(*, workspace: Workspace, root: str | None, form: prov.ProvFormat) -> ProvExport:
    """The root's because-chain (a claim or a decision of the workspace), or the whole workspace without a root, as
    W3C PROV in `form`. UserError (422) for a root that is not a claim or decision here, or for an export above
    prov.MAX_PROV_NODES nodes."""
    root_id = parse_id(root) if root else None
    if root and root_id is None:
        raise UserError(
            f"“root” must be the id of a claim or a decision of this workspace; {root[:40]!r} is not an id."
        )
    count = prov_graph.prov_node_count(workspace=workspace)
    if count > prov.MAX_PROV_NODES:
        # A root's chain is cut from a read of the whole workspace (docs/prov.md), so the cap holds for it too.
        instead = (
            "the export of one chain is read from the whole workspace, so it is refused too until chains are cut in "
            "the graph (docs/prov.md)."
            if root_id
            else "export the because-chain of a claim or a decision instead (give “root”)."
        )
        raise UserError(
            f"This workspace has {count:,} nodes to export, more than the {prov.MAX_PROV_NODES:,} one export may hold: "
            + instead
        )
    subgraph = prov_graph.prov_graph(workspace=workspace)
    if root_id is not None:
        node = subgraph.nodes.get(root_id)
        if node is None or node["label"] not in ("Claim", "Decision"):
            raise UserError("“root” must be the id of a claim or a decision of this workspace; there is none with it.")
        subgraph = prov.chain_of(subgraph, root_id)
    text = prov.serialized(prov.document_of(subgraph, workspace_id=str(workspace.id)), form)
    name = f"afterhack-prov-{root_id or workspace.id}.{prov.FILE_SUFFIXES[form]}"
    return ProvExport(text, prov.CONTENT_TYPES[form], name)


# -- history (docs/history.md) --------------------------------------------------------------------------


def changes_between(*, workspace: Workspace, start: str = "", end: str = "", limit: int = 200) -> list[Change]:
    """The changes of belief recorded with start <= at < end (ISO 8601 UTC; '' for open), oldest first.

    The first `limit` only: `changes_page` pages through them all."""
    return history_graph.changes(workspace=workspace, start=start, end=end, limit=limit)


def changes_page(
    *, workspace: Workspace, start: str = "", end: str = "", limit: int, cursor: str | None
) -> Paged[Change]:
    """A page of the changes of belief with start <= at < end (moments as afterhack.clock.moment_iso gives them;
    '' for an open end), oldest first; one write's changes (one `at`) by kind, then id. The cursor is the
    (at, kind, id) of the last change given out, for this window only. UserError when start is after end."""
    if start and end and start > end:
        raise UserError("“from” must not be after “to”: the changes listed are those from “from” up to “to”.")
    return page_of(
        scope=f"changes:{workspace.id}:{start}:{end}", cursor=cursor, limit=limit,
        read=lambda after, n: history_graph.changes(
            workspace=workspace, start=start, end=end, limit=n, after=(after[0], after[1], after[2]) if after else None
        ),
        count=lambda: history_graph.changes_count(workspace=workspace, start=start, end=end),
        position=lambda change: [change.at, change.kind, change.id],
    )  # fmt: skip


# -- the timeline and the diff between two moments (docs/history.md) ----------------------------------------------

# What a change is of, and what caused it, for the pages' filters (views name no graph module).
CHANGE_KINDS = history_graph.KINDS
CLAIM, DECISION_KIND, ACTION = history_graph.CLAIM, history_graph.DECISION, history_graph.ACTION
CORRECTION, RETRACTION, NEW_VERSION = history_graph.CORRECTION, history_graph.RETRACTION, history_graph.NEW_VERSION
REJUSTIFICATION, REVISION, DISMISSAL = history_graph.REJUSTIFICATION, history_graph.REVISION, history_graph.DISMISSAL
AGENT_RUN, PERSON, MIGRATION = history_graph.AGENT_RUN, history_graph.PERSON, history_graph.MIGRATION


@dataclass(frozen=True)
class Named:
    """What a change's cause names, as the pages say it: a correction's statement, a source's title (with the
    version's number), a decision's title; `source_id` for a retraction or a new version."""

    title: str = ""
    reason: str = ""
    source_id: str = ""
    version: int | None = None


@dataclass(frozen=True)
class Step:
    """One recorded change of an item, with what its cause names (an empty Named when nothing is found)."""

    at: str
    kind: str
    id: str
    title: str
    from_status: str | None
    to_status: str
    cause: str
    cause_id: str | None
    actor: str | None
    migrated: bool
    named: Named


def timeline_filters(criteria: Criteria) -> timeline_graph.TimelineFilters:
    """The timeline's criteria as the graph reads them: the person as part of a username (any case) or of a full
    name; whole UTC days from `since` through `until`; the search in any case."""
    person = criteria.get("actor").lower()
    since, until = criteria.day_range("since", "until")
    return timeline_graph.TimelineFilters(
        kind=criteria.get("kind"), cause=criteria.get("cause"), actor=person,
        actors=tuple(workspace_selectors.usernames_named(words=person)) if person else (),
        since=since, until=until, q=criteria.q.lower(),
    )  # fmt: skip


def timeline_count(*, workspace: Workspace, criteria: Criteria) -> int:
    """How many recorded changes the timeline's criteria select."""
    return timeline_graph.timeline_count(workspace=workspace, filters=timeline_filters(criteria))


def timeline_page(*, workspace: Workspace, criteria: Criteria, offset: int, limit: int) -> list[Step]:
    """One page of the recorded changes the criteria select, by when (newest first unless asked), each with the
    statement or title of what changed and what its cause names: two queries."""
    rows = timeline_graph.timeline_page(
        workspace=workspace, filters=timeline_filters(criteria), descending=criteria.descending, offset=offset,
        limit=limit,
    )  # fmt: skip
    named = _causes_named(workspace, rows)
    return [_step(row, row["kind"], row.get("title") or "", named) for row in rows]


def _causes_named(workspace: Workspace, changes: list[dict[str, Any]]) -> dict[str, Named]:
    wanted: dict[str, set[str]] = {"corrections": set(), "sources": set(), "versions": set(), "decisions": set()}
    where = {
        history_graph.CORRECTION: "corrections", history_graph.RETRACTION: "sources",
        history_graph.NEW_VERSION: "versions", history_graph.REVISION: "decisions",
        history_graph.REJUSTIFICATION: "decisions", history_graph.DISMISSAL: "decisions",
    }  # fmt: skip
    for change in changes:
        if change.get("cause") in where and (cause_id := change.get("cause_id")):
            wanted[where[change["cause"]]].add(str(cause_id))
    found = timeline_graph.causes_named(workspace=workspace, **{k: sorted(v) for k, v in wanted.items()})
    return {
        i: Named(
            title=row.get("title") or "", reason=row.get("reason") or "", source_id=row.get("source_id") or "",
            version=row.get("version"),
        )
        for i, row in found.items()
    }  # fmt: skip


def _step(change: dict[str, Any], kind: str, title: str, named: dict[str, Named]) -> Step:
    cause_id = change.get("cause_id")
    return Step(
        at=change["at"], kind=kind, id=change.get("id") or "", title=title, from_status=change.get("from_status"),
        to_status=change["to_status"], cause=change.get("cause") or "", cause_id=cause_id,
        actor=change.get("actor"), migrated=bool(change.get("migrated")),
        named=named.get(str(cause_id), Named()) if cause_id else Named(),
    )  # fmt: skip


@dataclass(frozen=True)
class DiffItem:
    """A claim, decision or action in a diff: its status at the start (None: it did not exist yet, or the
    history began in the window) and at the end, and the changes between (oldest first)."""

    kind: str
    id: str
    title: str
    before: str | None
    after: str
    steps: list[Step]
    created_at: str = ""
    created_by: str = ""


@dataclass(frozen=True)
class Moved:
    """How many items of a kind went from one status to another (before None: the history began)."""

    before: str | None
    after: str
    count: int


@dataclass(frozen=True)
class KindDiff:
    """One kind's part of a diff: counts first (moved, new, changed and back), then the items listed."""

    kind: str
    moved: list[Moved]
    made: int
    back: int
    changed: list[DiffItem]
    came_back: list[DiffItem]
    created: list[DiffItem]

    @property
    def changed_count(self) -> int:
        return sum(m.count for m in self.moved)

    @property
    def empty(self) -> bool:
        return not (self.moved or self.made or self.back)


@dataclass(frozen=True)
class BeliefsDiff:
    """What changed in the workspace's beliefs in [start, end): for each kind (claims, decisions, actions) the items
    whose status at `end` differs from their status at `start`, those that changed and came back, and those made
    in the window. Lists hold at most `limit` items a kind (the counts are exact); `truncated` says when cut."""

    start: str
    end: str
    kinds: list[KindDiff]
    limit: int
    truncated: bool

    @property
    def empty(self) -> bool:
        return all(k.empty for k in self.kinds)


DIFF_LIMIT = 200
# How many changes of one item a diff lists (the latest; a toggled action could have many).
DIFF_STEPS_PER_ITEM = 20


def beliefs_diff(*, workspace: Workspace, start: str, end: str, limit: int = DIFF_LIMIT) -> BeliefsDiff:
    """What changed in our beliefs between `start` and `end` (graph times, start <= at < end): four bounded reads
    (counts of what moved and of what was made, the items themselves, one read of what their causes name)."""
    moved_rows, made = timeline_graph.diff_counts(workspace=workspace, start=start, end=end)
    changed_rows, created_rows = timeline_graph.diff_nodes(workspace=workspace, start=start, end=end, limit=limit)
    changes = [c for row in changed_rows for c in row["changes"]]
    named = _causes_named(workspace, changes)
    items: dict[str, list[DiffItem]] = {kind: [] for kind in history_graph.KINDS}
    back: dict[str, list[DiffItem]] = {kind: [] for kind in history_graph.KINDS}
    for row in changed_rows:
        ordered = sorted(row["changes"], key=lambda c: c["at"])[-DIFF_STEPS_PER_ITEM:]
        steps = [_step({**c, "id": row["id"]}, row["kind"], row["title"], named) for c in ordered]
        item = DiffItem(row["kind"], row["id"], row["title"], row["before"], row["after"], steps)
        (back if row["before"] == row["after"] else items)[row["kind"]].append(item)
    created: dict[str, list[DiffItem]] = {kind: [] for kind in history_graph.KINDS}
    for row in created_rows:
        made_by = str(row["created_by"] or "")
        item = DiffItem(row["kind"], row["id"], row["title"], None, row["status"] or "", [], row["created_at"], made_by)
        created[row["kind"]].append(item)
    for made_list in created.values():
        made_list.sort(key=lambda item: (item.created_at, item.id), reverse=True)
    kinds = []
    for kind in history_graph.KINDS:
        rows = [m for m in moved_rows if m["kind"] == kind]
        moved = sorted(
            (Moved(m["before"], m["after"], int(m["count"])) for m in rows if m["before"] != m["after"]),
            key=lambda m: (-m.count, m.after, m.before or ""),
        )
        came_back = sum(int(m["count"]) for m in rows if m["before"] == m["after"])
        kinds.append(KindDiff(kind, moved, made.get(kind, 0), came_back, items[kind], back[kind], created[kind]))
    listed = len(changed_rows) + len(created_rows)
    truncated = sum(k.changed_count + k.back + k.made for k in kinds) > listed
    return BeliefsDiff(start, end, kinds, limit, truncated)
