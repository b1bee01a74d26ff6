"""The correction page's reads: a preview as the page shows it (one read of the subgraph: the impact in words
and as a picture, and what changed since the preview a person saw), and the picker of the passage a correction
also cites."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.utils.safestring import SafeString

from agents.selectors import decisions as agents_selectors
from claims.highlight import marked
from claims.selectors import claims as claims_selectors
from claims.selectors import sources as sources_selectors
from claims.statuses import SourceStatus
from claims.text import Span
from corrections.picture import Drawn
from corrections.selectors import pictures as pictures_selectors
from corrections.services import preview as preview_services
from workspaces.models import Workspace

IMPACT_WORDS = {
    "decisions_needing_review": ("now needs review", "no longer needs review"),
    "decisions_still_supported": ("is now still supported", "is no longer still supported"),
    "actions_held": ("would now be held", "would no longer be held"),
    "claims_unsupported": ("would now become unsupported", "would no longer become unsupported"),
    "actions_already_done": ("is now done: it would need a follow-up", "would no longer need a follow-up"),
}


def what_changed(workspace: Workspace, before: dict[str, list[str]], after: dict[str, list[str]]) -> list[str]:
    """The differences between the impact a person previewed and the impact now, in words."""
    ids = {i for key in IMPACT_WORDS for i in set(before.get(key, [])) ^ set(after.get(key, []))}
    names = {
        d.id: f"the decision “{d.title}”"
        for d in agents_selectors.decisions_get(workspace=workspace, decision_ids=sorted(ids))
    }
    for action in agents_selectors.actions_get(workspace=workspace, action_ids=sorted(ids - set(names))):
        names[action.id] = f"the action “{action.title}”"
    for claim in claims_selectors.claims_by_ids(workspace=workspace, claim_ids=sorted(ids - set(names))):
        names[claim.id] = f"the claim “{claim.statement}”"
    lines = []
    for key, (added, removed) in IMPACT_WORDS.items():
        old, new = set(before.get(key, [])), set(after.get(key, []))
        lines += [f"{_sentence_start(names.get(i, i))} {added}." for i in sorted(new - old)]
        lines += [f"{_sentence_start(names.get(i, i))} {removed}." for i in sorted(old - new)]
    return lines


def _sentence_start(words: str) -> str:
    return words[:1].upper() + words[1:]


@dataclass(frozen=True)
class ImpactView:
    """The preview in words: titles instead of ids."""

    needing_review: list[agents_selectors.Decision]
    still_supported: list[tuple[agents_selectors.Decision, list[str]]]
    actions_held: list[agents_selectors.Action]
    claims_unsupported: list[claims_selectors.Claim]
    # Still supported, but check: each decision with the remaining supports that say what is
    # being corrected, and the actions that stay open because of them.
    restating: list[tuple[agents_selectors.Decision, list[agents_selectors.Support], list[agents_selectors.Action]]]
    # Done actions of the decisions needing review (already acted on), each with when and by whom it was done:
    # Apply marks exactly them follow-up needed.
    already_done: list[tuple[agents_selectors.Action, agents_selectors.DoneWhen | None]] = field(default_factory=list)


def impact_view(workspace: Workspace, preview: preview_services.Preview) -> ImpactView:
    impact = preview.impact
    decisions = {
        d.id: d
        for d in agents_selectors.decisions_get(
            workspace=workspace, decision_ids=impact.decisions_needing_review + impact.decisions_still_supported
        )
    }
    statements = {
        c.id: c.statement
        for c in claims_selectors.claims_by_ids(
            workspace=workspace, claim_ids=[i for ids in impact.still_supported_by.values() for i in ids]
        )
    }
    support_titles = {d.id: d.title for d in decisions.values()}

    def named(ids: list[str]) -> list[str]:
        return [statements.get(i) or support_titles.get(i) or i for i in ids]

    return ImpactView(
        needing_review=[d for i in impact.decisions_needing_review if (d := decisions.get(i))],
        still_supported=[
            (d, named(impact.still_supported_by.get(i, [])))
            for i in impact.decisions_still_supported
            if (d := decisions.get(i))
        ],
        actions_held=agents_selectors.actions_get(workspace=workspace, action_ids=impact.actions_held),
        claims_unsupported=claims_selectors.claims_by_ids(workspace=workspace, claim_ids=impact.claims_unsupported),
        restating=_restating_view(workspace, preview, decisions),
        already_done=_already_done(workspace, impact.actions_already_done),
    )


def _already_done(
    workspace: Workspace, action_ids: list[str]
) -> list[tuple[agents_selectors.Action, agents_selectors.DoneWhen | None]]:
    """The done actions the correction would mark follow-up needed, with when and by whom each was done."""
    if not action_ids:
        return []
    done = agents_selectors.actions_done_when(workspace=workspace, action_ids=action_ids)
    return [(a, done.get(a.id)) for a in agents_selectors.actions_get(workspace=workspace, action_ids=action_ids)]


def _restating_view(
    workspace: Workspace, preview: preview_services.Preview, decisions: dict[str, agents_selectors.Decision]
) -> list[tuple[agents_selectors.Decision, list[agents_selectors.Support], list[agents_selectors.Action]]]:
    flagged = set(preview.restating)
    restating = [
        (decision, supports)
        for decision_id in preview.impact.decisions_still_supported
        if (decision := decisions.get(decision_id)) and (supports := [s for s in decision.supports if s.id in flagged])
    ]
    actions = agents_selectors.actions_by_decision(workspace=workspace, decisions=[d for d, _ in restating])
    return [
        (decision, supports, agents_selectors.open_actions(actions[decision.id])) for decision, supports in restating
    ]


@dataclass(frozen=True)
class PassagePicker:
    """Where the reviewer picks the passage a correction also cites: the sources to cite from, and the chosen
    one's text (the claim's own quote marked when it is the claim's source), with the passage picked so far."""

    sources: list[sources_selectors.SourceSummary]
    version: sources_selectors.SourceVersion | None
    text: SafeString
    quote: str
    start: object


def passage_picker(
    workspace: Workspace, claim: claims_selectors.Claim, *, source_id: str, quote: str, start: object
) -> PassagePicker:
    """The picker as the correction form left it: the chosen source (`source_id`), the passage picked so far."""
    # The claim's own source first, then the others, newest first.
    active = [s for s in sources_selectors.sources(workspace=workspace) if s.status == SourceStatus.ACTIVE]
    sources = sorted(active, key=lambda s: s.id != claim.source_id)
    version = sources_selectors.source_get(workspace=workspace, source_id=source_id) if source_id else None
    if version is not None and version.status != SourceStatus.ACTIVE:
        version = None
    own = version is not None and claim.version_id == version.id and claim.start is not None and claim.end is not None
    text = marked(version.text, Span(claim.start or 0, claim.end or 0) if own else None) if version else SafeString("")
    return PassagePicker(sources, version, text, quote, start)


@dataclass(frozen=True)
class PreviewPage:
    """Everything the correction page shows of a preview, from ONE read of the subgraph: the preview (its impact and
    revision), the impact in words, its picture, and what changed since the impact the person saw (none if unsaid)."""

    preview: preview_services.Preview
    impact: ImpactView
    picture: Drawn
    changes: list[str]


def preview_page(
    *, workspace: Workspace, claim_id: str, statement: object, previewed: dict[str, list[str]] | None = None
) -> PreviewPage:
    """The preview of correcting the claim to `statement`, as the page shows it; the picture is drawn from the
    subgraph the preview read (no second read). UserError or Conflict as preview_services.preview raises them."""
    preview, sub = preview_services.preview_read(workspace=workspace, claim_id=claim_id, statement=statement)
    affected = preview.impact.as_json()
    impact = impact_view(workspace, preview)
    picture = pictures_selectors.impact_picture(
        workspace=workspace, claim=preview.claim, affected=affected,
        still_supported_by=preview.impact.still_supported_by, statement=preview.statement, sub=sub,
    )  # fmt: skip
    changes = what_changed(workspace, previewed, affected) if previewed is not None else []
    return PreviewPage(preview, impact, picture, changes)
