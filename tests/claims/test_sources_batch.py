"""POST /workspaces/{ws}/sources:batch on the real stores: up to 500 sources, all or none, every bad one named."""

from __future__ import annotations

import hashlib
import itertools
import json
from typing import Any

import pytest

from afterhack import graph
from afterhack.errors import GraphError
from claims.services import sources as sources_services
from claims.text import MAX_SOURCE_CHARS, InvalidSource
from tests.conftest import Trio, api_for
from workspaces.models import AuditEvent

pytestmark = pytest.mark.django_db


def node_count(trio: Trio) -> int:
    return int(graph.ro_query(trio.workspace, "MATCH (n) RETURN count(n)")[0][0])


def batch_url(trio: Trio) -> str:
    return f"/workspaces/{trio.workspace.id}/sources:batch"


def some_sources(count: int) -> list[dict[str, Any]]:
    return [
        {"title": f"Note {n}", "text": f"Note {n}.\r\n\r\nAna owns item {n}. It is due in June."} for n in range(count)
    ]


def assert_nothing_stored(trio: Trio, nodes_before: int) -> None:
    assert node_count(trio) == nodes_before
    assert not AuditEvent.objects.filter(verb="source.added").exists()


class BatchTests:
    def test_it_stores_every_source_in_order_each_as_the_single_endpoint_answers_it(self, trio: Trio) -> None:
        sent = some_sources(3)
        response = api_for(trio.reviewer).post(batch_url(trio), {"sources": sent})
        assert response.status_code == 201, response.content
        added = response.json()["sources"]
        single = api_for(trio.reviewer).post(f"/workspaces/{trio.workspace.id}/sources", sent[0]).json()
        assert [set(body) for body in added] == [set(single)] * 3
        for item, body in zip(sent, added, strict=True):
            text = item["text"].replace("\r\n", "\n")
            assert body["title"] == item["title"] and body["version"] == 1 and body["length"] == len(text)
            assert body["sha256"] == hashlib.sha256(text.encode()).hexdigest()
            fragments = body["fragments"]
            assert fragments[0]["start"] == 0 and fragments[-1]["end"] == len(text)
            assert all(a["end"] == b["start"] for a, b in itertools.pairwise(fragments))
            detail = api_for(trio.viewer).get(f"/workspaces/{trio.workspace.id}/sources/{body['id']}").json()
            assert detail["text"] == text and detail["title"] == item["title"]
        audited = AuditEvent.objects.filter(verb="source.added", workspace=trio.workspace)
        assert sorted(e.payload["source_id"] for e in audited) == sorted([b["id"] for b in added] + [single["id"]])
        # Each event of the batch is what the single endpoint records for its source.
        by_source = {e.payload["source_id"]: e for e in audited}
        one = by_source[single["id"]]
        for body in added:
            event = by_source[body["id"]]
            assert (event.actor, event.actor_name, event.target) == (one.actor, one.actor_name, body["title"])
            assert event.payload == {
                "source_id": body["id"], "sha256": body["sha256"], "length": body["length"],
                "fragments": len(body["fragments"]),
            }  # fmt: skip
            assert event.created_at <= one.created_at and event.summary == f"added the source “{body['title']}”"

    def test_it_writes_a_batch_in_one_graph_query(self, trio: Trio) -> None:
        before = graph.queries_sent()
        added = sources_services.sources_add(workspace=trio.workspace, sources=some_sources(20), actor=trio.reviewer)
        assert graph.queries_sent() - before == 1 and len({a.id for a in added}) == 20
        assert AuditEvent.objects.filter(verb="source.added").count() == 20

    def test_it_stores_the_same_source_twice_as_two_sources(self, trio: Trio) -> None:
        same = {"title": "Twice", "text": "The same words."}
        added = api_for(trio.reviewer).post(batch_url(trio), {"sources": [same, same]}).json()["sources"]
        assert added[0]["id"] != added[1]["id"] and added[0]["sha256"] == added[1]["sha256"]

    def test_it_names_every_unusable_source_and_stores_none(self, trio: Trio) -> None:
        sent: list[Any] = some_sources(6)
        sent[1] = {"title": "Empty", "text": "  \n "}
        sent[3] = {"text": "No title."}
        sent[4] = "not an object"
        sent[5] = {"title": "Number", "text": 42}
        nodes_before = node_count(trio)
        response = api_for(trio.reviewer).post(batch_url(trio), {"sources": sent})
        assert response.status_code == 422
        body = response.json()
        assert body["error"] == "invalid_source" and "4 sources of the 6" in body["detail"]
        assert "none was stored" in body["detail"]
        assert [e["index"] for e in body["errors"]] == [1, 3, 4, 5]
        assert {e["code"] for e in body["errors"]} == {"invalid_source"}
        words = [e["message"] for e in body["errors"]]
        assert "empty" in words[0] or "whitespace" in words[0]
        assert "needs a title" in words[1] and "JSON object" in words[2] and "must be a string" in words[3]
        assert_nothing_stored(trio, nodes_before)

    @pytest.mark.parametrize(
        ("item", "words"),
        [
            ({"title": "Nul", "text": "a\u0000b"}, "NUL"),
            ({"title": "Big", "text": "x" * (MAX_SOURCE_CHARS + 1)}, "at most"),
            ({"title": "", "text": "Some text."}, "needs a title"),
        ],
    )
    def test_it_checks_each_source_as_the_single_endpoint_does(
        self, trio: Trio, item: dict[str, Any], words: str
    ) -> None:
        nodes_before = node_count(trio)
        single = api_for(trio.reviewer).post(f"/workspaces/{trio.workspace.id}/sources", item).json()
        response = api_for(trio.reviewer).post(batch_url(trio), {"sources": [*some_sources(2), item]})
        assert response.status_code == 422 and response.json()["errors"] == [
            {"index": 2, "code": single["error"], "message": single["detail"]}
        ]
        assert words in single["detail"]
        assert_nothing_stored(trio, nodes_before)

    def test_it_refuses_what_the_services_refuse_without_writing(self, trio: Trio) -> None:
        nodes_before = node_count(trio)
        with pytest.raises(sources_services.SourcesRefused) as refused:
            sources_services.sources_add(
                workspace=trio.workspace, sources=[{"title": "Fine", "text": "Fine."}, {"title": "x"}], actor=None
            )
        assert refused.value.extra["errors"] == [
            {"index": 1, "code": "invalid_source", "message": "A source's text must be a string."}
        ]
        for wrong in ([], {"title": "t", "text": "x"}, some_sources(sources_services.MAX_BATCH_SOURCES + 1)):
            with pytest.raises(InvalidSource, match="1 to 500 sources"):
                sources_services.sources_add(workspace=trio.workspace, sources=wrong, actor=None)
        assert_nothing_stored(trio, nodes_before)

    def test_a_graph_write_that_fails_leaves_no_audit_event_and_no_source(self, trio: Trio) -> None:
        good = sources_services.source_prepare(title="Good", text="Fine words.")
        # A property FalkorDB refuses (a map): the one query fails, so no source of the batch is stored.
        bad = sources_services.source_prepare(title="Bad", text="Other words.")
        bad.fragments[0]["start"] = {"not": "a number"}
        nodes_before = node_count(trio)
        with pytest.raises(GraphError):
            sources_services.sources_write(workspace=trio.workspace, sources=[good, bad], actor=trio.reviewer)
        assert_nothing_stored(trio, nodes_before)


class BatchBoundsTests:
    def test_it_stores_500_sources_at_once(self, trio: Trio) -> None:
        response = api_for(trio.reviewer).post(batch_url(trio), {"sources": some_sources(500)})
        assert response.status_code == 201
        added = response.json()["sources"]
        assert [a["title"] for a in added] == [f"Note {n}" for n in range(500)]
        count = "MATCH (s:Source)-[:HAS_VERSION]->(:SourceVersion {current: true}) RETURN count(s)"
        assert graph.ro_query(trio.workspace, count)[0][0] == 500
        assert AuditEvent.objects.filter(verb="source.added").count() == 500

    @pytest.mark.parametrize(
        "body",
        [
            {"sources": some_sources(501)},
            {"sources": []},
            {},
            {"sources": {"title": "t", "text": "x"}},
            {"sources": None},
        ],
    )
    def test_it_refuses_a_batch_of_the_wrong_size_or_shape_in_words(self, trio: Trio, body: dict[str, Any]) -> None:
        nodes_before = node_count(trio)
        response = api_for(trio.reviewer).post(batch_url(trio), body)
        assert response.status_code == 422
        assert response.json()["error"] == "invalid_source"
        assert "1 to 500 sources" in response.json()["detail"]
        assert_nothing_stored(trio, nodes_before)

    def test_it_refuses_a_body_over_the_request_size_limit_before_reading_it(self, trio: Trio, settings: Any) -> None:
        settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1024 * 1024
        nodes_before = node_count(trio)
        sources = [{"title": f"Part {n}", "text": "word " * 60_000} for n in range(4)]
        response = api_for(trio.reviewer).post(batch_url(trio), raw=json.dumps({"sources": sources}))
        assert response.status_code == 422
        assert response.json()["error"] == "invalid_source" and "smaller batches" in response.json()["detail"]
        assert_nothing_stored(trio, nodes_before)

    def test_it_applies_the_access_rules_of_the_single_endpoint(self, trio: Trio) -> None:
        body = {"sources": some_sources(2)}
        assert api_for(trio.viewer).post(batch_url(trio), body).status_code == 403
        assert api_for(trio.outsider).post(batch_url(trio), body).status_code == 404
        assert api_for(trio.owner).post(batch_url(trio), body).status_code == 201
        assert AuditEvent.objects.filter(verb="source.added").count() == 2
