"""A correction may cite a passage across a page break of a source stored before page breaks became line breaks at
ingest: the passage is found whether the quote carries the page break or a line break in its place, and what the
replacement cites is the stored text's own passage."""

from __future__ import annotations

import pytest

from tests.claims.test_page_breaks_stored_before import stored_before
from tests.conftest import api_for
from tests.corrections.conftest import World
from tests.corrections.test_cited_evidence import apply, claim

pytestmark = pytest.mark.django_db

RISKS = "Risks\n\nThe certification may slip;\x0cif it does, the launch moves to July.\n"
PASSAGE = "slip;\x0cif it does"


class PageBreakCitationTests:
    def test_a_passage_across_a_page_break_is_cited_as_the_text_has_it(self, world: World) -> None:
        risks = stored_before(world.trio.workspace, RISKS, "Risks")
        start = RISKS.index(PASSAGE)
        for claim_id, quote in ((world.june, PASSAGE), (world.may, "slip;\nif it does")):
            body = {
                "statement": "It may move to July.", "reason": "The certification may slip.", "idempotency_key": claim_id,
                "revision": world.preview(claim_id, "It may move to July.").json()["revision"],
                "evidence": {"source_id": risks, "quote": quote},
            }  # fmt: skip
            result = api_for(world.trio.reviewer).post(f"/workspaces/{world.ws}/claims/{claim_id}/corrections", body)
            assert result.status_code == 201, result.content
            cited = claim(world, result.json()["replacement_claim_id"])["cited_passage"]
            assert (cited["quote"], cited["start"], cited["end"]) == (PASSAGE, start, start + len(PASSAGE))

    def test_a_passage_that_is_not_there_is_still_refused(self, world: World) -> None:
        risks = stored_before(world.trio.workspace, RISKS, "Risks")
        revision = world.preview(world.june).json()["revision"]
        refused = apply(world, revision, {"source_id": risks, "quote": "slip;\x0cif it did"})
        assert refused.status_code == 422 and refused.json()["error"] == "evidence_not_found"
        assert claim(world, world.june)["status"] == "current"
