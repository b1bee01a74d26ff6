"""The sources' pages: the list, a new source (pasted or uploaded), a source with its highlighted text, its claims
and its extraction box, and a claim added from the text.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from html import escape
from typing import Any
from uuid import UUID

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import Truncator
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from afterhack.errors import UserError, found
from afterhack.htmx import HtmxRequest
from afterhack.lists.spec import render_listing
from afterhack.templatetags.afterhack import in_words
from afterhack.text import MAX_STATEMENT_CHARS, MAX_TITLE_CHARS
from claims.lists import EXTRACTION_WORDS, SOURCE_STATUS_WORDS, SOURCES
from claims.selectors import sources as sources_selectors
from claims.services import claims as claims_services
from claims.services import extraction as extraction_services
from claims.services import sources as sources_services
from claims.services.extraction import extractor_label
from claims.statuses import JobStatus
from claims.text import MAX_SOURCE_CHARS
from workspaces.access import get_membership, get_rw_workspace_for_user

MAX_UPLOAD_BYTES = 8 * 1024 * 1024


class SourceForm(forms.Form):
    title = forms.CharField(max_length=MAX_TITLE_CHARS, required=False, strip=True)
    text = forms.CharField(widget=forms.Textarea, required=False, strip=False)
    file = forms.FileField(required=False, help_text="A .txt or .md file in UTF-8.")
    # Checked on the empty form: a new source's claims are usually wanted at once (and then watched for contradictions).
    extract = forms.BooleanField(required=False, initial=True)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        upload = data.get("file")
        if upload is not None and data.get("text"):
            raise forms.ValidationError("Paste the text or upload a file, not both.")
        if upload is not None:
            if not upload.name.lower().endswith((".txt", ".md", ".markdown")):
                raise forms.ValidationError("Upload a .txt or .md file (plain text in UTF-8).")
            if upload.size > MAX_UPLOAD_BYTES:
                raise forms.ValidationError(f"The file is {upload.size:,} bytes; the limit is {MAX_UPLOAD_BYTES:,}.")
            data["text"] = upload.read()
            data["title"] = data.get("title") or upload.name.rsplit(".", 1)[0]
        elif not data.get("text") and "file" not in self.errors:
            raise forms.ValidationError("Paste the text, or choose a file to upload.")
        return data


class ClaimForm(forms.Form):
    statement = forms.CharField(max_length=MAX_STATEMENT_CHARS, strip=True)
    evidence_quote = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), strip=False)
    start = forms.IntegerField(required=False, min_value=0)


@require_GET
@login_required
def source_list(request: HtmxRequest, ws_id: UUID) -> HttpResponse:
    membership = get_membership(request.user, ws_id)
    workspace = membership.workspace
    listing = SOURCES.read_page(
        request.GET, path=request.path, read=sources_selectors.source_rows, count=sources_selectors.source_rows_count,
        workspace=workspace,
    )  # fmt: skip
    context = {
        "workspace": workspace, "membership": membership, "listing": listing,
        "status_words": dict(SOURCE_STATUS_WORDS), "extraction_words": dict(EXTRACTION_WORDS),
    }  # fmt: skip
    return render_listing(request, "claims/source_list.html", context, listing=listing)


@require_http_methods(["GET", "POST"])
@login_required
def source_new(request: HtmxRequest, ws_id: UUID) -> HttpResponse:
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    form = SourceForm(request.POST or None, request.FILES or None)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                added = sources_services.source_add(
                    workspace=workspace,
                    title=form.cleaned_data["title"],
                    text=form.cleaned_data["text"],
                    actor=request.user,
                )
            except UserError as error:
                form.add_error(None, str(error))
            else:
                if form.cleaned_data["extract"]:
                    extraction_services.extraction_request(workspace=workspace, source_id=added.id, actor=request.user)
                    messages.success(
                        request,
                        f"Added “{added.title}” ({added.length:,} characters). Its claims are being extracted; each "
                        "new claim is compared with the claims already here, and a contradiction waits for review.",
                    )
                else:
                    messages.success(
                        request,
                        f"Added “{added.title}” ({added.length:,} characters). Extract claims from it, or "
                        "select words in the text to add one.",
                    )
                return redirect("claims:source", ws_id=workspace.id, source_id=added.id)
        status = 422
    context = {
        "workspace": workspace, "membership": get_membership(request.user, workspace.id), "form": form,
        "max_chars": MAX_SOURCE_CHARS, "max_bytes": MAX_UPLOAD_BYTES, "extractor_label": extractor_label(),
    }  # fmt: skip
    return render(request, "claims/source_new.html", context, status=status)


def _source_context(request: HtmxRequest, ws_id: UUID, source_id: str, **extra: Any) -> dict[str, Any]:
    membership = get_membership(request.user, ws_id)
    page = found(
        sources_selectors.source_page(workspace=membership.workspace, source_id=source_id),
        sources_services.SourceNotFound(),
    )
    return {
        "workspace": membership.workspace, "membership": membership, "page": page,
        "claim_items": SourceClaimItems(membership.workspace.id, page.claims),
        "claim_form": extra.pop("claim_form", None) or ClaimForm(), "extractor_label": extractor_label(), **extra,
    }  # fmt: skip


@dataclass(frozen=True)
class SourceClaimItems:
    """The list items of the claims under the source text, made only when a template prints them.

    A source can have thousands of claims: a template loop over them (a `{% url %}`, filters and branches each)
    cost most of the page's time, so the items are joined here, every value escaped, as the loop wrote them.
    """

    ws_id: UUID
    claims: list[sources_selectors.SourceClaim]

    def __str__(self) -> SafeString:
        # The template turns what it prints into a string first: this one says it is already HTML.
        return mark_safe(self.__html__())  # noqa: S308 - every value in the items is escaped

    def __html__(self) -> str:
        if not self.claims:
            return ""
        # One reverse: every claim's address is the first one's with its own id.
        first = self.claims[0].id
        address = reverse("claims:claim", kwargs={"ws_id": self.ws_id, "claim_id": first})
        cut = address.rindex(first)
        before, after = address[:cut], address[cut + len(first) :]
        return "".join(
            _claim_item(claim, before, after, _badge(claim.status), _found_by(claim.extractor)) for claim in self.claims
        )


# A status's badge and who found a claim are made once each (a source's claims share a few of them).
@lru_cache(maxsize=256)
def _badge(status: str) -> str:
    return f' <span class="badge st-{escape(status)}">{escape(in_words(status))}</span>'


EXTRACTOR_WORDS = {
    "manual": "added by a reviewer", "agent": "proposed by an agent", "rule_based": "found by the offline extractor"
}  # fmt: skip


@lru_cache(maxsize=256)
def _found_by(extractor: str) -> str:
    """Who found a claim, in words ("" when no extractor is recorded)."""
    words = EXTRACTOR_WORDS.get(extractor) or (f"found by {extractor.replace('model:', '')}" if extractor else "")
    return f' <span class="muted small">{escape(words)}</span>' if words else ""


def _claim_item(claim: sources_selectors.SourceClaim, before: str, after: str, badge: str, found_by: str) -> str:
    """One claim of the source's list: its statement linked to its page, its status in words (`badge`), who
    found it, and its quote when that says more than the statement."""
    claim_id = escape(claim.id)
    quote = ""
    if claim.quote_differs:
        shown = claim.quote if len(claim.quote) <= QUOTE_SHOWN else Truncator(claim.quote).chars(QUOTE_SHOWN)
        quote = f' <q class="verbatim small">{escape(shown)}</q>'
    return (
        f'<li id="claim-{claim_id}"><a href="{before}{claim_id}{after}">{escape(claim.statement)}</a>'
        f"{badge}{found_by}{quote}</li>\n"
    )


# The characters of a claim's quote the source's list shows.
QUOTE_SHOWN = 160


@require_GET
@login_required
def source_detail(request: HtmxRequest, ws_id: UUID, source_id: str) -> HttpResponse:
    return render(request, "claims/source_detail.html", _source_context(request, ws_id, source_id))


@require_GET
@login_required
def source_extraction(request: HtmxRequest, ws_id: UUID, source_id: str) -> HttpResponse:
    """The extraction box; polled while a run is going. When one finishes, the page reloads to show it."""
    return _extraction_box(request, _source_context(request, ws_id, source_id), reload=bool(request.GET.get("polling")))


def _extraction_box(request: HtmxRequest, context: dict[str, Any], *, reload: bool) -> HttpResponse:
    """The extraction box; with `reload`, a finished run has htmx reload the page (its highlights and lists)."""
    response = render(request, "claims/source_detail.html#extraction", context)
    extraction = context["page"].extraction
    if reload and extraction is not None and extraction.status in (JobStatus.DONE, JobStatus.FAILED):
        response["HX-Refresh"] = "true"
    return response


@require_POST
@login_required
def source_extract(request: HtmxRequest, ws_id: UUID, source_id: str) -> HttpResponse:
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    try:
        extraction_services.extraction_request(workspace=workspace, source_id=source_id, actor=request.user)
    except UserError as error:
        messages.error(request, str(error))
        return redirect("claims:source", ws_id=workspace.id, source_id=source_id)
    if request.htmx:
        # A worker may finish before this answer is written: then the page reloads at once, as after polling.
        return _extraction_box(request, _source_context(request, ws_id, source_id), reload=True)
    return redirect("claims:source", ws_id=workspace.id, source_id=source_id)


@require_POST
@login_required
def claim_add(request: HtmxRequest, ws_id: UUID, source_id: str) -> HttpResponse:
    workspace = get_rw_workspace_for_user(request.user, ws_id)
    form = ClaimForm(request.POST)
    if form.is_valid():
        try:
            claim = claims_services.claim_add(
                workspace=workspace, source_id=source_id, actor=request.user, **form.cleaned_data
            )
        except claims_services.EvidenceNotFound as error:
            form.add_error("evidence_quote", str(error))
        except UserError as error:
            form.add_error(None, str(error))
        else:
            messages.success(request, f"Claim added: “{claim.statement}”")
            if request.htmx:
                # The whole page changes (a new highlight): have htmx load it rather than swap it in.
                target = reverse("claims:source", kwargs={"ws_id": workspace.id, "source_id": source_id})
                return HttpResponseClientRedirect(target, status=204)
            return redirect("claims:source", ws_id=workspace.id, source_id=source_id)
    context = _source_context(request, ws_id, source_id, claim_form=form)
    if request.htmx:
        return render(request, "claims/source_detail.html#claim-form", context, status=422)
    return render(request, "claims/source_detail.html", context, status=422)
