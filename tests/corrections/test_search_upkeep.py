"""The claims' fulltext index kept up by every write search reads: a claim made, a claim superseded by a
correction, and a search as of a moment before it (claims/fulltext.py says what a word match is)."""

from __future__ import annotations

import pytest

from afterhack.clock import now_iso
from claims.selectors import search as search_selectors
from tests.corrections.conftest import World

pytestmark = pytest.mark.django_db


def found(world: World, query: str, as_of: str | None = None) -> tuple[list[tuple[str, str]], bool]:
    """The first page of the search: (statement, status) of each claim, best first, and whether it fell back."""
    page = search_selectors.claim_search_page(
        workspace=world.trio.workspace, query=query, limit=50, cursor=None, as_of=as_of
    )
    return [(claim.statement, claim.status) for claim in page.claims.items], page.fell_back


class SearchIndexUpkeepTests:
    def test_a_correction_is_found_at_once_the_old_claim_as_superseded_and_as_of_before_it_as_it_was(
        self, world: World
    ) -> None:
        july, fell_back = found(world, "launch is in July")
        assert fell_back and all("July" not in statement for statement, _ in july)  # no such phrase yet
        before = now_iso()
        revision = world.preview(world.june, "The launch is in July.").json()["revision"]
        assert world.apply(world.june, revision).status_code in (200, 201)

        # The replacement is in the index as soon as the correction is applied: found as a phrase.
        assert found(world, "launch is in July") == ([("The launch is in July.", "current")], False)
        # The corrected claim is still found, as superseded, after the current claim with the same words.
        june, fell_back = found(world, "the launch is in June")
        assert not fell_back
        assert june == [("we were told the launch is in June.", "current"), ("The launch is in June.", "superseded")]
        # As of before the correction: no replacement yet, and the June claim as it was then, current first.
        then, _ = found(world, "the launch is in June", as_of=before)
        assert ("The launch is in June.", "current") in then and len(then) == 2
        assert all(statement != "The launch is in July." for statement, _ in found(world, "launch July", before)[0])
