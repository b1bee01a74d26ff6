"""Pages: correct a claim (preview → apply over HTMX), the review queue, correction history, the claim's chain."""

from __future__ import annotations

import csv
import json
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from functools import wraps
from itertools import batched, chain
from typing import Any
from urllib.parse import urlencode
from uuid import UUID

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import SafeString
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from afterhack import confirm
from afterhack.clock import BadMoment, moment_iso, now_iso
from afterhack.errors import Conflict, GraphError, UserError, found
from afterhack.htmx import HtmxRequest
from afterhack.listing import Filter, ListSpec, render_listing
from afterhack.picker import Picker, chosen_ids, filter_params, ids_in, is_step, query_in
from afterhack.templatetags.afterhack import in_words
from afterhack.text import MAX_REASON_CHARS, MAX_STATEMENT_CHARS
from agents import selectors as agents_selectors
from agents import services as agents_services
from agents.statuses import DecisionKind, RevisedActions
from claims import selectors as claims_selectors
from claims import services as claims_services
from claims.services import EvidenceNotFound
from claims.statuses import SourceStatus
from claims.text import MAX_SOURCE_CHARS, Span
from corrections import review, selectors, services
from corrections.disclosure import CORRECTION
from corrections.statuses import ApplyStatus, CorrectionImpact
from workspaces import selectors as workspace_selectors
from workspaces.access import get_membership, get_rw_workspace_for_user
from workspaces.models import AuditEvent, Membership, Workspace
from workspaces.selectors import EventRow

logger = logging.getLogger("corrections")


class CorrectionForm(forms.Form):
    statement = forms.CharField(max_length=MAX_STATEMENT_CHARS, strip=True, label="Corrected statement")
    reason = forms.CharField(max_length=MAX_REASON_CHARS, strip=True, widget=forms.Textarea(attrs={"rows": 2}))
    # The passage the replacement also cites, filled in by selecting it in the source's text; none without a quote.
    evidence_source_id = forms.CharField(required=False, max_length=64)
    evidence_quote = forms.CharField(required=False, strip=False, max_length=MAX_SOURCE_CHARS, widget=forms.HiddenInput)
    evidence_start = forms.IntegerField(required=False, widget=forms.HiddenInput)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("evidence_quote") and not data.get("evidence_source_id"):
            self.add_error("evidence_source_id", "Choose the source the passage to cite is from.")
        return data

    def evidence(self) -> dict[str, Any] | None:
        """The passage to cite as Apply takes it (the API's `evidence`), from the valid form; None without a quote."""
        data = self.cleaned_data
        if not data.get("evidence_quote"):
            return None
        return {
            "source_id": data["evidence_source_id"],
            "quote": data["evidence_quote"],
            "start": data["evidence_start"],
        }


class ApplyForm(CorrectionForm):
    # Only parsed here; its range is the service's rule, shared with the API.
    revision = forms.IntegerField(
        widget=forms.HiddenInput, error_messages=dict.fromkeys(("invalid", "required"), services.REVISION_RULE)
    )
    idempotency_key = forms.CharField(max_length=services.MAX_KEY_CHARS, widget=forms.HiddenInput)
    # The impact the person saw, so a stale Apply can say what changed since.
    previewed = forms.CharField(required=False, widget=forms.HiddenInput)

    def clean_previewed(self) -> dict[str, list[str]]:
        try:
            value = json.loads(self.cleaned_data["previewed"] or "{}")
        except ValueError:
            return {}
        return (
            {k: [str(i) for i in v] for k, v in value.items() if isinstance(v, list)} if isinstance(value, dict) else {}
        )


IMPACT_WORDS = {
    "decisions_needing_review": ("now needs review", "no longer needs review"),
    "decisions_still_supported": ("is now still supported", "is no longer still supported"),
    "actions_held": ("would now be held", "would no longer be held"),
    "claims_unsupported": ("would now become unsupported", "would no longer become unsupported"),
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


def impact_view(workspace: Workspace, preview: services.Preview) -> ImpactView:
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
    )


def _restating_view(
    workspace: Workspace, preview: services.Preview, decisions: dict[str, agents_selectors.Decision]
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

    sources: list[claims_selectors.SourceSummary]
    version: claims_selectors.SourceVersion | None
    text: SafeString
    quote: str
    start: object


def passage_picker(workspace: Workspace, claim: claims_selectors.Claim, form: forms.Form) -> PassagePicker:
    # The claim's own source first, then the others, newest first.
    active = [s for s in claims_selectors.sources(workspace=workspace) if s.status == SourceStatus.ACTIVE]
    sources = sorted(active, key=lambda s: s.id != claim.source_id)
    source_id = str(form["evidence_source_id"].value() or "")
    version = claims_selectors.source_get(workspace=workspace, source_id=source_id) if source_id else None
    if version is not None and version.status != SourceStatus.ACTIVE:
        version = None
    own = version is not None and claim.version_id == version.id and claim.start is not None and claim.end is not None
    text = (
        claims_selectors.marked(version.text, Span(claim.start or 0, claim.end or 0) if own else None)
        if version
        else SafeString("")
    )
    return PassagePicker(
        sources, version, text, str(form["evidence_quote"].value() or ""), form["evidence_start"].value()
    )


def _correct_context(
    request: HtmxRequest, workspace: Workspace, claim: claims_selectors.Claim, **extra: Any
) -> dict[str, Any]:
    fate = selectors.claim_fate(workspace=workspace, claim=claim)
    context = {"workspace": workspace, "membership": get_membership(request.user, workspace.id), "claim": claim}
    if fate is None and isinstance(extra.get("form"), CorrectionForm):
        context["picker"] = passage_picker(workspace, claim, extra["form"])
    return {**context, "fate": fate, **extra}


def _cited_passage_refused(error: Exception) -> str:
    return f"The passage to cite was refused: {error} Nothing was applied; select it again in the text, or remove it."


@require_http_methods(["GET", "POST"])
@login_required
def claim_correct(request: HtmxRequest, ws_id: UUID, claim_id: str) -> HttpResponse:
    """The correction page: a statement and a reason, then the preview of its impact, then Apply."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    claim = found(claims_selectors.claim_get(workspace=workspace, claim_id=claim_id), claims_services.ClaimNotFound())
    if request.method != "POST":
        # The passage picker starts at the claim's own source; choosing another one reloads only the picker.
        chosen = request.GET.get("evidence_source_id", claim.source_id or "")
        # The statement starts as the claim's own, to be edited where it is wrong (an unchanged one is refused).
        initial = {"evidence_source_id": chosen, "statement": claim.statement}
        context = _correct_context(request, workspace, claim, form=CorrectionForm(initial=initial))
        if request.htmx and "evidence_source_id" in request.GET:
            return render(request, "corrections/partials/passage_picker.html", context)
        return render(request, "corrections/claim_correct.html", context)
    form = CorrectionForm(request.POST)
    if not form.is_valid():
        return _render_form(request, workspace, claim, form, status=422)
    try:
        services.cited_passage(workspace=workspace, evidence=services.clean_evidence(form.evidence()))
    except (UserError, claims_services.SourceNotFound) as error:
        return _render_form(request, workspace, claim, form, status=422, error=_cited_passage_refused(error))
    return _render_preview(request, workspace, claim, form.cleaned_data)


def _render_form(
    request: HtmxRequest,
    workspace: Workspace,
    claim: claims_selectors.Claim,
    form: forms.Form,
    status: int = 200,
    error: str = "",
) -> HttpResponse:
    if request.htmx:
        # The form comes back out of band, in place; the (now stale) preview area is emptied.
        context = _correct_context(request, workspace, claim, form=form, error=error, oob=True)
        return render(request, "corrections/claim_correct.html#correction-form", context, status=status)
    return render(
        request,
        "corrections/claim_correct.html",
        _correct_context(request, workspace, claim, form=form, error=error),
        status=status,
    )


def _render_preview(
    request: HtmxRequest,
    workspace: Workspace,
    claim: claims_selectors.Claim,
    data: dict[str, Any],
    notice: str = "",
    previewed: dict[str, list[str]] | None = None,
) -> HttpResponse:
    try:
        preview = services.preview(workspace=workspace, claim_id=claim.id, statement=data["statement"])
    except (UserError, Conflict) as error:
        if isinstance(error, services.ClaimNotCurrent):
            claim = _reread(workspace, claim)
        return _render_form(
            request,
            workspace,
            claim,
            CorrectionForm(data),
            status=409 if isinstance(error, Conflict) else 422,
            error=str(error),
        )
    shown = json.dumps(preview.impact.as_json())
    apply_form = ApplyForm(
        initial={**data, "revision": preview.fingerprint, "idempotency_key": str(uuid.uuid4()), "previewed": shown}
    )
    context = _correct_context(
        request,
        workspace,
        claim,
        form=CorrectionForm(data),
        preview=preview,
        impact=impact_view(workspace, preview),
        picture=selectors.impact_picture(
            workspace=workspace,
            claim=preview.claim,
            affected=preview.impact.as_json(),
            still_supported_by=preview.impact.still_supported_by,
            statement=preview.statement,
        ),
        apply_form=apply_form,
        notice=notice,
        changes=what_changed(workspace, previewed, preview.impact.as_json()) if previewed is not None else [],
    )
    template = "corrections/claim_correct.html#impact" if request.htmx else "corrections/claim_correct.html"
    return render(request, template, context)


@require_POST
@login_required
def claim_correct_apply(request: HtmxRequest, ws_id: UUID, claim_id: str) -> HttpResponse:
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    claim = found(claims_selectors.claim_get(workspace=workspace, claim_id=claim_id), claims_services.ClaimNotFound())
    form = ApplyForm(request.POST)
    if not form.is_valid():
        error = _hidden_field_errors(form)
        return _render_form(request, workspace, claim, CorrectionForm(request.POST), status=422, error=error)
    data = form.cleaned_data
    try:
        outcome = services.apply(
            workspace=workspace, claim_id=claim_id, actor=request.user, evidence=form.evidence(),
            **{k: data[k] for k in ("statement", "reason", "revision", "idempotency_key")},
        )  # fmt: skip
    except services.StalePreview:
        notice = "Something this correction depends on changed since your preview, so nothing was applied. Here is the impact as it is now; check it and apply again."
        return _render_preview(request, workspace, claim, data, notice=notice, previewed=data["previewed"])
    except services.ClaimNotCurrent as error:
        claim = _reread(workspace, claim)
        return _render_form(request, workspace, claim, CorrectionForm(form.cleaned_data), status=409, error=str(error))
    except (EvidenceNotFound, claims_services.SourceNotFound, services.CitedSourceChanged) as error:
        status = 409 if isinstance(error, Conflict) else 422
        refused = _cited_passage_refused(error)
        return _render_form(request, workspace, claim, CorrectionForm(request.POST), status=status, error=refused)
    except (UserError, Conflict) as error:
        status = 409 if isinstance(error, Conflict) else 422
        return _render_form(
            request, workspace, claim, CorrectionForm(form.cleaned_data), status=status, error=str(error)
        )
    messages.success(
        request,
        "Correction applied." if outcome.status == ApplyStatus.APPLIED else "This correction had already been applied.",
    )
    target = reverse("corrections:detail", kwargs={"ws_id": workspace.id, "correction_id": outcome.correction_id})
    if request.htmx:
        response = HttpResponse(status=204)
        response["HX-Redirect"] = target
        return response
    return redirect(target)


def _reread(workspace: Workspace, claim: claims_selectors.Claim) -> claims_selectors.Claim:
    """The claim as it is now: another tab or person may have corrected it since this request read it."""
    return claims_selectors.claim_get(workspace=workspace, claim_id=claim.id) or claim


def _hidden_field_errors(form: forms.Form) -> str:
    """What is wrong with the fields the preview filled in (the person never sees them), in words."""
    problems = [
        message if message.startswith("“") else f"“{name}”: {message}"
        for name, errors in form.errors.items()
        if name in form.fields and form.fields[name].widget.is_hidden
        for message in map(str, errors)
    ]
    return " ".join(problems) + " Preview the correction again." if problems else ""


def staff_only[**P, R: HttpResponseBase](view: Callable[P, R]) -> Callable[P, R]:
    """The staff audit's pages: a visitor logs in first; a person who is not staff gets the 403 page in words
    (not the Django admin's login form)."""

    @wraps(view)
    @login_required
    def guarded(*args: P.args, **kwargs: P.kwargs) -> R:
        request = args[0]
        if not request.user.is_staff:  # type: ignore[attr-defined]
            raise PermissionDenied("The audit is for staff auditors; ask an administrator if you need it.")
        return view(*args, **kwargs)

    return guarded


# -- the review queue ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ReviewItem:
    """A decision waiting for review with what a reviewer needs to decide, and the forms' state.

    `here` is the page it is on (where a dismissal returns); the picker chooses the claims it rests on now.
    """

    decision: agents_selectors.Decision
    correction: selectors.Correction | None
    actions: list[agents_selectors.Action]
    open_actions: list[agents_selectors.Action]
    picker: Picker
    here: str
    title: str = ""
    rationale: str = ""
    error: str = ""


# The field the chosen claims of a review are sent in (the resolve form reads it).
SUPPORTS_FIELD = "support_ids"


def picker_key(decision_id: str) -> str:
    """The key of a decision's claim picker: unique on the review page, which lists many."""
    return f"d{decision_id}"


@dataclass(frozen=True)
class PickerState:
    """What the reviewer typed and chose in one decision's picker (from a query string or a refused form)."""

    decision_id: str = ""
    query: str = ""
    chosen_ids: tuple[str, ...] = ()
    title: str = ""
    rationale: str = ""
    error: str = ""

    @classmethod
    def from_query(cls, request: HtmxRequest) -> PickerState:
        """The state a link carries: the decision it is `for`, its search `q`, the `chosen` claims."""
        return cls(
            decision_id=request.GET.get("for", ""), query=query_in(request.GET, ""),
            chosen_ids=tuple(ids_in(request.GET, "chosen")),
        )  # fmt: skip

    @classmethod
    def from_form(cls, data: Any, decision_id: str, error: str = "") -> PickerState:
        """The state the resolve form sent back (a picker's own button, or a refusal): all of it kept."""
        key = picker_key(decision_id)
        return cls(
            decision_id=decision_id, query=query_in(data, key),
            chosen_ids=tuple(chosen_ids(data, field=SUPPORTS_FIELD, key=key)),
            title=data.get("title", "")[:300], rationale=data.get("rationale", "")[:4000], error=error,
        )  # fmt: skip


def review_items(
    workspace: Workspace, decisions: list[agents_selectors.Decision], state: PickerState, here: str
) -> list[ReviewItem]:
    """Each decision with the correction that flagged it, its actions, and its picker (as `state` left it
    for the decision it names), read in a few queries for all of them."""
    flagged_by = [d.flagged_by for d in decisions if d.flagged_by]
    corrections = {c.id: c for c in selectors.corrections_get(workspace=workspace, correction_ids=flagged_by)}
    replacements = [c.replacement_claim_id for c in corrections.values()]
    suggestions = {i.id: i for i in claims_selectors.claim_items(workspace=workspace, claim_ids=replacements)}
    actions = agents_selectors.actions_by_decision(workspace=workspace, decisions=decisions)
    # The newest claims, offered before anything is typed, are read once for every picker on the page.
    newest = claims_selectors.claim_finds(workspace=workspace, query="") if decisions else []
    items = []
    for decision in decisions:
        mine = state if state.decision_id == decision.id else PickerState(decision_id=decision.id)
        correction = corrections.get(decision.flagged_by or "")
        suggestion = suggestions.get(correction.replacement_claim_id) if correction else None
        offered = suggestion if suggestion and suggestion.usable and suggestion.id not in mine.chosen_ids else None
        picker = claims_selectors.claim_picker(
            workspace=workspace, field=SUPPORTS_FIELD, key=picker_key(decision.id), query=mine.query,
            chosen=mine.chosen_ids, newest=newest, suggestion=offered,
            suggestion_words="Suggested: the corrected statement",
            label="Find the claims that answer it" if decision.kind == DecisionKind.UNANSWERED
            else "Find the claims it rests on now",
            empty_words="Nothing chosen yet: find the claims that support it and add them. "
            "The decision will rest on all of them together.",
        )  # fmt: skip
        own = actions[decision.id]
        item = ReviewItem(decision, correction, own, agents_selectors.open_actions(own), picker, here,
                          title=mine.title, rationale=mine.rationale, error=mine.error)  # fmt: skip
        items.append(item)
    return items


@require_GET
@login_required
def review_queue(request: HtmxRequest, ws_id: UUID) -> HttpResponse:
    """What waits for a reviewer, in two parts: questions the agent could not answer, and decisions that lost their support."""
    membership = get_membership(request.user, ws_id)
    workspace = membership.workspace
    queue = agents_selectors.review(workspace=workspace)
    state, here = PickerState.from_query(request), request.path
    context = {
        "workspace": workspace, "membership": membership, "limit": agents_selectors.REVIEW_LIMIT,
        "unanswered": review_items(workspace, queue.unanswered, state, here),
        "lost_support": review_items(workspace, queue.lost_support, state, here),
    }  # fmt: skip
    return render(request, "corrections/review_queue.html", context)


@require_GET
@login_required
def review_decision(request: HtmxRequest, ws_id: UUID, decision_id: str) -> HttpResponse:
    """One decision's review on a page of its own: re-justify, revise or dismiss it, or why it cannot be."""
    membership = get_membership(request.user, ws_id)
    state = PickerState.from_query(request)
    return _review_page(request, membership, decision_id, replace(state, decision_id=decision_id))


def _review_page(
    request: HtmxRequest, membership: Membership, decision_id: str, state: PickerState, status: int = 200
) -> HttpResponse:
    decision = found(
        agents_selectors.decision_get(workspace=membership.workspace, decision_id=decision_id),
        agents_services.DecisionNotFound(),
    )
    here = reverse("corrections:review_decision", args=[membership.workspace.id, decision.id])
    context = {
        "workspace": membership.workspace, "membership": membership,
        "item": review_items(membership.workspace, [decision], state, here)[0],
    }  # fmt: skip
    return render(request, "corrections/review_decision.html", context, status=status)


@require_POST
@login_required
def decision_resolve(request: HtmxRequest, ws_id: UUID, decision_id: str) -> HttpResponse:
    """Re-justify a flagged decision with the chosen claims, revise it into a new decision, or dismiss it
    (after a confirm step). A refusal comes back on the decision's review page, with what was typed."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    resolution = request.POST.get("resolution", "")
    if resolution == "dismiss":
        return _dismiss(request, workspace, decision_id)
    if is_step(request.POST):
        # A button of the claim picker (no JavaScript): the page comes back with the picker changed.
        state = PickerState.from_form(request.POST, decision_id)
        return _review_page(request, get_membership(request.user, ws_id), decision_id, state)
    support_ids = ids_in(request.POST, SUPPORTS_FIELD)
    try:
        if not support_ids or resolution not in ("rejustify", "revise"):
            raise UserError("Choose the claims it rests on now: find them, then add them to the chosen list.")
        if resolution == "rejustify":
            decision = review.decision_rejustify(
                workspace=workspace, decision_id=decision_id, justifications=[support_ids], actor=request.user
            )
            messages.success(request, f"“{decision.title}” is supported again; its held actions are pending.")
        else:
            _revise(request, workspace, decision_id, support_ids)
    except (UserError, Conflict) as error:
        state = PickerState.from_form(request.POST, decision_id, error=str(error))
        status = 409 if isinstance(error, Conflict) else 422
        return _review_page(request, get_membership(request.user, ws_id), decision_id, state, status=status)
    return redirect("corrections:review", ws_id=workspace.id)


def _revise(request: HtmxRequest, workspace: Workspace, decision_id: str, support_ids: list[str]) -> None:
    new = review.decision_revise(
        workspace=workspace, decision_id=decision_id, title=request.POST.get("title"),
        rationale=request.POST.get("rationale"), justifications=[support_ids],
        actions=request.POST.get("actions"), actor=request.user,
    )  # fmt: skip
    if request.POST.get("actions") == RevisedActions.CANCEL:
        outcome = "its open actions are cancelled"
    else:
        outcome = f"{_count(len(new.action_ids), 'open action')} moved to it"
    messages.success(request, f"Revised into “{new.title}”, now supported; {outcome}.")


def _dismiss(request: HtmxRequest, workspace: Workspace, decision_id: str) -> HttpResponse:
    """Dismisses after the confirm step: the first POST asks, naming the actions it would cancel."""
    decision = agents_services.decision_get(workspace=workspace, decision_id=decision_id)
    back = _back(request, reverse("corrections:review", args=[workspace.id]))
    refusal = review.review_refusal(workspace=workspace, decision=decision, done="dismissed")
    if refusal is None and not confirm.is_confirmed(request):
        return _ask_to_dismiss(request, workspace, decision, back)
    try:
        review.decision_dismiss(workspace=workspace, decision_id=decision_id, actor=request.user)
        messages.success(request, f"Dismissed {_named(decision)}; its open actions are cancelled.")
    except (UserError, Conflict) as error:
        messages.error(request, str(error))
    if request.htmx:
        response = HttpResponse(status=204)
        response["HX-Redirect"] = back
        return response
    return redirect(back)


def _ask_to_dismiss(
    request: HtmxRequest, workspace: Workspace, decision: agents_selectors.Decision, back: str
) -> HttpResponse:
    cancelled = agents_selectors.open_actions(agents_selectors.decision_actions(workspace=workspace, decision=decision))
    titles = ", ".join(f"“{a.title}”" for a in cancelled)
    return confirm.ask(
        request,
        question=f"Dismiss {_named(decision)}?",
        consequence="It leaves the review queue, as it is, and nothing replaces it. "
        + (f"This cancels {_count(len(cancelled), 'action')}: {titles}." if cancelled else "It has no open actions."),
        action=reverse("corrections:resolve", args=[workspace.id, decision.id]),
        fields={"resolution": "dismiss", "next": back},
        yes="Dismiss it",
        back=back,
        target=f"#dismiss-{decision.id}",
    )


def _named(decision: agents_selectors.Decision) -> str:
    """How the pages name a decision: an unanswered one by its question."""
    if decision.kind == DecisionKind.UNANSWERED and decision.question:
        return f"the question “{decision.question}”"
    return f"“{decision.title}”"


def _back(request: HtmxRequest, default: str) -> str:
    """The page of this site the form came from (its `next` field), or `default`."""
    back = request.POST.get("next", "")
    # Only a path on this site: anything else could send the reviewer elsewhere.
    if back.startswith("/") and url_has_allowed_host_and_scheme(
        back, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return back
    return default


# -- history ---------------------------------------------------------------------------------------


HISTORY = ListSpec(
    name="corrections",
    noun=("correction", "corrections"),
    sorts={"applied": "When", "actor": "Who"},
    default_sort="-applied",
    filters={
        "actor": Filter("Person"),
        "claim": Filter("Claim", "id"),
        "kind": Filter("Kind", "choice", (
            (CorrectionImpact.REVIEW, "Sent decisions to review"), (CorrectionImpact.HELD, "Held actions"),
            (CorrectionImpact.UNSUPPORTED, "Left derived claims unsupported"),
            (CorrectionImpact.NONE, "Left everything standing"),
        )),
        "since": Filter("From", "day"),
        "until": Filter("To", "day"),
    },
)  # fmt: skip


@require_GET
@login_required
def history(request: HtmxRequest, ws_id: UUID) -> HttpResponse:
    """The workspace's corrections: paged, sorted, filtered by person, claim, impact and day."""
    membership = get_membership(request.user, ws_id)
    workspace = membership.workspace
    listing = HISTORY.listing(
        filter_params(request.GET, field="claim"),
        read=lambda criteria, offset, limit: selectors.history_page(
            workspace=workspace, criteria=criteria, offset=offset, limit=limit
        ),
        count=lambda criteria: selectors.history_count(workspace=workspace, criteria=criteria),
        path=request.path,
    )
    claim = listing.criteria.get("claim")
    picker = claims_selectors.claim_picker(
        workspace=workspace, field="claim", query=query_in(request.GET, "claim"),
        chosen=[claim] if claim else [], single=True, needs_support=False, label="Claim",
        empty_words="Any claim: find one to see its corrections.",
    )  # fmt: skip
    # The filter sentence names the claim by its statement, not its id.
    listing = listing.with_shown(claim=f"“{picker.chosen[0].text}”") if picker.chosen else listing
    context = {"workspace": workspace, "membership": membership, "listing": listing, "claim_picker": picker}
    response = render(
        request, "corrections/history.html#corrections" if request.htmx else "corrections/history.html", context
    )
    if request.htmx:
        # The address kept in the history is the list's own, shortest one (a picked claim is its id there).
        response["HX-Push-Url"] = listing.address
    return response


@require_GET
@login_required
def detail(request: HtmxRequest, ws_id: UUID, correction_id: str) -> HttpResponse:
    membership = get_membership(request.user, ws_id)
    context = _detail(membership.workspace, correction_id) | {"membership": membership}
    return render(request, "corrections/detail.html", context)


def _detail(workspace: Workspace, correction_id: str) -> dict[str, Any]:
    """A correction's page for a reader of its workspace (a member, or staff who may read every workspace): what it
    changed, the passage it cites, its impact as it was and as a picture, each thing linked to its page."""
    correction = found(
        selectors.correction_get(workspace=workspace, correction_id=correction_id),
        Http404("No such correction in this workspace."),
    )
    old = claims_selectors.claim_get(workspace=workspace, claim_id=correction.claim_id)
    new = claims_selectors.claim_get(workspace=workspace, claim_id=correction.replacement_claim_id)
    affected = {key: ids for key, ids in correction.affected.items() if key.startswith("decisions")}
    by_id = {
        d.id: d
        for d in agents_selectors.decisions_get(
            workspace=workspace, decision_ids=[i for ids in affected.values() for i in ids]
        )
    }
    actions = agents_selectors.actions_get(workspace=workspace, action_ids=correction.affected.get("actions_held", []))
    applied = selectors.applied_impact(workspace=workspace, correction_id=correction.id)
    return {
        "workspace": workspace,
        "can_open": True,
        "correction": correction,
        "old": old,
        "new": new,
        "cited": claims_selectors.cited_view(workspace=workspace, claim=new),
        "decisions": {key: [by_id[i] for i in ids if i in by_id] for key, ids in affected.items()},
        "actions": actions,
        "unsupported": claims_selectors.claims_by_ids(
            workspace=workspace, claim_ids=correction.affected.get("claims_unsupported", [])
        ),
        "picture": old and selectors.impact_picture(
            workspace=workspace, claim=old, affected=correction.affected, correction=correction,
        ),
        "applied": applied,
        "action_urls": {
            a["id"]: workspace_selectors.action_url(workspace_id=workspace.id, action_id=a["id"])
            for a in (applied or {}).get("actions_held", [])
        }
        | {a.id: workspace_selectors.action_url(workspace_id=workspace.id, action_id=a.id) for a in actions},
    }  # fmt: skip


@dataclass(frozen=True)
class ClaimLine:
    """A claim as the correction's page names it to staff who may not read its workspace: what it says (the
    correction's from or to) and its status; nothing of its evidence."""

    id: str
    statement: str
    status: str


def _outline(workspace: Workspace, correction_id: str) -> dict[str, Any]:
    """A correction's page for staff who may not read its workspace, built from what they may read alone
    (workspaces/disclosure.py), and nothing else is read: from, to, why, by whom and when, the statuses of both
    claims; what it touched, by title (the decisions it sent to review, the actions it held, the derived claims it
    left unsupported); how many decisions it left standing and supports restated it; and, in words, that the claim
    quoted a source and the correction cited a passage. What this context does not name is not on the page."""
    outline = found(
        selectors.correction_outline(workspace=workspace, correction_id=correction_id),
        Http404("No such correction in this workspace."),
    )
    applied = selectors.applied_impact_outline(workspace=workspace, correction_id=outline.id)
    replacement = outline.replacement_status
    context = {
        "workspace": workspace,
        "auditing": True,
        "restricted": True,
        "correction": outline,
        "old": ClaimLine(outline.claim_id, outline.old_statement, outline.old_status),
        "old_quote_withheld": outline.old_quoted,
        "new": replacement and ClaimLine(outline.replacement_claim_id, outline.statement, replacement),
        "cited_withheld": outline.cites_passage,
        "applied": applied,
        "still_supported": len(outline.affected.get("decisions_still_supported", [])),
    }
    return context if applied else context | _touched_today(workspace, outline.affected)


def _touched_today(workspace: Workspace, affected: dict[str, list[str]]) -> dict[str, Any]:
    """How what a correction touched stands today, for one applied before its impact was kept as it was."""
    return {
        "decisions": {
            "decisions_needing_review": agents_selectors.decisions_get(
                workspace=workspace, decision_ids=affected.get("decisions_needing_review", [])
            )
        },
        "actions": agents_selectors.actions_get(workspace=workspace, action_ids=affected.get("actions_held", [])),
        "unsupported": claims_selectors.claims_by_ids(
            workspace=workspace, claim_ids=affected.get("claims_unsupported", [])
        ),
    }


def _audit_spec() -> ListSpec:
    return workspace_selectors.event_spec("audit", workspaces=list(workspace_selectors.workspaces_by_name()))


def _corrected_from(events: list[AuditEvent]) -> dict[str, str]:
    """What each correction among the events corrected (its old statement, which its event does not keep), read
    from the corrections themselves: one graph read per workspace. A workspace whose graph does not answer is left
    out: its corrections then say only what they corrected to."""
    asked: dict[UUID, tuple[Workspace, list[str]]] = {}
    for event in events:
        correction_id = event.payload.get("correction_id")
        if event.verb == CORRECTION and event.workspace is not None and isinstance(correction_id, str):
            asked.setdefault(event.workspace.id, (event.workspace, []))[1].append(correction_id)
    before: dict[str, str] = {}
    for workspace, correction_ids in asked.values():
        try:
            corrections = selectors.corrections_get(workspace=workspace, correction_ids=correction_ids)
        except GraphError:
            logger.warning("audit: the corrections of %s could not be read", workspace.id, exc_info=True)
            continue
        before |= {c.id: c.old_statement for c in corrections if c.old_statement}
    return before


def _audit_rows(events: list[AuditEvent], memberships: dict[UUID, Membership]) -> list[EventRow]:
    """The events as this auditor may read them (workspaces/disclosure.py), each correction with what it corrected."""
    return workspace_selectors.event_rows(events, memberships=memberships, corrected_from=_corrected_from(events))


@require_GET
@staff_only
def audit(request: HtmxRequest) -> HttpResponse:
    """Staff auditors: every audited event of every workspace, read-only, filtered and paged, and its CSV export;
    the content of a workspace they may not read is withheld (workspaces/disclosure.py)."""
    memberships = workspace_selectors.memberships_by_workspace(user=request.user)
    listing = workspace_selectors.event_listing(
        _audit_spec(), request.GET, path=request.path, readable=workspace_selectors.readable_in(memberships)
    )
    rows = [
        replace(row, detail_url=reverse("corrections:audit_event", args=[row.event.pk]))
        for row in _audit_rows(listing.items, memberships)
    ]
    # The export takes the same filters and sort, and every page.
    export = reverse("corrections:audit_export") + listing.href(page=1).removeprefix(listing.path)
    context = {
        "listing": listing.with_items(rows), "export_href": export.removesuffix("?"),
        # The W3C PROV export of each workspace the auditor may read, in the three formats.
        "prov_workspaces": [w for w in workspace_selectors.workspaces_by_name() if w.id in memberships],
    }  # fmt: skip
    return render(request, "corrections/audit.html#events" if request.htmx else "corrections/audit.html", context)


@require_GET
@staff_only
def audit_event(request: HtmxRequest, event_id: int) -> HttpResponse:
    """One audited event for staff: who did what when, where, what it names, and what it recorded (its content
    withheld where they may not read its workspace); a correction's from, to and why."""
    event = found(workspace_selectors.audit_event_get(event_id=event_id), Http404("No such audited event."))
    memberships = workspace_selectors.memberships_by_workspace(user=request.user)
    before = _corrected_from([event])
    row = workspace_selectors.event_rows([event], memberships=memberships, corrected_from=before)[0]
    reads = event.workspace_id is None or event.workspace_id in memberships
    context = {
        "row": row,
        "corrected": _corrected(event, before),
        "correction_url": _audit_detail_url(event),
        "prov_url": _audit_prov_url(event) if reads else "",
        "recorded": json.dumps(row.recorded, indent=2, ensure_ascii=False, sort_keys=True),
    }
    return render(request, "corrections/audit_event.html", context)


def _corrected(event: AuditEvent, before: dict[str, str]) -> dict[str, str] | None:
    """A correction's from, to and why (every auditor's to read); None for other events."""
    if event.verb != CORRECTION:
        return None
    words = {key: value for key in ("statement", "reason") if isinstance(value := event.payload.get(key), str)}
    return {"from": before.get(str(event.payload.get("correction_id")), ""), "to": words.get("statement", event.target),
            "why": words.get("reason", "")}  # fmt: skip


def _audit_detail_url(event: AuditEvent) -> str:
    """A correction's page for auditors (whether or not they belong to its workspace); '' for other events."""
    correction_id = event.payload.get("correction_id")
    if event.verb != CORRECTION or not isinstance(correction_id, str) or event.workspace_id is None:
        return ""
    return reverse("corrections:audit_detail", args=[event.workspace_id, correction_id])


def _audit_prov_url(event: AuditEvent) -> str:
    """The staff PROV export of the chain of a correction's claim (without its format); '' for other events."""
    claim_id = event.payload.get("claim_id")
    if not _audit_detail_url(event) or not isinstance(claim_id, str):
        return ""
    return reverse("corrections:audit_prov") + "?" + urlencode({"workspace": event.workspace_id, "root": claim_id})


CSV_COLUMNS = ["time (UTC)", "workspace", "person", "kind", "summary", "target ids"]
# A spreadsheet runs a cell that starts with one of these as a formula (CSV injection); a leading quote keeps it text.
# What a spreadsheet reads as the start of a formula, also in full-width forms and after leading spaces.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "＝", "＋", "－", "＠")
# A byte-order mark first: spreadsheets then read the file as UTF-8 (the summaries' curly quotes intact).
CSV_BOM = "\ufeff"
# Events read, and their corrections asked about, this many at a time.
CSV_CHUNK = 500


def _cell(value: str) -> str:
    return "'" + value if value.lstrip(" ").startswith(FORMULA_STARTS) else value


def _target_ids(payload: dict[str, Any]) -> str:
    """The ids an event's payload names (`claim_id=…`, lists joined), in one cell."""
    named = []
    for key, value in sorted(payload.items()):
        if key.endswith("_id") and isinstance(value, str):
            named.append(f"{key}={value}")
        elif (key.endswith("_ids") or key in ("retracted", "cancelled", "moved")) and isinstance(value, list):
            named.append(f"{key}={' '.join(str(i) for i in value)}")
    return "; ".join(named)


def _csv_row(row: EventRow) -> list[str]:
    event = row.event
    when = event.created_at.astimezone(UTC).isoformat()
    workspace = event.workspace.name if event.workspace else ""
    cells = [when, workspace, event.actor_name, event.kind, row.summary, _target_ids(row.recorded)]
    return [_cell(cell) for cell in cells]


class _Echo:
    """A file that hands back what is written to it, so csv.writer can feed a streaming response line by line."""

    def write(self, line: str) -> str:
        return line


@require_GET
@staff_only
def audit_export(request: HtmxRequest) -> StreamingHttpResponse:
    """The audit's filtered events as CSV: every page, streamed, in the list's order, each as the auditor may read
    it (workspaces/disclosure.py)."""
    criteria, _ = _audit_spec().criteria(request.GET)
    memberships = workspace_selectors.memberships_by_workspace(user=request.user)
    readable = workspace_selectors.readable_in(memberships)
    events = workspace_selectors.audit_events(criteria=criteria, readable=readable).iterator(chunk_size=CSV_CHUNK)
    rows = (row for chunk in batched(events, CSV_CHUNK) for row in _audit_rows(list(chunk), memberships))
    writer = csv.writer(_Echo())
    lines = chain([CSV_BOM], (writer.writerow(row) for row in chain([CSV_COLUMNS], map(_csv_row, rows))))
    response = StreamingHttpResponse(lines, content_type="text/csv; charset=utf-8")
    filename = f"afterhack-audit-{datetime.now(UTC):%Y-%m-%d}.csv"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@require_GET
@staff_only
def audit_detail(request: HtmxRequest, ws_id: UUID, correction_id: str) -> HttpResponse:
    """A correction's page for staff auditors. One who belongs to the workspace, or may read every workspace, reads
    it as members do and opens what it names; to others it says what the correction changed — from, to, why, by
    whom, and what lost support or was held — and reads nothing else (`_outline`)."""
    workspace = found(workspace_selectors.workspace_get(workspace_id=ws_id), Http404("No such workspace."))
    if workspace.id in workspace_selectors.memberships_by_workspace(user=request.user):
        context = _detail(workspace, correction_id) | {"auditing": True}
    else:
        context = _outline(workspace, correction_id)
    return render(request, "corrections/detail.html", context)


@require_GET
@login_required
def claim_chain(request: HtmxRequest, ws_id: UUID, claim_id: str) -> HttpResponse:
    """The product view of one claim: where it comes from, what rests on it, how it was corrected."""
    membership = get_membership(request.user, ws_id)
    claim = claims_selectors.claim_get(workspace=membership.workspace, claim_id=claim_id)
    chain = selectors.claim_chain(workspace=membership.workspace, claim_id=claim_id)
    if claim is None or chain is None:
        raise claims_services.ClaimNotFound()
    context = {
        "workspace": membership.workspace,
        "membership": membership,
        "claim": claim,
        "source": chain.source,
        "cited": claims_selectors.cited_view(workspace=membership.workspace, claim=claim),
        "decisions": chain.decisions,
        "derived": chain.derived,
        "premises": claims_selectors.claims_by_ids(
            workspace=membership.workspace, claim_ids=[i for group in claim.derived_from for i in group]
        ),
        "corrections": chain.corrections,
        "picture": selectors.chain_picture(
            workspace=membership.workspace, claim=claim, source=chain.source, corrections=chain.corrections
        ),
    }
    return render(request, "corrections/claim_chain.html", context)


class VersionForm(forms.Form):
    text = forms.CharField(widget=forms.Textarea(attrs={"rows": 12}), strip=False)


@require_http_methods(["GET", "POST"])
@login_required
def source_revise(request: HtmxRequest, ws_id: UUID, source_id: str) -> HttpResponse:
    """Add a new version of a source (its claims re-validated) or retract it (its claims retracted)."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    version = found(
        claims_selectors.source_get(workspace=workspace, source_id=source_id),
        claims_services.SourceNotFound(),
    )
    form = VersionForm(request.POST or None, initial={"text": version.text})
    if request.method == "POST":
        try:
            if request.POST.get("retract"):
                change = services.source_retract(workspace=workspace, source_id=source_id, actor=request.user)
                messages.success(
                    request,
                    f"Source retracted: {_count(len(change.retracted), 'claim')} retracted, "
                    f"{_count(len(change.affected['decisions_needing_review']), 'decision')} to review.",
                )
                return redirect("claims:source", ws_id=workspace.id, source_id=source_id)
            if form.is_valid():
                change = services.source_new_version(
                    workspace=workspace, source_id=source_id, text=form.cleaned_data["text"], actor=request.user
                )
                messages.success(
                    request,
                    f"Version {change.version} added: {_count(change.moved, 'claim')} found again, "
                    f"{_count(len(change.retracted), 'claim')} retracted (their quote is gone), "
                    f"{_count(len(change.affected['decisions_needing_review']), 'decision')} to review.",
                )
                return redirect("claims:source", ws_id=workspace.id, source_id=source_id)
        except (UserError, Conflict) as error:
            form.add_error(None, str(error))
    context = {"workspace": workspace, "version": version, "form": form}
    return render(request, "corrections/source_revise.html", context, status=422 if form.errors else 200)


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


@require_GET
@login_required
def prov_export(request: HtmxRequest, ws_id: UUID) -> HttpResponse:
    """The because-chain of `root` (or the whole workspace) as W3C PROV, downloaded with the page's session: the
    same export as the API's (docs/prov.md), for any member; a bad root or format is said on a page, 422."""
    membership = get_membership(request.user, ws_id)
    return _prov_answer(request, membership.workspace)


def _prov_answer(request: HtmxRequest, workspace: Workspace) -> HttpResponse:
    """The export `root` and `format` ask for, as a download; a bad one said on a page, 422."""
    try:
        form = selectors.ProvFormat(request.GET.get("format") or selectors.ProvFormat.JSON)
    except ValueError:
        detail = "The format of a W3C PROV export must be json, ttl or provn."
        return render(request, "400.html", {"detail": detail}, status=422)
    try:
        export = selectors.prov_export(workspace=workspace, root=request.GET.get("root") or None, form=form)
    except UserError as error:
        return render(request, "400.html", {"detail": str(error)}, status=422)
    response = HttpResponse(export.text, content_type=export.content_type)
    response["Content-Disposition"] = f'attachment; filename="{export.filename}"'
    return response


@require_GET
@staff_only
def audit_prov(request: HtmxRequest) -> HttpResponse:
    """Staff auditors: a workspace's W3C PROV export (whole, or a `root`'s chain). It is the workspace's content, so
    exactly as the API's `GET …/prov`: for its members and auditors of every workspace; 404 for anyone else, as
    if there were no such workspace. Like the audit's CSV export, downloading it is not itself an audited event."""
    raw = request.GET.get("workspace", "")
    if not raw:
        detail = "Choose a workspace to export: “workspace” must be the id of one."
        return render(request, "400.html", {"detail": detail}, status=422)
    try:
        membership = get_membership(request.user, raw)
    except Http404:
        return render(request, "400.html", {"detail": "No such workspace."}, status=404)
    return _prov_answer(request, membership.workspace)


# -- the timeline of changes of belief, and the diff between two moments (docs/history.md) ------------------------

CAUSE_CHOICES = (
    (selectors.CORRECTION, "A correction"), (selectors.RETRACTION, "A source retracted"),
    (selectors.NEW_VERSION, "A new version of a source"), (selectors.REJUSTIFICATION, "A re-justification"),
    (selectors.REVISION, "A revision"), (selectors.DISMISSAL, "A dismissal"),
    (selectors.PERSON, "A person's mark"), (selectors.MIGRATION, "History began"),
)  # fmt: skip
TIMELINE = ListSpec(
    name="timeline",
    noun=("change", "changes"),
    sorts={"when": "When"},
    default_sort="-when",
    filters={
        "kind": Filter("Kind", "choice", (
            (selectors.CLAIM, "Claims"), (selectors.DECISION_KIND, "Decisions"), (selectors.ACTION, "Actions"),
        )),
        "cause": Filter("Cause", "choice", CAUSE_CHOICES),
        "actor": Filter("Person"),
        "since": Filter("From", "day"),
        "until": Filter("To", "day"),
    },
    search="Statement or title",
)  # fmt: skip


@dataclass(frozen=True)
class ChangeRow:
    """A recorded change as a row of the pages: what it is of (linked), the change in words, the cause (linked)."""

    step: selectors.Step
    item_url: str
    what: str
    cause: str
    cause_url: str


def _item_url(workspace_id: UUID, kind: str, item_id: str) -> str:
    if kind == selectors.CLAIM:
        return reverse("claims:claim", args=[workspace_id, item_id])
    if kind == selectors.DECISION_KIND:
        return reverse("agents:decision", args=[workspace_id, item_id])
    return workspace_selectors.action_url(workspace_id=workspace_id, action_id=item_id)


def _what(step: selectors.Step) -> str:
    """The change of status in words: from → to, what happened when the status stays, and where history began."""
    before, after = in_words(step.from_status), in_words(step.to_status)
    if step.from_status is None:
        words = f"{after} (what it was before is not known)"
    elif step.from_status != step.to_status:
        words = f"{before} → {after}"
    elif step.cause == selectors.DISMISSAL:
        words = f"dismissed from review; still {after}"
    elif step.cause == selectors.NEW_VERSION:
        words = f"found again in the new version; still {after}"
    else:
        words = f"still {after}"
    return f"history began: {words}" if step.migrated or step.cause == selectors.MIGRATION else words


def _cause(workspace_id: UUID, step: selectors.Step) -> tuple[str, str]:
    """The cause in words, and the page of what it names ('' when there is none)."""
    named, cause_id = step.named, step.cause_id or ""
    if step.cause == selectors.CORRECTION and cause_id:
        words = f"correction: “{named.title}”" if named.title else "a correction"
        return words, reverse("corrections:detail", args=[workspace_id, cause_id])
    if step.cause in (selectors.RETRACTION, selectors.NEW_VERSION):
        title = f"“{named.title}”" if named.title else "its source"
        if step.cause == selectors.RETRACTION:
            words = f"source {title} retracted"
        else:
            words = f"version {named.version} of {title}" if named.version else f"a new version of {title}"
        source = named.source_id or (cause_id if step.cause == selectors.RETRACTION else "")
        return words, reverse("claims:source", args=[workspace_id, source]) if source else ""
    if step.cause in (selectors.REJUSTIFICATION, selectors.REVISION, selectors.DISMISSAL) and cause_id:
        url = reverse("agents:decision", args=[workspace_id, cause_id])
        if step.cause == selectors.REVISION:
            return (f"revised: “{named.title}” replaces it" if named.title else "a revision"), url
        return ("re-justified" if step.cause == selectors.REJUSTIFICATION else "dismissed from review"), url
    if step.cause == selectors.AGENT_RUN and cause_id:
        return "an agent run", reverse("agents:run", args=[workspace_id, cause_id])
    if step.cause == selectors.PERSON:
        return "a person's mark", ""
    if step.cause == selectors.MIGRATION:
        return "history began (the state found when the history of changes began)", ""
    return in_words(step.cause) or "—", ""


def change_row(workspace_id: UUID, step: selectors.Step) -> ChangeRow:
    cause, cause_url = _cause(workspace_id, step)
    return ChangeRow(step, _item_url(workspace_id, step.kind, step.id), _what(step), cause, cause_url)


@require_GET
@login_required
def timeline(request: HtmxRequest, ws_id: UUID) -> HttpResponse:
    """Every recorded change of belief of the workspace: paged, newest first, filtered by kind, cause, person, day
    and the words of what changed."""
    membership = get_membership(request.user, ws_id)
    workspace = membership.workspace
    listing = TIMELINE.read_page(
        request.GET, path=request.path, read=selectors.timeline_page, count=selectors.timeline_count,
        workspace=workspace,
    )  # fmt: skip
    rows = [change_row(workspace.id, step) for step in listing.items]
    context = {"workspace": workspace, "membership": membership, "listing": listing.with_items(rows)}
    return render_listing(request, "corrections/timeline.html", context, listing=listing)


# The diff's default window: the last seven days, up to the next whole minute (what the date-time fields show).
DIFF_DAYS = 7
FIELD_FORMAT = "%Y-%m-%dT%H:%M"


def _field_value(moment: str) -> str:
    """A graph time as a date-time field shows it (UTC, to the minute)."""
    return datetime.fromisoformat(moment).astimezone(UTC).strftime(FIELD_FORMAT)


@dataclass(frozen=True)
class DiffRow:
    item: selectors.DiffItem
    url: str
    steps: list[ChangeRow]


# How each kind is named on the diff (singular, plural).
KIND_NOUNS = {"claim": ("claim", "claims"), "decision": ("decision", "decisions"), "action": ("action", "actions")}


def _kind_rows(workspace_id: UUID, kind: selectors.KindDiff) -> dict[str, Any]:
    def rows(items: list[selectors.DiffItem]) -> list[DiffRow]:
        return [
            DiffRow(
                item, _item_url(workspace_id, item.kind, item.id), [change_row(workspace_id, s) for s in item.steps]
            )
            for item in items
        ]

    return {
        "diff": kind, "noun": KIND_NOUNS[kind.kind], "changed": rows(kind.changed), "came_back": rows(kind.came_back),
        "created": rows(kind.created),
    }  # fmt: skip


@require_GET
@login_required
def diff(request: HtmxRequest, ws_id: UUID) -> HttpResponse:
    """What changed in the workspace's beliefs between two moments (`from`, `to`: ISO 8601, UTC when no offset is
    given; by default the last seven days). A moment that cannot be read, or `from` after `to`, is said in a
    sentence on the page (422), with the fields to fix it."""
    membership = get_membership(request.user, ws_id)
    workspace = membership.workspace
    end_default = (datetime.now(UTC) + timedelta(minutes=1)).replace(second=0, microsecond=0)
    defaults = {
        "from": (end_default - timedelta(days=DIFF_DAYS)).isoformat(timespec="microseconds"),
        "to": end_default.isoformat(timespec="microseconds"),
    }
    moments: dict[str, str] = {}
    problems: list[str] = []
    for name in ("from", "to"):
        raw = request.GET.get(name, "")
        try:
            moments[name] = moment_iso(raw, name=name, day_starts=name == "from") if raw.strip() else defaults[name]
        except BadMoment as error:
            problems.append(str(error))
            moments[name] = ""
    start, end = moments["from"], moments["to"]
    if not problems and start > end:
        problems.append(
            f"“from” ({_field_value(start).replace('T', ' ')} UTC) is after “to” "
            f"({_field_value(end).replace('T', ' ')} UTC): give the earlier moment first."
        )
    result = None if problems else selectors.beliefs_diff(workspace=workspace, start=start, end=end)
    context = {
        "workspace": workspace,
        "membership": membership,
        "diff": result,
        # The dashboard shows a moment that has come; the default window ends at the next whole minute.
        "end_has_come": bool(result) and end <= now_iso(),
        "kinds": [_kind_rows(workspace.id, kind) for kind in result.kinds] if result else [],
        "problems": problems,
        "fields": {
            name: _field_value(moments[name]) if moments[name] else request.GET.get(name, "")[:40]
            for name in ("from", "to")
        },
    }
    return render(request, "corrections/diff.html", context, status=422 if problems else 200)
