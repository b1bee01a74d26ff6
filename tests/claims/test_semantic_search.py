"""Semantic and hybrid claim search: the embeddings model (the scripted local server), the vectors on the
claims, the modes, how each result matched, degrading to lexical, pages, embedding on create and the backfill."""

from __future__ import annotations

from io import StringIO
from typing import Any
from urllib.parse import urlencode

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from afterhack import graph
from claims.selectors import search as search_selectors
from claims.statuses import SearchMode
from tests.claims.test_search import TEXT
from tests.claims.test_sources_api import add_source
from tests.conftest import Trio, api_for, client_for
from workspaces.models import AuditEvent
from workspaces.services import workspaces as workspace_services

pytestmark = pytest.mark.django_db

JUNE = "The launch is in June"
ANA = "Ana owns the launch checklist"
BUDGET = "The launch budget is 40,000 EUR"
BERLIN = "The office moves to Berlin in July"


def seed(trio: Trio, capture: Any, ws: Any = None) -> dict[str, str]:
    """The launch claims, added through the API; the worker's embedding task runs as each request commits."""
    client = api_for(trio.reviewer)
    ws = ws or trio.workspace
    source = add_source(client, str(ws.id), text=TEXT)
    ids = {}
    for sentence in TEXT.split(". "):
        quote = sentence.rstrip(".")
        with capture(execute=True):
            body = {"source_id": source["id"], "statement": quote + ".", "evidence_quote": quote}
            response = client.post(f"/workspaces/{ws.id}/claims", body)
        assert response.status_code == 201, response.content
        ids[quote] = response.json()["id"]
    return ids


def search(trio: Trio, q: str, **params: Any) -> dict[str, Any]:
    response = api_for(trio.viewer).get(f"/workspaces/{trio.workspace.id}/claims?{urlencode({'q': q, **params})}")
    assert response.status_code == 200, response.content
    return dict(response.json())


def vectors(trio: Trio) -> dict[str, str | None]:
    """Each claim's statement -> the model its vector was made by (None: no vector)."""
    rows = graph.ro_query(trio.workspace, "MATCH (c:Claim) RETURN c.statement, c.embedding_model")
    return {statement: model for statement, model in rows}


class SemanticSearchTests:
    def test_a_question_finds_a_claim_by_meaning_in_hybrid_and_semantic_mode_not_lexical(
        self, trio: Trio, embedder: Any, django_capture_on_commit_callbacks: Any
    ) -> None:
        ids = seed(trio, django_capture_on_commit_callbacks)
        for mode in ("hybrid", "semantic"):
            answer = search(trio, "When is the release?", mode=mode)
            assert answer["mode"] == mode and answer["degraded"] is False
            assert answer["results"][0]["id"] == ids[JUNE], answer["results"]
            assert answer["results"][0]["match"] == "semantic"
            assert ids[BERLIN] not in [r["id"] for r in answer["results"]]
        lexical = search(trio, "When is the release?", mode="lexical")
        assert lexical["results"] == [] and lexical["mode"] == "lexical" and lexical["degraded"] is False

    def test_hybrid_is_the_default_with_a_model_and_each_result_says_how_it_matched(
        self, trio: Trio, embedder: Any, django_capture_on_commit_callbacks: Any
    ) -> None:
        ids = seed(trio, django_capture_on_commit_callbacks)
        answer = search(trio, "When is the release in June?")
        assert answer["mode"] == "hybrid"
        matched = {r["id"]: r["match"] for r in answer["results"]}
        # "june" is in its words and "release" is near its meaning; the other launch claims only by meaning.
        assert answer["results"][0]["id"] == ids[JUNE] and matched[ids[JUNE]] == "both"
        assert matched[ids[ANA]] == "semantic" and matched[ids[BUDGET]] == "semantic"
        assert search(trio, "Berlin", mode="lexical")["results"][0]["match"] == "lexical"

    def test_without_a_model_search_is_lexical_and_asking_for_meaning_says_degraded(
        self, trio: Trio, no_llm: None, settings: Any, django_capture_on_commit_callbacks: Any
    ) -> None:
        settings.AFTERHACK_EMBEDDING_MODEL = ""
        ids = seed(trio, django_capture_on_commit_callbacks)
        assert set(vectors(trio).values()) == {None}
        answer = search(trio, "launch june")
        assert answer["mode"] == "lexical" and answer["degraded"] is False
        assert answer["results"][0]["id"] == ids[JUNE] and answer["results"][0]["match"] == "lexical"
        for mode in ("semantic", "hybrid"):
            degraded = search(trio, "launch june", mode=mode)
            assert degraded["mode"] == "lexical" and degraded["degraded"] is True
            assert [r["id"] for r in degraded["results"]] == [r["id"] for r in answer["results"]]

    @pytest.mark.parametrize("failure", [{"status": 500}, {"delay": 3}, {"raw": "not json"}])
    def test_a_failing_embeddings_call_answers_lexically_with_degraded_never_an_error(
        self, trio: Trio, embedder: Any, django_capture_on_commit_callbacks: Any, failure: dict[str, Any]
    ) -> None:
        ids = seed(trio, django_capture_on_commit_callbacks)
        embedder.embeddings_reply = failure
        for mode in ("hybrid", "semantic"):
            answer = search(trio, "launch is in June", mode=mode)
            assert answer["degraded"] is True and answer["mode"] == "lexical"
            assert [r["id"] for r in answer["results"]] == [ids[JUNE]]
            assert answer["results"][0]["match"] == "lexical"
        assert search(trio, "When is the release?")["results"] == []

    def test_a_bad_mode_is_refused_in_words(self, trio: Trio, embedder: Any) -> None:
        response = api_for(trio.viewer).get(f"/workspaces/{trio.workspace.id}/claims?q=launch&mode=fuzzy")
        assert response.status_code == 422
        assert response.json()["detail"] == "“mode” must be one of: lexical, semantic, hybrid (or left out)."

    @pytest.mark.parametrize("mode", ["hybrid", "semantic", "lexical"])
    def test_pages_of_a_fused_ranking_follow_on_without_repeats(
        self, trio: Trio, embedder: Any, django_capture_on_commit_callbacks: Any, mode: str
    ) -> None:
        seed(trio, django_capture_on_commit_callbacks)
        whole = search(trio, "When is the launch release?", mode=mode)
        assert len(whole["results"]) == whole["count"] >= 3
        seen: list[str] = []
        params: dict[str, Any] = {"mode": mode, "limit": 1}
        while True:
            page = search(trio, "When is the launch release?", **params)
            assert page["count"] == whole["count"] and page["mode"] == mode
            seen += [r["id"] for r in page["results"]]
            if page["next"] is None:
                break
            params["cursor"] = page["next"]
        assert seen == [r["id"] for r in whole["results"]]

    def test_a_cursor_belongs_to_its_mode(
        self, trio: Trio, embedder: Any, django_capture_on_commit_callbacks: Any
    ) -> None:
        seed(trio, django_capture_on_commit_callbacks)
        first = search(trio, "launch", mode="hybrid", limit=1)
        response = api_for(trio.viewer).get(
            f"/workspaces/{trio.workspace.id}/claims?{urlencode({'q': 'launch', 'mode': 'lexical', 'cursor': first['next']})}"
        )
        assert response.status_code == 422 and response.json()["error"] == "invalid_input"

    def test_a_degraded_first_page_is_followed_by_lexical_pages_still_marked_degraded(
        self, trio: Trio, embedder: Any, django_capture_on_commit_callbacks: Any
    ) -> None:
        seed(trio, django_capture_on_commit_callbacks)
        embedder.embeddings_reply = {"status": 503}
        first = search(trio, "launch", mode="hybrid", limit=2)
        embedder.embeddings_reply = None
        second = search(trio, "launch", mode="hybrid", limit=2, cursor=first["next"])
        assert first["degraded"] is second["degraded"] is True and second["mode"] == "lexical"
        lexical = search(trio, "launch", mode="lexical")
        assert [r["id"] for r in first["results"] + second["results"]] == [r["id"] for r in lexical["results"]]

    def test_claims_that_no_longer_hold_are_found_by_meaning_as_by_words_with_their_status(
        self, trio: Trio, embedder: Any, django_capture_on_commit_callbacks: Any
    ) -> None:
        ids = seed(trio, django_capture_on_commit_callbacks)
        graph.query(trio.workspace, "MATCH (c:Claim {id: $id}) SET c.status = 'superseded'", {"id": ids[JUNE]})
        for mode in ("semantic", "hybrid", "lexical"):
            statuses = {r["id"]: r["status"] for r in search(trio, "launch", mode=mode)["results"]}
            assert statuses[ids[JUNE]] == "superseded" and statuses[ids[ANA]] == "current"

    def test_every_search_caller_uses_the_same_search(
        self, trio: Trio, embedder: Any, django_capture_on_commit_callbacks: Any
    ) -> None:
        ids = seed(trio, django_capture_on_commit_callbacks)
        found = search_selectors.claim_search(workspace=trio.workspace, query="When is the release?", limit=2)
        assert found.mode == SearchMode.HYBRID and found.hits[0].id == ids[JUNE]
        url = reverse("claims:search", kwargs={"ws_id": trio.workspace.id})
        page = client_for(trio.viewer).get(url, {"q": "When is the release?"}).content.decode()
        assert "The launch is in June." in page and "words and meaning" not in page
        # No mode is the default, words and meaning fused.
        assert '<option value="">Words and meaning</option>' in page and " selected>" not in page
        lexical = client_for(trio.viewer).get(url, {"q": "When is the release?", "mode": "lexical"}).content.decode()
        assert "No claim matches" in lexical and '<option value="lexical" selected>Words only</option>' in lexical

    def test_the_page_shows_how_each_result_matched_and_a_quiet_note_when_degraded(
        self, trio: Trio, embedder: Any, django_capture_on_commit_callbacks: Any
    ) -> None:
        seed(trio, django_capture_on_commit_callbacks)
        url = reverse("claims:search", kwargs={"ws_id": trio.workspace.id})
        page = client_for(trio.viewer).get(url, {"q": "When is the release in June?"}).content.decode()
        assert '<span class="badge match" title="How it matched your search">words and meaning</span>' in page
        assert '<span class="badge match" title="How it matched your search">meaning</span>' in page
        assert "Searched by words only" not in page
        embedder.embeddings_reply = {"status": 500}
        response = client_for(trio.viewer).get(
            url, {"q": "launch", "mode": "semantic"}, headers={"HX-Request": "true", "HX-Target": "claims-list"}
        )
        assert (
            "Searched by words only. The embeddings model&#x27;s server answered HTTP 500" in response.content.decode()
        )
        html = response.content.decode()
        assert html.lstrip().startswith('<section id="claims-list"') and "3 claims match" in " ".join(html.split())
        assert f'href="{url}?q=launch&amp;mode=semantic&amp;sort=statement"' in html


class EmbeddingOnCreateTests:
    def test_api_claims_are_embedded_by_the_worker_once_their_request_commits(
        self, trio: Trio, embedder: Any, django_capture_on_commit_callbacks: Any
    ) -> None:
        seed(trio, django_capture_on_commit_callbacks)
        assert set(vectors(trio).values()) == {"scripted-embedder"}
        embedded = [text for request in embedder.embedding_requests for text in request["input"]]
        assert "The launch is in June." in embedded

    def test_extracted_derived_and_corrected_claims_are_embedded_too(
        self, trio: Trio, embedder: Any, no_llm: None, django_capture_on_commit_callbacks: Any
    ) -> None:
        client = api_for(trio.reviewer)
        ws = str(trio.workspace.id)
        source = add_source(client, ws, text=TEXT)
        with django_capture_on_commit_callbacks(execute=True):
            assert client.post(f"/workspaces/{ws}/sources/{source['id']}/extract").status_code == 202
        assert len(vectors(trio)) >= 4 and set(vectors(trio).values()) == {"scripted-embedder"}
        june = search(trio, "The launch is in June", mode="lexical")["results"][0]["id"]
        with django_capture_on_commit_callbacks(execute=True):
            derived = client.post(f"/workspaces/{ws}/claims", {"statement": "Ship date: June.", "derived_from": [june]})
        assert derived.status_code == 201
        preview = client.post(
            f"/workspaces/{ws}/claims/{june}/correction-preview", {"statement": "The rollout is in July."}
        )
        assert preview.status_code == 200, preview.content
        body = {"statement": "The rollout is in July.", "reason": "Moved.", "revision": preview.json()["revision"],
                "idempotency_key": "k1"}  # fmt: skip
        with django_capture_on_commit_callbacks(execute=True):
            applied = client.post(f"/workspaces/{ws}/claims/{june}/corrections", body)
        assert applied.status_code in (200, 201), applied.content
        models = vectors(trio)
        assert models["Ship date: June."] == models["The rollout is in July."] == "scripted-embedder"
        assert None not in models.values()
        # Found by meaning only: neither says "release".
        found = {r["statement"] for r in search(trio, "release", mode="semantic")["results"]}
        assert {"Ship date: June.", "The rollout is in July."} <= found

    def test_a_failing_model_leaves_the_claim_stored_without_a_vector(
        self, trio: Trio, embedder: Any, django_capture_on_commit_callbacks: Any
    ) -> None:
        embedder.embeddings_reply = {"status": 500}
        ids = seed(trio, django_capture_on_commit_callbacks)
        assert len(ids) == 5 and set(vectors(trio).values()) == {None}


class BackfillTests:
    def run(self, *args: str) -> str:
        out = StringIO()
        call_command("embed_claims", *args, stdout=out, stderr=StringIO())
        return out.getvalue()

    def test_it_embeds_what_lacks_a_vector_once_and_only_in_the_workspace_asked(
        self, trio: Trio, settings: Any, llm_server: Any, django_capture_on_commit_callbacks: Any
    ) -> None:
        settings.AFTERHACK_EMBEDDING_MODEL = ""
        seed(trio, django_capture_on_commit_callbacks)
        other = workspace_services.workspace_create(name="Other", creator=trio.reviewer)
        seed(trio, django_capture_on_commit_callbacks, ws=other)
        settings.OPENAI_BASE_URL, settings.AFTERHACK_EMBEDDING_MODEL = llm_server.url, "scripted-embedder"
        llm_server.embedding_requests.clear()
        out = self.run("--workspace", str(trio.workspace.id))
        assert "Launch planning: 5 claim(s) embedded with scripted-embedder." in out
        assert set(vectors(trio).values()) == {"scripted-embedder"}
        assert search(trio, "When is the release?")["results"][0]["statement"] == "The launch is in June."
        other_models = {m for _, m in graph.ro_query(other, "MATCH (c:Claim) RETURN c.id, c.embedding_model")}
        assert other_models == {None}
        assert AuditEvent.objects.filter(workspace=trio.workspace, verb="claims.embedded").count() == 1
        llm_server.embedding_requests.clear()
        assert "0 claim(s) embedded in all." in self.run("--workspace", str(trio.workspace.id))
        assert llm_server.embedding_requests == []
        assert "Other: 5 claim(s) embedded" in self.run()

    def test_a_new_model_of_another_dimension_degrades_search_until_the_backfill(
        self, trio: Trio, embedder: Any, settings: Any, django_capture_on_commit_callbacks: Any
    ) -> None:
        seed(trio, django_capture_on_commit_callbacks)
        settings.AFTERHACK_EMBEDDING_MODEL, embedder.dimensions = "bigger-embedder", 24
        answer = search(trio, "When is the release?")
        assert answer["degraded"] is True and answer["results"] == []
        assert "5 claim(s) embedded in all." in self.run()
        answer = search(trio, "When is the release?")
        assert answer["degraded"] is False and answer["results"][0]["statement"] == "The launch is in June."

    def test_it_says_what_is_wrong_in_words(self, trio: Trio, embedder: Any, settings: Any) -> None:
        with pytest.raises(CommandError, match="There is no workspace with the id 'nope'"):
            self.run("--workspace", "nope")
        settings.AFTERHACK_EMBEDDING_MODEL = ""
        with pytest.raises(CommandError, match="No embeddings model is configured"):
            self.run()

    def test_a_failing_model_stops_it_with_words_and_keeps_what_was_stored(
        self, trio: Trio, embedder: Any, django_capture_on_commit_callbacks: Any
    ) -> None:
        embedder.embeddings_reply = {"status": 500}
        seed(trio, django_capture_on_commit_callbacks)
        with pytest.raises(CommandError, match=r"HTTP 500.*run embed_claims again"):
            self.run()
        embedder.embeddings_reply = None
        assert "5 claim(s) embedded in all." in self.run()


@pytest.mark.load
class SearchBenchmarkTests:
    def test_the_search_benchmark_times_every_mode_on_a_small_workspace(self, trio: Trio, settings: Any) -> None:
        import random

        from benchmarks.claims import bench_search

        settings.AFTERHACK_EMBEDDING_MODEL = ""
        figures = bench_search(random.Random(1), trio.owner, [300], [8])  # noqa: S311 - synthetic data
        names = [figure.name for figure in figures]
        assert names == [
            "300 claims x 8 dims: load", "300 claims x 8 dims: lexical search",
            "300 claims x 8 dims: lexical search, topic words", "300 claims x 8 dims: lexical fallback",
            "300 claims x 8 dims: semantic search", "300 claims x 8 dims: hybrid search",
        ]  # fmt: skip
        assert all(figure.value > 0 for figure in figures)
        # The synthetic query vectors were handed over in-process (a degraded search would have stopped it).
        assert settings.AFTERHACK_EMBEDDING_MODEL == ""

    def test_without_vectors_it_times_the_lexical_search_and_its_fallback_alone(self, trio: Trio) -> None:
        import random

        from benchmarks.claims import bench_search

        figures = bench_search(random.Random(2), trio.owner, [300], [0])  # noqa: S311 - synthetic data
        assert [figure.name for figure in figures] == [
            "300 claims, no vectors: load", "300 claims, no vectors: lexical search",
            "300 claims, no vectors: lexical search, topic words", "300 claims, no vectors: lexical fallback",
        ]  # fmt: skip
        assert all(figure.value > 0 for figure in figures)
        assert "fulltext index kept up" in figures[0].detail
