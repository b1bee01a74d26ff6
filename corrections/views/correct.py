"""The correction page: a statement and a reason, then the preview of its impact (over HTMX), then Apply."""

from __future__ import annotations

import contextlib
import json
import uuid
from typing import Any
from uuid import UUID

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from afterhack.errors import Conflict, UserError, found
from afterhack.htmx import HtmxRequest
from afterhack.text import MAX_REASON_CHARS, MAX_STATEMENT_CHARS
from claims.selectors import claims as claims_selectors
from claims.services import claims as claims_services
from claims.services import sources as sources_services
from claims.services.claims import EvidenceNotFound
from claims.text import MAX_SOURCE_CHARS
from corrections.selectors import corrections as corrections_selectors
from corrections.selectors import preview as preview_selectors
from corrections.services import accept as accept_services
from corrections.services import apply as apply_services
from corrections.services import preview as preview_services
from corrections.statuses import ApplyStatus
from workspaces.access import get_membership, get_rw_workspace_for_user
from workspaces.models import Workspace
from workspaces.services.audit import actor_name


class CorrectionForm(forms.Form):
    statement = forms.CharField(max_length=MAX_STATEMENT_CHARS, strip=True, label="Corrected statement")
    reason = forms.CharField(max_length=MAX_REASON_CHARS, strip=True, widget=forms.Textarea(attrs={"rows": 2}))
    # The passage the replacement also cites, filled in by selecting it in the source's text; none without a quote.
    evidence_source_id = forms.CharField(required=False, max_length=64)
    evidence_quote = forms.CharField(required=False, strip=False, max_length=MAX_SOURCE_CHARS, widget=forms.HiddenInput)
    evidence_start = forms.IntegerField(required=False, widget=forms.HiddenInput)
    # The suggested correction this one accepts (the review queue's "Correct it" or "Correct the other one").
    suggestion_id = forms.CharField(required=False, max_length=64, widget=forms.HiddenInput)

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
        widget=forms.HiddenInput, error_messages=dict.fromkeys(("invalid", "required"), apply_services.REVISION_RULE)
    )
    idempotency_key = forms.CharField(max_length=apply_services.MAX_KEY_CHARS, widget=forms.HiddenInput)
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


def _correct_context(
    request: HtmxRequest, workspace: Workspace, claim: claims_selectors.Claim, **extra: Any
) -> dict[str, Any]:
    fate = corrections_selectors.claim_fate(workspace=workspace, claim=claim)
    context = {"workspace": workspace, "membership": get_membership(request.user, workspace.id), "claim": claim}
    if isinstance(form := extra.get("form"), CorrectionForm) and (suggestion_id := form["suggestion_id"].value()):
        # A refusal is said where the suggestion is checked (its preview, Apply); here it is only not shown.
        with contextlib.suppress(UserError, Http404):
            context["accepting"] = _accepting(workspace, claim, str(suggestion_id))
    if fate is None and isinstance(form := extra.get("form"), CorrectionForm):
        context["picker"] = preview_selectors.passage_picker(
            workspace, claim, source_id=str(form["evidence_source_id"].value() or ""),
            quote=str(form["evidence_quote"].value() or ""), start=form["evidence_start"].value(),
        )  # fmt: skip
    return {**context, "fate": fate, **extra}


def _accepting(workspace: Workspace, claim: claims_selectors.Claim, suggestion_id: str) -> accept_services.Accepting:
    """The suggestion the correction of this claim accepts (UserError, or 404, if it cannot be accepted by it)."""
    return accept_services.accepting(workspace=workspace, suggestion_id=suggestion_id, claim_id=claim.id)


def _suggested_form(
    request: HtmxRequest, workspace: Workspace, claim: claims_selectors.Claim, suggestion_id: str
) -> HttpResponse:
    """The correction page filled in from a suggestion: its statement (or, correcting the other claim, the older
    claim's), why (the suggestion's own reason, to edit), the passage to cite chosen, and the suggestion carried so
    that Apply accepts it: one click previews the impact."""
    empty = CorrectionForm(initial={"evidence_source_id": claim.source_id or "", "statement": claim.statement})
    try:
        accepted = _accepting(workspace, claim, suggestion_id)
        accept_services.require_open(
            workspace=workspace, suggestion_id=accepted.suggestion.id, by=actor_name(request.user)
        )
    except (UserError, Http404) as error:
        status = error.status if isinstance(error, UserError) else 404
        return _render_form(request, workspace, claim, empty, status=status, error=str(error))
    evidence = accepted.evidence
    initial = {
        "statement": accepted.statement, "suggestion_id": accepted.suggestion.id,
        "reason": accepted.suggestion.reason[:MAX_REASON_CHARS],
        "evidence_source_id": evidence.source_id if evidence else "", "evidence_quote": evidence.quote if evidence else "",
        "evidence_start": evidence.start if evidence else None,
    }  # fmt: skip
    return render(
        request,
        "corrections/claim_correct.html",
        _correct_context(request, workspace, claim, form=CorrectionForm(initial=initial)),
    )


def _cited_passage_refused(error: Exception) -> str:
    return f"The passage to cite was refused: {error} Nothing was applied; select it again in the text, or remove it."


@require_http_methods(["GET", "POST"])
@login_required
def claim_correct(request: HtmxRequest, ws_id: UUID, claim_id: str) -> HttpResponse:
    """The correction page: a statement and a reason, then the preview of its impact, then Apply."""
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    claim = found(claims_selectors.claim_get(workspace=workspace, claim_id=claim_id), claims_services.ClaimNotFound())
    if request.method != "POST" and request.GET.get("suggestion"):
        return _suggested_form(request, workspace, claim, request.GET["suggestion"])
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
        apply_services.cited_passage(workspace=workspace, evidence=apply_services.clean_evidence(form.evidence()))
    except (UserError, sources_services.SourceNotFound) as error:
        return _render_form(request, workspace, claim, form, status=422, error=_cited_passage_refused(error))
    if suggestion_id := form.cleaned_data.get("suggestion_id"):
        try:
            accept_services.require_open(
                workspace=workspace, suggestion_id=_accepting(workspace, claim, suggestion_id).suggestion.id,
                by=actor_name(request.user),
            )  # fmt: skip
        except (UserError, Http404) as error:
            status = error.status if isinstance(error, UserError) else 422
            return _render_form(request, workspace, claim, form, status=status, error=str(error))
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
        page = preview_selectors.preview_page(
            workspace=workspace, claim_id=claim.id, statement=data["statement"], previewed=previewed
        )
    except (UserError, Conflict) as error:
        if isinstance(error, preview_services.ClaimNotCurrent):
            claim = _reread(workspace, claim)
        return _render_form(
            request,
            workspace,
            claim,
            CorrectionForm(data),
            status=409 if isinstance(error, Conflict) else 422,
            error=str(error),
        )
    preview = page.preview
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
        impact=page.impact,
        picture=page.picture,
        apply_form=apply_form,
        notice=notice,
        changes=page.changes,
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
        outcome = apply_services.apply(
            workspace=workspace, claim_id=claim_id, actor=request.user, evidence=form.evidence(),
            suggestion_id=data.get("suggestion_id") or None,
            **{k: data[k] for k in ("statement", "reason", "revision", "idempotency_key")},
        )  # fmt: skip
    except preview_services.StalePreview:
        notice = "Something this correction depends on changed since your preview, so nothing was applied. Here is the impact as it is now; check it and apply again."
        return _render_preview(request, workspace, claim, data, notice=notice, previewed=data["previewed"])
    except preview_services.ClaimNotCurrent as error:
        claim = _reread(workspace, claim)
        return _render_form(request, workspace, claim, CorrectionForm(form.cleaned_data), status=409, error=str(error))
    except (EvidenceNotFound, sources_services.SourceNotFound, apply_services.CitedSourceChanged) as error:
        status = 409 if isinstance(error, Conflict) else 422
        refused = _cited_passage_refused(error)
        return _render_form(request, workspace, claim, CorrectionForm(request.POST), status=status, error=refused)
    except UserError as error:  # a Conflict (409), a suggestion its reviewer flagged (403), or bad input (422)
        return _render_form(
            request, workspace, claim, CorrectionForm(form.cleaned_data), status=error.status, error=str(error)
        )
    messages.success(
        request,
        "Correction applied." if outcome.status == ApplyStatus.APPLIED else "This correction had already been applied.",
    )
    target = reverse("corrections:detail", kwargs={"ws_id": workspace.id, "correction_id": outcome.correction_id})
    if request.htmx:
        return HttpResponseClientRedirect(target, status=204)
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
