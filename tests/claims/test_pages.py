"""The claims pages: add a source (paste or upload), the highlighted text, search, provenance; access rules."""

from __future__ import annotations

import html
import re
from typing import Any
from uuid import uuid4

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from benchmarks.llm_server import json_reply
from claims.graph import sources as sources_graph
from claims.graph.shapes import Claim
from claims.graph.sources import ClaimSpan
from claims.highlight import highlight
from claims.selectors import search as claims_search
from claims.selectors.sources import SourceClaim
from claims.services import claims as claims_services
from claims.services import sources as sources_services
from claims.views.sources import SourceClaimItems
from tests.claims.test_sources_api import LAUNCH
from tests.conftest import Trio, client_for

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def make_source(trio: Trio, text: str = LAUNCH, title: str = "Launch plan") -> str:
    return sources_services.source_add(workspace=trio.workspace, title=title, text=text, actor=trio.reviewer).id


def add_claim(trio: Trio, source_id: str, statement: str, quote: str) -> Claim:
    """A claim citing `quote` of the source, added by the reviewer."""
    return claims_services.claim_add(
        workspace=trio.workspace, source_id=source_id, statement=statement, evidence_quote=quote, actor=trio.reviewer
    )


class AddSourcePageTests:
    def test_it_adds_a_pasted_source_and_shows_it(self, trio: Trio) -> None:
        response = client_for(trio.reviewer).post(
            f"/w/{trio.workspace.id}/sources/new", {"title": "Pasted", "text": "The launch is in June.\r\n"}
        )
        assert response.status_code == 302
        page = client_for(trio.viewer).get(response["Location"]).content.decode()
        assert "Pasted" in page and "The launch is in June." in page

    def test_it_adds_an_uploaded_utf8_file_titled_from_its_name(self, trio: Trio) -> None:
        upload = SimpleUploadedFile("board-minutes.md", "# Minutes\n\nBudget is 40k €.".encode())
        response = client_for(trio.reviewer).post(f"/w/{trio.workspace.id}/sources/new", {"title": "", "file": upload})
        assert response.status_code == 302
        sources = sources_graph.source_list(workspace=trio.workspace)
        assert [s.title for s in sources] == ["board-minutes"]

    @pytest.mark.parametrize(
        ("name", "content", "words"),
        [
            ("data.bin", b"\x00\x01", "Upload a .txt or .md file"),
            ("latin1.txt", "café".encode("latin-1"), "not UTF-8"),
            ("nul.txt", b"a\x00b", "NUL"),
            ("empty.txt", b"", "empty"),
        ],
    )
    def test_it_refuses_files_that_are_not_utf8_text_in_words(
        self, trio: Trio, name: str, content: bytes, words: str
    ) -> None:
        upload = SimpleUploadedFile(name, content)
        response = client_for(trio.reviewer).post(f"/w/{trio.workspace.id}/sources/new", {"title": "x", "file": upload})
        assert response.status_code == 422 and words in response.content.decode()
        assert sources_graph.source_list(workspace=trio.workspace) == []

    def test_its_menu_shows_members_to_an_admin(self, trio: Trio) -> None:
        page = client_for(trio.owner).get(f"/w/{trio.workspace.id}/sources/new").content.decode()
        assert f'href="/w/{trio.workspace.id}/members/"' in page

    def test_it_is_for_reviewers_and_admins_only(self, trio: Trio) -> None:
        assert client_for(trio.viewer).get(f"/w/{trio.workspace.id}/sources/new").status_code == 403
        assert client_for(trio.outsider).get(f"/w/{trio.workspace.id}/sources/new").status_code == 404
        assert (
            client_for(trio.viewer).post(f"/w/{trio.workspace.id}/sources/new", {"title": "t", "text": "x"}).status_code
            == 403
        )


class SourcePageTests:
    def test_it_highlights_every_claims_quote_and_renders_markup_inert(self, trio: Trio) -> None:
        text = "<script>alert('x')</script> The launch is in June. <b>bold</b> & more."
        source_id = make_source(trio, text=text)
        add_claim(trio, source_id, "June.", "The launch is in June")
        add_claim(trio, source_id, "Script.", "<script>alert('x')</script>")
        page = client_for(trio.viewer).get(f"/w/{trio.workspace.id}/sources/{source_id}/").content.decode()
        assert "<script>alert" not in page and "&lt;script&gt;alert('x')&lt;/script&gt;" in page
        assert "<b>bold</b>" not in page and "&lt;b&gt;bold&lt;/b&gt; &amp; more." in page
        assert page.count('<mark class="ev') == 2

    def test_the_source_page_follows_the_access_rules(self, trio: Trio) -> None:
        source_id = make_source(trio)
        assert client_for(trio.viewer).get(f"/w/{trio.workspace.id}/sources/{source_id}/").status_code == 200
        assert client_for(trio.outsider).get(f"/w/{trio.workspace.id}/sources/{source_id}/").status_code == 404
        assert client_for(trio.viewer).get(f"/w/{trio.workspace.id}/sources/nope/").status_code == 404
        assert client_for(trio.viewer).post(f"/w/{trio.workspace.id}/sources/{source_id}/extract").status_code == 403
        assert client_for(trio.viewer).post(f"/w/{trio.workspace.id}/sources/{source_id}/claims", {}).status_code == 403

    def test_adding_a_claim_with_a_paraphrase_explains_why_in_the_fragment(self, trio: Trio) -> None:
        source_id = make_source(trio)
        form = {"statement": "June.", "evidence_quote": "launch happens in June"}
        response = client_for(trio.reviewer).post(
            f"/w/{trio.workspace.id}/sources/{source_id}/claims", form, headers=HTMX
        )
        body = response.content.decode()
        assert response.status_code == 422 and body.lstrip().startswith('<section class="card" id="claim-form">')
        assert "does not occur in the source text" in body
        version = sources_graph.source_get(workspace=trio.workspace, source_id=source_id)
        assert version is not None
        assert sources_graph.version_claim_spans(workspace=trio.workspace, version_id=version.id) == []

    def test_the_extraction_box_is_a_fragment_for_htmx(
        self, trio: Trio, no_llm: None, django_capture_on_commit_callbacks: Any
    ) -> None:
        source_id = make_source(trio)
        with django_capture_on_commit_callbacks(execute=True):
            response = client_for(trio.reviewer).post(
                f"/w/{trio.workspace.id}/sources/{source_id}/extract", headers=HTMX
            )
        assert response.status_code == 200 and response.content.decode().lstrip().startswith(
            '<section class="card" id="extraction"'
        )
        polled = client_for(trio.viewer).get(
            f"/w/{trio.workspace.id}/sources/{source_id}/extraction?polling=1", headers=HTMX
        )
        assert "Done:" in polled.content.decode() and polled["HX-Refresh"] == "true"
        page = client_for(trio.viewer).get(f"/w/{trio.workspace.id}/sources/{source_id}/").content.decode()
        assert "offline rule-based extractor" in page and page.count('<mark class="ev') >= 3


class SourceWorkflowPageTests:
    def test_after_an_extraction_the_page_lists_the_new_claims_and_why_others_were_rejected(
        self, trio: Trio, llm: Any, django_capture_on_commit_callbacks: Any
    ) -> None:
        source_id = make_source(trio)
        kept = add_claim(trio, source_id, "Ana owns the checklist.", "Ana owns the launch checklist")
        llm.script(json_reply({"claims": [
            {"statement": "The launch is in June.", "evidence_quote": "The launch is in June", "confidence": 0.9},
            {"statement": "The CEO resigned.", "evidence_quote": "The CEO resigned yesterday", "confidence": 0.7},
        ]}))  # fmt: skip
        with django_capture_on_commit_callbacks(execute=True):
            client_for(trio.reviewer).post(f"/w/{trio.workspace.id}/sources/{source_id}/extract")
        page = client_for(trio.viewer).get(f"/w/{trio.workspace.id}/sources/{source_id}/").content.decode()
        version = sources_graph.source_get(workspace=trio.workspace, source_id=source_id)
        assert version is not None
        spans = sources_graph.version_claim_spans(workspace=trio.workspace, version_id=version.id)
        june = next(span for span in spans if span.statement == "The launch is in June.")
        added = page[page.index('aria-label="Claims this extraction added"') :].split("</ul>")[0]
        assert f'href="/w/{trio.workspace.id}/claims/{june.id}/">The launch is in June.</a>' in added
        assert "Ana owns" not in added
        assert "Done: 1 new claim, 1 rejected." in page and "Why one was rejected:" in page
        assert "quote not in the text" in page and ">not_found<" not in page
        listed = page[page.index('id="claims"') :].split("</ol>")[0]
        assert "Claims from this text (2)" in listed
        assert f'href="/w/{trio.workspace.id}/claims/{kept.id}/">Ana owns the checklist.</a>' in listed
        assert '<span class="badge st-current">current</span>' in listed and "added by a reviewer" in listed

    def test_offsets_and_hashes_are_behind_a_details_toggle(self, trio: Trio) -> None:
        source_id = make_source(trio)
        june = add_claim(trio, source_id, "June.", "The launch is in June")
        version = sources_graph.source_get(workspace=trio.workspace, source_id=source_id)
        assert version is not None
        page = client_for(trio.reviewer).get(f"/w/{trio.workspace.id}/sources/{source_id}/").content.decode()
        assert "Start offset" not in page and "fragments" not in page
        toggles = re.findall(r"<details class=\"exact\"[^>]*>.*?</details>", page, re.S)
        assert len(toggles) == 2 and version.sha256 in toggles[0] and 'id="start-input"' in toggles[1]
        assert "Where the quote starts" in toggles[1] and version.sha256 not in page.replace(toggles[0], "")
        claim_page = client_for(trio.viewer).get(f"/w/{trio.workspace.id}/claims/{june.id}/").content.decode()
        exact = re.findall(r"<details class=\"exact\">.*?</details>", claim_page, re.S)
        assert len(exact) == 1 and version.sha256 in exact[0] and "Characters 13–34" in exact[0]
        outside = claim_page.replace(exact[0], "")
        assert "sha256" not in outside.lower() and "13–34" not in outside and "Fragment" not in outside
        cards = client_for(trio.viewer).get(f"/w/{trio.workspace.id}/claims/cards?ids={june.id}").content.decode()
        assert "chars" not in cards and "13–34" not in cards

    def test_extracting_at_once_is_offered_checked_and_done_when_asked(
        self, trio: Trio, no_llm: None, django_capture_on_commit_callbacks: Any
    ) -> None:
        form = client_for(trio.reviewer).get(f"/w/{trio.workspace.id}/sources/new").content.decode()
        assert '<input type="checkbox" name="extract" value="1" checked>' in form
        assert "Offline rule-based extractor" in form
        with django_capture_on_commit_callbacks(execute=True):
            response = client_for(trio.reviewer).post(
                f"/w/{trio.workspace.id}/sources/new",
                {"title": "Update", "text": "The launch moved to July.", "extract": "1"},
                follow=True,
            )
        body = response.content.decode()
        assert "Its claims are being extracted" in body
        (source,) = sources_graph.source_list(workspace=trio.workspace)
        statements = [hit.statement for hit in claims_search.newest_claims(workspace=trio.workspace)]
        assert statements == ["The launch moved to July."] and source.title == "Update"
        # Unchecked (a form sends nothing for it): added only, as before.
        with django_capture_on_commit_callbacks(execute=True):
            client_for(trio.reviewer).post(
                f"/w/{trio.workspace.id}/sources/new", {"title": "Later", "text": "Budget 40k."}
            )
        assert len(claims_search.newest_claims(workspace=trio.workspace)) == 1

    def test_adding_a_source_says_what_to_do_next_without_internal_counts(self, trio: Trio) -> None:
        response = client_for(trio.reviewer).post(
            f"/w/{trio.workspace.id}/sources/new", {"title": "Plan", "text": "The launch is in June."}, follow=True
        )
        body = response.content.decode()
        assert "Added “Plan” (22 characters). Extract claims from it" in body and "fragment" not in body


@pytest.mark.django_db(transaction=True)
class FastWorkerTests:
    def test_an_extraction_finished_before_the_answer_reloads_the_page_at_once(self, trio: Trio, no_llm: None) -> None:
        # Committed for real, the task runs (eagerly) before the answer is written, as a quick worker would.
        source_id = make_source(trio)
        response = client_for(trio.reviewer).post(f"/w/{trio.workspace.id}/sources/{source_id}/extract", headers=HTMX)
        body = response.content.decode()
        assert "Done:" in body and response["HX-Refresh"] == "true"


class HighlightTests:
    def test_overlapping_spans_nest_and_every_piece_is_escaped(self) -> None:
        text = "a<b>cdef&g"
        spans = [ClaimSpan("one", 1, 5, "current", "One <1>"), ClaimSpan("two", 3, 8, "current", "Two")]
        html = str(highlight(text, spans))
        assert html == (
            'a<mark class="ev d1 st-current c0 from" data-claims="one" tabindex="0">'
            "&lt;b</mark>"
            '<mark class="ev d2 st-current c1 from to" data-claims="one two" '
            'tabindex="0">&gt;c</mark>'
            '<mark class="ev d1 st-current c1 to" data-claims="two" tabindex="0">def</mark>&amp;g'
        )

    def test_adjacent_claims_get_alternate_shades_and_their_own_edges(self) -> None:
        text = "June.Ana.Budget."
        spans = [
            ClaimSpan("a", 0, 5, "current", "June"),
            ClaimSpan("b", 5, 9, "current", "Ana"),
            ClaimSpan("c", 9, 16, "current", "Budget"),
        ]
        html = str(highlight(text, spans))
        classes = [found.split('"')[1] for found in html.split("<mark class=")[1:]]
        assert classes == ["ev d1 st-current c0 from to", "ev d1 st-current c1 from to", "ev d1 st-current c0 from to"]

    def test_identical_and_nested_spans_and_emoji_offsets(self) -> None:
        text = "🚀 launch in June 🚀"
        spans = [
            ClaimSpan("a", 2, 16, "current", "A"),
            ClaimSpan("b", 2, 16, "superseded", "B"),
            ClaimSpan("c", 9, 11, "current", "C"),
        ]
        html = str(highlight(text, spans))
        assert html.startswith('🚀 <mark class="ev d2 st-current c0 from" data-claims="a b"')
        assert '<mark class="ev d3 st-current c0 from to" data-claims="a b c" tabindex="0">in</mark>' in html
        assert html.endswith("June</mark> 🚀")


class SearchAndClaimPageTests:
    def test_the_search_page_serves_results_as_a_fragment(self, trio: Trio) -> None:
        source_id = make_source(trio)
        add_claim(trio, source_id, "The launch is in June.", "The launch is in June")
        empty = client_for(trio.viewer).get(f"/w/{trio.workspace.id}/claims/").content.decode()
        assert "1–1 of 1 claim" in empty and "The launch is in June." in empty
        full = client_for(trio.viewer).get(f"/w/{trio.workspace.id}/claims/?q=june").content.decode()
        assert "<html" in full and "The launch is in June." in full
        fragment = (
            client_for(trio.viewer)
            .get(f"/w/{trio.workspace.id}/claims/?q=june", headers={**HTMX, "HX-Target": "claims-list"})
            .content.decode()
        )
        assert fragment.lstrip().startswith('<section id="claims-list"') and "The launch is in June." in fragment
        assert client_for(trio.outsider).get(f"/w/{trio.workspace.id}/claims/?q=june").status_code == 404

    def test_the_claim_page_shows_the_because_chain_and_what_rests_on_it(self, trio: Trio) -> None:
        source_id = make_source(trio)
        june = add_claim(trio, source_id, "The launch is in June.", "The launch is in June")
        ana = add_claim(trio, source_id, "Ana owns it.", "Ana owns the launch checklist")
        derived = claims_services.derived_claim_add(
            workspace=trio.workspace,
            statement="Ana must be done by June.",
            derived_from=[june.id, ana.id],
            actor=trio.reviewer,
        )
        page = client_for(trio.viewer).get(f"/w/{trio.workspace.id}/claims/{june.id}/").content.decode()
        assert (
            "Launch plan" in page and "version 1" in page and '<mark class="ev d1">The launch is in June</mark>' in page
        )
        assert "Ana must be done by June." in page and "added the claim" in page
        derived_page = client_for(trio.viewer).get(f"/w/{trio.workspace.id}/claims/{derived.id}/").content.decode()
        assert "Derived from" in derived_page and "Ana owns it." in derived_page
        assert client_for(trio.outsider).get(f"/w/{trio.workspace.id}/claims/{june.id}/").status_code == 404

    def test_deriving_from_the_search_page(self, trio: Trio) -> None:
        source_id = make_source(trio)
        june = add_claim(trio, source_id, "The launch is in June.", "The launch is in June")
        response = client_for(trio.reviewer).post(
            f"/w/{trio.workspace.id}/claims/derive",
            {"statement": "Summer launch.", "derived_from": [june.id], "q": "june"},
        )
        assert response.status_code == 302
        refused = client_for(trio.viewer).post(
            f"/w/{trio.workspace.id}/claims/derive", {"statement": "x", "derived_from": [june.id]}
        )
        assert refused.status_code == 403
        nothing = client_for(trio.reviewer).post(f"/w/{trio.workspace.id}/claims/derive", {"statement": "Kept."})
        page = html.unescape(nothing.content.decode())
        assert nothing.status_code == 422 and "Choose the claims the new one follows from" in page
        assert 'value="Kept."' in page


class ClaimCardsTests:
    def test_the_cards_fragment_shows_the_clicked_claims_to_members_only(self, trio: Trio) -> None:
        source_id = make_source(trio)
        june = add_claim(trio, source_id, "June.", "The launch is in June")
        url = f"/w/{trio.workspace.id}/claims/cards?ids={june.id}+not-an-id"
        fragment = client_for(trio.viewer).get(url, headers=HTMX).content.decode()
        assert (
            fragment.lstrip().startswith('<article class="claim-card')
            and "<html" not in fragment
            and "June." in fragment
        )
        assert client_for(trio.outsider).get(url, headers=HTMX).status_code == 404


class HtmxNavigationTests:
    def test_a_claim_added_over_htmx_reloads_the_page_and_search_keeps_the_address(self, trio: Trio) -> None:
        source_id = make_source(trio)
        form = {"statement": "June.", "evidence_quote": "The launch is in June"}
        added = client_for(trio.reviewer).post(f"/w/{trio.workspace.id}/sources/{source_id}/claims", form, headers=HTMX)
        assert added.status_code == 204 and added["HX-Redirect"] == f"/w/{trio.workspace.id}/sources/{source_id}/"
        searched = client_for(trio.viewer).get(f"/w/{trio.workspace.id}/claims/?q=launch+june", headers=HTMX)
        # The search box pushes the address it searched (its value is the search), so a reload shows the same.
        box = searched.content.decode().split('type="search"', 1)[1].split(">", 1)[0]
        assert 'value="launch june"' in box and 'hx-push-url="true"' in box

    def test_pasting_and_uploading_at_once_is_explained(self, trio: Trio) -> None:
        upload = SimpleUploadedFile("a.txt", b"Some text.")
        response = client_for(trio.reviewer).post(
            f"/w/{trio.workspace.id}/sources/new", {"title": "x", "text": "Other.", "file": upload}
        )
        assert response.status_code == 422 and "not both" in response.content.decode()


class SourcePageContentTests:
    """What the source page shows of its claims: the list under the text (each statement linked to its claim,
    its status in words, who found it, its quote when that says more), and highlights that name their claims
    by id only (source.js takes their statements from the list)."""

    def test_the_claims_under_the_text_and_the_highlights(self, trio: Trio) -> None:
        source_id = make_source(trio)
        ana = add_claim(trio, source_id, "Ana owns the checklist.", "Ana owns the launch checklist")
        june = add_claim(trio, source_id, "The launch is in June.", "The launch is in June")
        budget = add_claim(trio, source_id, "Budget <40k> & approved", "the launch budget is 40,000 EUR")
        page = client_for(trio.viewer).get(f"/w/{trio.workspace.id}/sources/{source_id}/").content.decode()
        ws = trio.workspace.id
        assert "Claims from this text (3)" in page
        assert (
            f'<li id="claim-{ana.id}"><a href="/w/{ws}/claims/{ana.id}/">Ana owns the checklist.</a>'
            ' <span class="badge st-current">current</span> <span class="muted small">added by a reviewer</span>'
            ' <q class="verbatim small">Ana owns the launch checklist</q></li>'
        ) in page
        # A quote that only repeats the statement is not shown again; a statement is escaped.
        assert (
            f'<li id="claim-{june.id}"><a href="/w/{ws}/claims/{june.id}/">The launch is in June.</a>'
            ' <span class="badge st-current">current</span> <span class="muted small">added by a reviewer</span></li>'
        ) in page
        assert f'<a href="/w/{ws}/claims/{budget.id}/">Budget &lt;40k&gt; &amp; approved</a>' in page
        # In text order; every claim's passage highlighted, named by id, without its statement repeated.
        assert page.index(f'id="claim-{june.id}"') < page.index(f'id="claim-{ana.id}"')
        assert page.index(f'id="claim-{ana.id}"') < page.index(f'id="claim-{budget.id}"')
        text = page[page.index('<pre class="source-text"') : page.index("</pre>")]
        marks = re.findall(r"<mark [^>]*>", text)
        assert {claim_id for mark in marks for claim_id in re.findall(r'data-claims="([^"]*)"', mark)[0].split()} == {
            ana.id, june.id, budget.id
        }  # fmt: skip
        assert all(" title=" not in mark and 'tabindex="0"' in mark for mark in marks)
        assert "Ana owns the checklist" not in text
        assert "afterhack/source" in page

    def test_a_claims_item_says_its_status_and_finder_in_words_and_shortens_a_long_quote(self) -> None:
        quote = "word " * 40
        claims = [
            SourceClaim("c1", "Short.", "needs_review", quote, "model:gpt-x", "run"),
            SourceClaim("c2", "Found offline.", "superseded", "Found offline.", "rule_based", "run"),
            SourceClaim("c3", "Nobody.", "current", "Nobody.", "", "run"),
        ]
        ws_id = uuid4()
        html_items = str(SourceClaimItems(ws_id, claims))
        assert html_items == (
            f'<li id="claim-c1"><a href="/w/{ws_id}/claims/c1/">Short.</a>'
            ' <span class="badge st-needs_review">needs review</span> <span class="muted small">found by gpt-x</span>'
            f' <q class="verbatim small">{quote[:159]}…</q></li>\n'
            f'<li id="claim-c2"><a href="/w/{ws_id}/claims/c2/">Found offline.</a>'
            ' <span class="badge st-superseded">superseded</span>'
            ' <span class="muted small">found by the offline extractor</span></li>\n'
            f'<li id="claim-c3"><a href="/w/{ws_id}/claims/c3/">Nobody.</a>'
            ' <span class="badge st-current">current</span></li>\n'
        )
        assert str(SourceClaimItems(ws_id, [])) == ""
