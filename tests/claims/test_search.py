"""Claim search: case-insensitive containment, the content-word fallback, ranking, isolation."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from claims.selectors.search import content_words
from tests.claims.test_sources_api import add_source
from tests.conftest import Trio, api_for
from tests.waiting import wait_until
from workspaces.services import workspaces as workspace_services

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
        from claims.selectors.search import claim_search

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


def ids_of(answer: dict[str, Any]) -> list[str]:
    return [result["id"] for result in answer["results"]]


def launch_claims(ids: dict[str, str]) -> set[str]:
    """The seeded claims that have the word "launch"."""
    return {
        ids[said]
        for said in ["The launch is in June", "The launch budget is 40,000 EUR", "Ana owns the launch checklist"]
    }


class WordMatchTests:
    """What a lexical match is since it goes through the fulltext index (claims/fulltext.py): whole words with
    English stemming, the phrase as words side by side in order, case and punctuation folded, no query syntax."""

    def test_words_match_whole_with_their_stems_never_inside_another_word(self, trio: Trio) -> None:
        ids = seed(trio)
        launches = launch_claims(ids)
        assert set(ids_of(search(trio, "launches"))) == launches
        # A piece of a word is no word: the substring search found these, the word search does not.
        assert search(trio, "laun")["results"] == []
        assert search(trio, "udget")["results"] == []

    def test_a_phrase_is_its_words_side_by_side_in_order(self, trio: Trio) -> None:
        ids = seed(trio)
        answer = search(trio, "launch budget")
        assert (ids_of(answer), answer["fell_back_to_words"]) == ([ids["The launch budget is 40,000 EUR"]], False)
        # The same words apart or reversed are no phrase: the content words find each claim that has them.
        reversed_ = search(trio, "budget launch")
        assert reversed_["fell_back_to_words"] is True
        assert ids_of(reversed_)[0] == ids["The launch budget is 40,000 EUR"]  # both words: first
        assert len(ids_of(reversed_)) == 3

    def test_case_and_punctuation_are_folded(self, trio: Trio) -> None:
        ids = seed(trio)
        budget = [ids["The launch budget is 40,000 EUR"]]
        for q in ["LAUNCH, BUDGET!", "launch-budget", "(launch) [budget]", "40,000", "40 000", "budget is 40.000"]:
            assert ids_of(search(trio, quote(q))) == budget, q

    def test_letters_beyond_ascii_are_found_in_either_case(self, trio: Trio) -> None:
        client = api_for(trio.reviewer)
        text = "L'ÉCOLE ouvre en août. Das Büro zieht um. Ünïcödé wörds everywhere."
        source = add_source(client, str(trio.workspace.id), text=text)
        ids = {}
        for said in ["L'ÉCOLE ouvre en août", "Das Büro zieht um", "Ünïcödé wörds everywhere"]:
            body = {"source_id": source["id"], "statement": said + ".", "evidence_quote": said}
            ids[said] = client.post(f"/workspaces/{trio.workspace.id}/claims", body).json()["id"]
        assert ids_of(search(trio, quote("école ouvre"))) == [ids["L'ÉCOLE ouvre en août"]]
        assert ids_of(search(trio, quote("AOÛT"))) == [ids["L'ÉCOLE ouvre en août"]]
        assert ids_of(search(trio, quote("das BÜRO"))) == [ids["Das Büro zieht um"]]
        # Four accented letters: asked as typed, lower, upper and capitalized (not in every mix).
        assert ids_of(search(trio, quote("ÜNÏCÖDÉ"))) == [ids["Ünïcödé wörds everywhere"]]
        assert ids_of(search(trio, quote("ünïcödé"))) == [ids["Ünïcödé wörds everywhere"]]

    def test_query_syntax_is_never_syntax_and_never_matches_everything(self, trio: Trio) -> None:
        ids = seed(trio)
        launches = launch_claims(ids)
        for q in ["-launch", "@statement:launch", "launch*", '"launch"', "(launch", "%launch%", "~launch", "{launch}"]:
            assert set(ids_of(search(trio, quote(q)))) == launches, q  # the word, never a negation or operator
        for q in ["*", '"', "|", "-", "@", "()", "=>", "$", "\\", "…", "🚀", "%%", "'" * 40]:
            assert search(trio, quote(q))["results"] == [], q
        # `|` is no union: "launch|office" is two words, not side by side, so the content words answer.
        either = search(trio, quote("launch|office"))
        assert either["fell_back_to_words"] is True and len(ids_of(either)) == 4
        long = " ".join(["launch"] * 200) + " " + "x" * 300
        assert isinstance(search(trio, quote(long))["results"], list)

    def test_the_same_search_ranks_alike_and_its_pages_never_overlap(self, trio: Trio) -> None:
        client = api_for(trio.reviewer)
        notes = [f"Launch note {n} for the launch team" for n in range(7)] + ["Team note"]
        source = add_source(client, str(trio.workspace.id), text=". ".join(notes) + ".")
        for note in notes:
            body = {"source_id": source["id"], "statement": note + ".", "evidence_quote": note}
            assert client.post(f"/workspaces/{trio.workspace.id}/claims", body).status_code == 201
        for q in ["launch note", "team launch"]:  # the phrase, and the fallback
            whole = search(trio, quote(q) + "&limit=100")
            assert whole == search(trio, quote(q) + "&limit=100")
            seen, cursor = [], None
            while True:
                page = search(trio, quote(q) + "&limit=3" + (f"&cursor={quote(cursor)}" if cursor else ""))
                assert page["count"] == whole["count"] == len(whole["results"])
                seen += ids_of(page)
                if not (cursor := page.get("next")):
                    break
            assert seen == ids_of(whole)


class AnyTextTests:
    @settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(st.text(max_size=120) | st.text(alphabet="launch budget()|-@*\"'~%:{}[]$=>\\ ÉéÜü", max_size=60))
    def test_any_text_searches_without_error_and_finds_only_claims_sharing_a_word(self, trio: Trio, q: str) -> None:
        """The hostile-input property of the lexical search: whatever is typed, no error, and each claim found
        shares a word with the query (its stem: the first three letters alike), so syntax never widens a search."""
        from claims import fulltext
        from claims.selectors.search import lexical_claims

        if not getattr(self, "seeded", False):
            seed(trio)
            self.seeded = True
        result = lexical_claims(workspace=trio.workspace, query=q, candidates=50)
        asked = {word.casefold()[:3] for word in fulltext.words(q)}
        for hit in result.hits:
            assert asked & {word.casefold()[:3] for word in fulltext.words(hit.statement)}, (q, hit.statement)


class IndexDefinitionTests:
    def test_the_index_an_earlier_build_made_answers_the_word_search_alike(self, trio: Trio) -> None:
        """graph_ensure keeps an existing index: the one made without options (as before words) has the same
        stemming and no stop words, so every phrase and word is found as in a new workspace."""

        from afterhack import graph
        from workspaces.services import workspaces as workspace_services

        seed(trio)
        queries = ["the", "The launch is in June", "launches", "is in", "when is the launch of the office?", "a"]
        new = [search(trio, quote(q)) for q in queries]
        graph.query(trio.workspace, "CALL db.idx.fulltext.drop('Claim')")
        graph.query(trio.workspace, "CALL db.idx.fulltext.createNodeIndex('Claim', 'statement')")
        workspace_services.graph_ensure(workspace=trio.workspace)
        # FalkorDB fills an index made over existing claims in the background.
        read = "CALL db.indexes() YIELD label, status WHERE label = 'Claim' RETURN status"
        wait_until(
            lambda: all(status == "OPERATIONAL" for [status] in graph.ro_query(trio.workspace, read)),
            seconds=30, what="the Claim indexes to be filled",
        )  # fmt: skip
        assert [search(trio, quote(q)) for q in queries] == new
        assert len(new[0]["results"]) == 4 and new[-1]["results"] == []


def quote(q: str) -> str:
    from urllib.parse import quote as quoted

    return quoted(q, safe="")


class FallbackRankingTests:
    def test_the_counts_asked_apart_rank_as_counting_each_claims_words_would(
        self, trio: Trio, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """The fallback asks the index for the claims with exactly k of the words, k from all down to one, and
        stops once those fill the candidates; it ranks as counting every claim's words does, window by window."""
        from itertools import combinations

        from claims import fulltext
        from claims.graph import search as search_graph

        words = ["alpha", "beta", "gamma", "delta"]
        statements = [
            " ".join([*subset, "note", str(n)])
            for k in range(1, 5)
            for subset in combinations(words, k)
            for n in (1, 2)
        ]
        client = api_for(trio.reviewer)
        source = add_source(client, str(trio.workspace.id), text=". ".join(statements) + ".")
        for said in statements:
            body = {"source_id": source["id"], "statement": said + ".", "evidence_quote": said}
            assert client.post(f"/workspaces/{trio.workspace.id}/claims", body).status_code == 201
        ws = trio.workspace

        def ranking(
            terms: list[str], candidates: int, offset: int, limit: int | None
        ) -> tuple[int, list[tuple[str, int]]]:
            ranked = search_graph.claim_search_terms(
                workspace=ws, terms=terms, candidates=candidates, offset=offset, limit=limit
            )
            return ranked.total, [(hit.statement, hit.hits) for hit in ranked.hits]

        for terms in (["alpha", "beta"], ["gamma", "alpha", "delta"], words, ["beta", "zzz"], ["alpha"]):
            whole = ranking(terms, 1000, 0, None)
            monkeypatch.setattr(fulltext, "MAX_TIERED_WORDS", 0)  # each word asked apart, counted per claim
            counted = ranking(terms, 1000, 0, None)
            monkeypatch.undo()
            # The same claims with the same counts (within a count the index's scores of the two ways differ).
            assert whole[0] == counted[0] and dict(whole[1]) == dict(counted[1]), terms
            assert [hits for _, hits in whole[1]] == sorted((hits for _, hits in whole[1]), reverse=True)
            for candidates, offset, limit in ((1000, 3, 5), (9, 0, None), (9, 7, 4), (30, 12, 3), (30, 28, 10)):
                capped = ranking(terms, candidates, 0, None)
                assert capped == (min(whole[0], candidates), whole[1][:candidates]), (terms, candidates)
                end = None if limit is None else offset + limit
                window = ranking(terms, candidates, offset, limit)
                assert window == (capped[0], capped[1][offset:end]), (terms, candidates, offset, limit)
        # Those with both alpha and beta first: 8 (two for each subset of the other two), then the 16 with one.
        total, ranked = ranking(["alpha", "beta"], 1000, 0, None)
        assert total == 24 and {hits for _, hits in ranked[:8]} == {2} and {hits for _, hits in ranked[8:]} == {1}
