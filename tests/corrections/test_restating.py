"""A remaining support that says what is being corrected is flagged: the API's `restating` and the page's check."""

from __future__ import annotations

import pytest

from corrections.services.preview import removed_words
from tests.conftest import client_for
from tests.corrections.conftest import World

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


class RemovedWordsTests:
    @pytest.mark.parametrize(
        ("old", "new", "removed"),
        [
            ("The launch is in June.", "The launch is in July.", {"june"}),
            ("The launch is in JUNE.", "the launch is in june!", set()),
            # Stop words never count: "in" → "on" removes nothing a reader would check.
            ("The launch is in June.", "The launch is on June.", set()),
            ("Ana owns the checklist.", "Bo owns the checklist.", {"ana"}),
            ("Launch on 12 June.", "Launch on 2 June.", {"12"}),
        ],
    )
    def test_the_content_words_the_correction_removes(self, old: str, new: str, removed: set[str]) -> None:
        assert removed_words(old, new) == removed


class RestatingTests:
    def test_a_support_restating_the_corrected_fact_is_flagged(self, world: World) -> None:
        launch = world.decision("Launch in June", [world.june], [world.northwind])
        body = world.preview(world.june).json()
        assert body["affected"]["decisions_still_supported"] == [launch]
        assert body["restating"] == [world.northwind]

    def test_a_support_sharing_no_removed_word_is_not_flagged(self, world: World) -> None:
        # Ana's checklist says nothing about June: the decision stands on it without a word of warning.
        ready = world.decision("Checklist ready for launch", [world.june], [world.ana])
        body = world.preview(world.june).json()
        assert body["affected"]["decisions_still_supported"] == [ready]
        assert body["restating"] == []

    def test_only_the_removed_words_count(self, world: World) -> None:
        # "launch" stays in the new statement, so the board's "June launch" is flagged for "june", not for "launch";
        # correcting to another launch month that the board also names removes nothing it says.
        world.decision("Launch in June", [world.june], [world.board])
        assert world.preview(world.june).json()["restating"] == [world.board]
        assert world.preview(world.june, "The launch is in June, not May.").json()["restating"] == []

    def test_decisions_needing_review_and_their_supports_are_not_restating(self, world: World) -> None:
        world.decision("Launch in June", [world.june])
        body = world.preview(world.june).json()
        assert body["affected"]["decisions_needing_review"] and body["restating"] == []

    def test_the_correct_page_asks_to_check_it_with_its_quote_and_open_actions(self, world: World) -> None:
        launch = world.decision("Launch in June", [world.june], [world.northwind])
        world.action("Send the launch announcement", launch)
        page = client_for(world.trio.reviewer).post(
            f"/w/{world.ws}/claims/{world.june}/correct",
            {"statement": "The launch is in July.", "reason": "The board moved it."},
            headers=HTMX,
        )
        text = page.content.decode()
        assert page.status_code == 200
        assert "Still supported — but check: this support says what you are correcting" in text
        section = text[text.index('id="restating"') :]
        assert "Launch in June" in section and "we were told the launch is in June" in section
        assert "Send the launch announcement" in section and "pending" in section

    def test_without_restating_supports_the_page_has_no_check(self, world: World) -> None:
        world.decision("Checklist ready for launch", [world.june], [world.ana])
        page = client_for(world.trio.reviewer).post(
            f"/w/{world.ws}/claims/{world.june}/correct",
            {"statement": "The launch is in July.", "reason": "The board moved it."},
            headers=HTMX,
        )
        assert page.status_code == 200 and 'id="restating"' not in page.content.decode()
