"""The correct page's passage picker, and the pages that show the passage a correction cited."""

from __future__ import annotations

import html
import re

import pytest

from afterhack import graph
from corrections.models import CorrectionIntent
from tests.conftest import client_for
from tests.corrections.conftest import World
from tests.corrections.test_cited_evidence import PASSAGE, RISKS, add_risks
from tests.corrections.test_pages import HTMX, apply_fields

pytestmark = pytest.mark.django_db


def correct_url(world: World) -> str:
    return f"/w/{world.ws}/claims/{world.june}/correct"


def preview(world: World, evidence: dict[str, str], headers: dict[str, str] | None = None) -> tuple[int, str]:
    body = {"statement": "The launch is in July.", "reason": "The certification slipped.", **evidence}
    response = client_for(world.trio.reviewer).post(
        correct_url(world), body, headers=HTMX if headers is None else headers
    )
    return response.status_code, response.content.decode()


def picker(page: str) -> str:
    found = re.search(r'<fieldset class="cite" id="passage-picker">.*?</fieldset>', page, re.S)
    assert found, "no passage picker on the page"
    return found[0]


def nothing_written(world: World) -> None:
    assert not CorrectionIntent.objects.exists()
    assert graph.ro_query(world.trio.workspace, "MATCH (x:Correction) RETURN count(x)") == [[0]]


class PassagePickerTests:
    def test_it_starts_at_the_claims_own_source_with_its_quote_marked(self, world: World) -> None:
        add_risks(world)
        page = client_for(world.trio.reviewer).get(correct_url(world)).content.decode()
        shown = picker(page)
        assert re.search(r"<option value=\"[^\"]+\" selected>Launch plan \(the claim's source\)</option>", shown)
        assert ">Risks</option>" in shown
        assert shown.index("the claim's source") < shown.index(">Risks</option>")  # though Risks is newer
        assert '<mark class="own-quote">The launch is in June</mark>' in shown
        assert 'data-quote-input="evidence-quote" data-start-input="evidence-start"' in shown
        # Nothing is cited until a passage is selected.
        assert '<p class="cited" id="cited-passage" role="status" hidden>' in shown

    def test_choosing_another_source_reloads_only_the_picker(self, world: World) -> None:
        risks = add_risks(world)
        response = client_for(world.trio.reviewer).get(correct_url(world), {"evidence_source_id": risks}, headers=HTMX)
        fragment = response.content.decode()
        assert response.status_code == 200
        assert fragment.lstrip().startswith('<fieldset class="cite" id="passage-picker">') and "<html" not in fragment
        assert html.escape(PASSAGE, quote=False) in fragment and "own-quote" not in fragment
        assert re.search(rf'<option value="{risks}" selected>Risks</option>', fragment)

    def test_no_source_or_an_unknown_one_shows_no_text(self, world: World) -> None:
        for chosen in ("", "not-a-source"):
            response = client_for(world.trio.reviewer).get(
                correct_url(world), {"evidence_source_id": chosen}, headers=HTMX
            )
            assert response.status_code == 200 and 'id="cite-text"' not in response.content.decode()

    def test_access(self, world: World) -> None:
        query = {"evidence_source_id": world.plan_version}
        assert client_for(world.trio.viewer).get(correct_url(world), query, headers=HTMX).status_code == 403
        assert client_for(world.trio.outsider).get(correct_url(world), query, headers=HTMX).status_code == 404


class CitedEvidencePagesTests:
    def test_the_passage_travels_through_preview_to_apply_and_is_shown_after(self, world: World) -> None:
        risks = add_risks(world)
        start = str(RISKS.index(PASSAGE))
        status, fragment = preview(
            world, {"evidence_source_id": risks, "evidence_quote": PASSAGE, "evidence_start": start}
        )
        assert status == 200 and fragment.lstrip().startswith('<section class="card impact"')
        fields = apply_fields(fragment)
        assert (fields["evidence_source_id"], fields["evidence_quote"], fields["evidence_start"]) == (
            risks,
            PASSAGE,
            start,
        )
        applied = client_for(world.trio.reviewer).post(f"{correct_url(world)}/apply", fields, headers=HTMX)
        assert applied.status_code == 204, applied.content.decode()

        detail = client_for(world.trio.viewer).get(applied["HX-Redirect"]).content.decode()
        assert "The correction also cites" in detail and f'<mark class="ev d1">{html.escape(PASSAGE)}</mark>' in detail
        assert f'href="/w/{world.ws}/sources/{risks}/">Risks</a>, version 1' in detail
        assert "and the passage it cites" in detail and "its only evidence" not in detail

        replacement = re.search(r'href="/w/[^/]+/claims/([^/]+)/">The launch is in July.</a>', detail)
        assert replacement
        claim_page = client_for(world.trio.viewer).get(f"/w/{world.ws}/claims/{replacement[1]}/").content.decode()
        assert "Also cites" in claim_page and f'<mark class="ev d1">{html.escape(PASSAGE)}</mark>' in claim_page
        assert f'href="/w/{world.ws}/sources/{risks}/">Risks</a>, version 1</p>' in claim_page
        # Its offsets only behind the Details toggle.
        assert f"<dt>Cited passage</dt><dd>characters {start}–" in claim_page.split("<summary>Details</summary>")[1]
        assert "human correction" in claim_page  # its own evidence is still shown first
        chain = client_for(world.trio.viewer).get(f"/w/{world.ws}/claims/{replacement[1]}/chain").content.decode()
        assert "a reviewer's correction" in chain and f"which says: <q>{html.escape(PASSAGE)}</q>" in chain

    def test_the_picked_passage_is_shown_before_apply_on_the_whole_page(self, world: World) -> None:
        risks = add_risks(world)
        status, page = preview(world, {"evidence_source_id": risks, "evidence_quote": PASSAGE}, headers={})
        assert status == 200
        shown = picker(page)
        assert "This correction will also cite: “" in shown and f">{html.escape(PASSAGE)}</span>”" in shown
        assert 'role="status" hidden' not in shown and "Remove</button>" in shown

    def test_a_paraphrase_is_refused_in_place_at_preview(self, world: World) -> None:
        risks = add_risks(world)
        status, fragment = preview(
            world, {"evidence_source_id": risks, "evidence_quote": "if so, the launch moves to July"}
        )
        assert status == 422 and 'id="correction-form" hx-swap-oob="true"' in fragment
        assert (
            "The passage to cite was refused: The quote does not occur in the source text, character for character."
            in html.unescape(fragment)
        )
        nothing_written(world)

    def test_a_paraphrase_slipped_into_apply_is_refused_in_place_and_writes_nothing(self, world: World) -> None:
        risks = add_risks(world)
        _, fragment = preview(world, {"evidence_source_id": risks, "evidence_quote": PASSAGE})
        fields = {**apply_fields(fragment), "evidence_quote": "if so, the launch moves to July"}
        response = client_for(world.trio.reviewer).post(f"{correct_url(world)}/apply", fields, headers=HTMX)
        body = html.unescape(response.content.decode())
        assert response.status_code == 422 and "The passage to cite was refused" in body
        assert "Nothing was applied" in body
        nothing_written(world)

    @pytest.mark.parametrize(
        ("source", "words"),
        [
            ("", "Choose the source the passage to cite is from."),
            ("not-a-source", "The passage to cite was refused: No such source in this workspace."),
            (
                "5f1d0c9a-0b8e-4a44-9a36-2b1c3d4e5f60",
                "The passage to cite was refused: No such source in this workspace.",
            ),
        ],
    )
    def test_a_passage_without_a_known_source_is_refused_in_words(self, world: World, source: str, words: str) -> None:
        status, fragment = preview(world, {"evidence_source_id": source, "evidence_quote": PASSAGE})
        assert status == 422 and words in fragment
        nothing_written(world)

    def test_without_a_passage_nothing_is_cited_even_with_a_source_chosen(self, world: World) -> None:
        risks = add_risks(world)
        _, fragment = preview(world, {"evidence_source_id": risks, "evidence_quote": ""})
        applied = client_for(world.trio.reviewer).post(f"{correct_url(world)}/apply", apply_fields(fragment))
        assert applied.status_code == 302
        detail = client_for(world.trio.viewer).get(applied["Location"]).content.decode()
        assert "its only evidence: the reviewer" in detail and "also cites" not in detail
