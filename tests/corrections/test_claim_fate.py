"""A claim that no longer holds says what happened: who, when, why and to what, with links and no correction form."""

from __future__ import annotations

import html

import pytest

from tests.conftest import api_for, client_for
from tests.corrections.conftest import World

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def correct(world: World) -> dict:
    revision = world.preview(world.june).json()["revision"]
    applied = world.apply(world.june, revision)
    assert applied.status_code == 201
    return dict(applied.json())


class SupersededTests:
    def test_the_claim_page_says_who_when_why_and_to_what(self, world: World) -> None:
        applied = correct(world)
        page = html.unescape(client_for(world.trio.viewer).get(f"/w/{world.ws}/claims/{world.june}/").content.decode())
        fate = page[page.index('id="claim-fate"') :]
        assert f"by {world.trio.reviewer.username}" in fate and "UTC" in fate
        assert "The board moved it." in fate and "The launch is in July." in fate
        assert f"/w/{world.ws}/claims/{applied['replacement_claim_id']}/" in fate
        assert f"/w/{world.ws}/corrections/{applied['correction_id']}/" in fate
        assert "Correct this claim" not in page

    def test_the_correct_page_of_a_superseded_claim_has_no_form(self, world: World) -> None:
        applied = correct(world)
        page = client_for(world.trio.reviewer).get(f"/w/{world.ws}/claims/{world.june}/correct")
        text = html.unescape(page.content.decode())
        assert page.status_code == 200 and "already superseded" in text
        assert 'name="statement"' not in text and "Preview the impact" not in text
        assert "The board moved it." in text and f"/w/{world.ws}/corrections/{applied['correction_id']}/" in text
        # The one that holds now can be corrected in its turn, from here.
        assert f"/w/{world.ws}/claims/{applied['replacement_claim_id']}/correct" in text

    def test_a_second_tab_previewing_after_the_correction_is_told_what_happened(self, world: World) -> None:
        # The second tab opened the page while the claim was current; the first tab applied meanwhile.
        applied = correct(world)
        response = client_for(world.trio.reviewer).post(
            f"/w/{world.ws}/claims/{world.june}/correct",
            {"statement": "Launch in August.", "reason": "x"},
            headers=HTMX,
        )
        text = html.unescape(response.content.decode())
        assert response.status_code == 409 and 'hx-swap-oob="true"' in text
        assert "already superseded" in text and "The launch is in July." in text and "Preview the impact" not in text
        assert f"/w/{world.ws}/claims/{applied['replacement_claim_id']}/" in text

    def test_a_second_tab_applying_after_the_correction_is_told_what_happened(self, world: World) -> None:
        first = world.preview(world.june).json()
        second = world.preview(world.june, "The launch is in August.").json()
        assert world.apply(world.june, first["revision"], statement="The launch is in July.").status_code == 201
        fields = {
            "statement": "The launch is in August.",
            "reason": "Other tab.",
            "revision": second["revision"],
            "idempotency_key": "tab-2",
        }
        response = client_for(world.trio.reviewer).post(
            f"/w/{world.ws}/claims/{world.june}/correct/apply", fields, headers=HTMX
        )
        text = html.unescape(response.content.decode())
        assert response.status_code == 409 and "already superseded" in text and "The launch is in July." in text


class RetractedTests:
    def test_a_retracted_claim_says_who_retracted_its_source_and_when(self, world: World) -> None:
        source = api_for(world.trio.viewer).get(f"/workspaces/{world.ws}/claims/{world.northwind}").json()["source_id"]
        assert api_for(world.trio.reviewer).post(f"/workspaces/{world.ws}/sources/{source}/retract").status_code == 200
        page = html.unescape(
            client_for(world.trio.viewer).get(f"/w/{world.ws}/claims/{world.northwind}/").content.decode()
        )
        fate = page[page.index('id="claim-fate"') :]
        assert f"by {world.trio.reviewer.username}" in fate and "Its source “Email” was retracted." in fate
        assert f"/w/{world.ws}/sources/{source}/" in fate

    def test_a_claim_whose_quote_vanished_names_the_version(self, world: World) -> None:
        source = api_for(world.trio.viewer).get(f"/workspaces/{world.ws}/claims/{world.ana}").json()["source_id"]
        new_text = "Launch plan\n\nThe launch is in June. Marketing starts in May.\n"
        added = api_for(world.trio.reviewer).post(
            f"/workspaces/{world.ws}/sources/{source}/versions", {"text": new_text}
        )
        assert added.status_code == 201
        page = html.unescape(client_for(world.trio.viewer).get(f"/w/{world.ws}/claims/{world.ana}/").content.decode())
        assert "Its quote is no longer in version 2 of “Launch plan”." in page
        correct_page = client_for(world.trio.reviewer).get(f"/w/{world.ws}/claims/{world.ana}/correct").content.decode()
        assert 'name="statement"' not in correct_page and "already retracted" in correct_page

    def test_a_claim_that_holds_has_no_story_to_tell(self, world: World) -> None:
        page = client_for(world.trio.reviewer).get(f"/w/{world.ws}/claims/{world.june}/").content.decode()
        assert 'id="claim-fate"' not in page and "Correct this claim" in page
