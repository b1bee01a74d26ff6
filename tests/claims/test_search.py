"""Claim search: case-insensitive containment, the content-word fallback, ranking, isolation."""

from __future__ import annotations

from typing import Any

import pytest

from claims.selectors import content_words
from tests.claims.test_sources_api import add_source
from tests.conftest import Trio, api_for
from workspaces import services as workspace_services

pytestmark = pytest.mark.django_db

TEXT = (
    "The launch is in June. The launch budget is 40,000 EUR. Ana owns the launch checklist. "
    "Marketing starts in May. The office moves to Berlin in July."
)


def seed(trio: Trio, client: Any = None, ws: Any = None) -> dict[str, str]:
    client = client or api_for(trio.reviewer)
    ws = ws or trio.workspace
    source = add_source(client, str(ws.id), text=TEXT)
    ids = {}
    for sentence in TEXT.split(". "):
        quote = sentence.rstrip(".")
        body = {"source_id": source["id"], "statement": quote + ".", "evidence_quote": quote}
        ids[quote] = client.post(f"/workspaces/{ws.id}/claims", body).json()["id"]
    return ids


def search(trio: Trio, q: str) -> dict[str, Any]:
    response = api_for(trio.viewer).get(f"/workspaces/{trio.workspace.id}/claims?q={q}")
    assert response.status_code == 200
    return dict(response.json())


class SearchTests:
    def test_it_matches_a_phrase_case_insensitively(self, trio: Trio) -> None:
        ids = seed(trio)
        results = search(trio, "LAUNCH BUDGET")["results"]
        assert [r["id"] for r in results] == [ids["The launch budget is 40,000 EUR"]]
        assert results[0]["evidence_quote"] == "The launch budget is 40,000 EUR"

    def test_a_sentence_that_matches_nothing_falls_back_to_its_content_words_ranked(self, trio: Trio) -> None:
        ids = seed(trio)
        answer = search(trio, "When is the launch of the product in June?")
        assert answer["fell_back_to_words"] is True
        ranked = [r["id"] for r in answer["results"]]
        # "launch" and "june" both: first; "launch" only: after; nothing about the office.
        assert ranked[0] == ids["The launch is in June"]
        assert set(ranked[1:]) == {ids["The launch budget is 40,000 EUR"], ids["Ana owns the launch checklist"]}
        assert ids["The office moves to Berlin in July"] not in ranked

    def test_stop_words_alone_find_nothing(self, trio: Trio) -> None:
        seed(trio)
        assert search(trio, "what is the")["results"] == []
        assert content_words("What is THE launch, in June?") == ["launch", "june"]

    def test_an_empty_query_returns_nothing(self, trio: Trio) -> None:
        seed(trio)
        assert search(trio, "")["results"] == []

    def test_it_never_returns_another_workspaces_claims(self, trio: Trio) -> None:
        other = workspace_services.workspace_create(name="Other", creator=trio.reviewer)
        seed(trio, ws=other)
        assert search(trio, "launch")["results"] == []
        assert api_for(trio.outsider).get(f"/workspaces/{trio.workspace.id}/claims?q=launch").status_code == 404

    def test_hostile_query_syntax_is_just_text(self, trio: Trio) -> None:
        seed(trio)
        for q in ["launch%", "@statement:launch", "June' OR 1=1 //", "(((", "*"]:
            assert isinstance(search(trio, q)["results"], list)


class SameRankingEverywhereTests:
    def test_the_search_everyone_calls_ranks_like_the_apis_first_page(self, trio: Trio) -> None:
        """MCP, the Analyst and the pages call claim_search: beyond the newest few dozen matches too, its best
        claims are the API's first page (it once ranked only the newest matches, four times the limit)."""
        from claims.selectors import claim_search

        notes = [f"Launch note {n}" for n in range(45)]
        text = "Ana owns the launch checklist. " + ". ".join(notes) + "."
        client = api_for(trio.reviewer)
        source = add_source(client, str(trio.workspace.id), text=text)
        for quote in ["Ana owns the launch checklist", *notes]:
            body = {"source_id": source["id"], "statement": quote + ".", "evidence_quote": quote}
            assert client.post(f"/workspaces/{trio.workspace.id}/claims", body).status_code == 201
        question = "Who owns the launch checklist?"
        api_first_page = [claim["statement"] for claim in search(trio, question + "&limit=10")["results"]]
        searched = claim_search(workspace=trio.workspace, query=question, limit=10)
        assert api_first_page[0] == "Ana owns the launch checklist."
        assert [hit.statement for hit in searched.hits] == api_first_page
