"""Sources and claims through the API, on the real stores: exact quotes or nothing."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from afterhack import graph
from claims.text import MAX_SOURCE_CHARS
from tests.conftest import Trio, api_for
from workspaces.models import AuditEvent

pytestmark = pytest.mark.django_db

LAUNCH = """Launch plan

The launch is in June. Ana owns the launch checklist.

Budget: the launch budget is 40,000 EUR, approved on 3 March.
The launch is in June, according to the board."""


def add_source(client: Any, ws: str, text: str = LAUNCH, title: str = "Launch plan") -> dict[str, Any]:
    response = client.post(f"/workspaces/{ws}/sources", {"title": title, "text": text})
    assert response.status_code == 201, response.content
    return dict(response.json())


def node_count(trio: Trio) -> int:
    return int(graph.ro_query(trio.workspace, "MATCH (n) RETURN count(n)")[0][0])


class SourceApiTests:
    def test_it_stores_a_source_as_version_1_with_fragments_tiling_the_text(self, trio: Trio) -> None:
        body = add_source(api_for(trio.reviewer), str(trio.workspace.id))
        assert body["version"] == 1 and body["length"] == len(LAUNCH) and body["title"] == "Launch plan"
        fragments = body["fragments"]
        assert fragments[0]["start"] == 0 and fragments[-1]["end"] == len(LAUNCH)
        assert all(a["end"] == b["start"] for a, b in itertools.pairwise(fragments))
        import hashlib

        assert body["sha256"] == hashlib.sha256(LAUNCH.encode()).hexdigest()
        detail = api_for(trio.viewer).get(f"/workspaces/{trio.workspace.id}/sources/{body['id']}").json()
        assert detail["text"] == LAUNCH and detail["claims"] == [] and detail["extraction"] is None
        assert AuditEvent.objects.filter(verb="source.added", target="Launch plan").exists()

    def test_it_normalises_crlf_and_nothing_else(self, trio: Trio) -> None:
        body = add_source(api_for(trio.reviewer), str(trio.workspace.id), text="One line.\r\nTwo  lines.\rThree\t.\r\n")
        detail = api_for(trio.reviewer).get(f"/workspaces/{trio.workspace.id}/sources/{body['id']}").json()
        assert detail["text"] == "One line.\nTwo  lines.\nThree\t.\n"

    @pytest.mark.parametrize(
        ("body", "words"),
        [
            ({"title": "Empty", "text": ""}, "empty"),
            ({"title": "Blank", "text": "  \n "}, "empty"),
            ({"title": "Nul", "text": "a\u0000b"}, "NUL"),
            ({"title": "Big", "text": "x" * (MAX_SOURCE_CHARS + 1)}, "at most"),
            ({"title": "Number", "text": 42}, "must be a string"),
            ({"title": "", "text": "Some text."}, "needs a title"),
            ({"text": "Some text."}, "needs a title"),
        ],
    )
    def test_it_refuses_unusable_sources_in_words_and_stores_nothing(
        self, trio: Trio, body: dict[str, Any], words: str
    ) -> None:
        before = node_count(trio)
        response = api_for(trio.reviewer).post(f"/workspaces/{trio.workspace.id}/sources", body)
        assert response.status_code == 422
        assert response.json()["error"] == "invalid_source" and words in response.json()["detail"]
        assert node_count(trio) == before
        assert not AuditEvent.objects.filter(verb="source.added").exists()

    def test_it_applies_the_access_rules(self, trio: Trio) -> None:
        ws = str(trio.workspace.id)
        assert api_for(trio.viewer).post(f"/workspaces/{ws}/sources", {"title": "t", "text": "x"}).status_code == 403
        assert api_for(trio.outsider).post(f"/workspaces/{ws}/sources", {"title": "t", "text": "x"}).status_code == 404
        source = add_source(api_for(trio.owner), ws)
        assert api_for(trio.outsider).get(f"/workspaces/{ws}/sources/{source['id']}").status_code == 404
        assert api_for(trio.viewer).get(f"/workspaces/{ws}/sources/{source['id']}").status_code == 200
        assert api_for(trio.viewer).get(f"/workspaces/{ws}/sources/no-such-id").status_code == 404


class EvidenceClaimApiTests:
    def test_it_accepts_an_exact_quote_at_its_first_occurrence(self, trio: Trio) -> None:
        client = api_for(trio.reviewer)
        ws = str(trio.workspace.id)
        source = add_source(client, ws)
        response = client.post(
            f"/workspaces/{ws}/claims",
            {
                "source_id": source["id"],
                "statement": "The launch is in June.",
                "evidence_quote": "The launch is in June",
            },
        )
        assert response.status_code == 201
        claim = response.json()
        first = LAUNCH.index("The launch is in June")
        assert (claim["start"], claim["end"]) == (first, first + 21)
        assert LAUNCH[claim["start"] : claim["end"]] == claim["evidence_quote"]
        assert claim["status"] == "current" and claim["source_id"] == source["id"]
        assert claim["fragment"]["origin_type"] == "document" and "The launch is in June" in claim["fragment"]["text"]
        assert claim["supersedes"] is None and claim["superseded_by"] is None and claim["derived_from"] == []
        assert api_for(trio.viewer).get(f"/workspaces/{ws}/claims/{claim['id']}").json()["id"] == claim["id"]

    def test_it_uses_the_given_start_for_the_second_occurrence(self, trio: Trio) -> None:
        client = api_for(trio.reviewer)
        ws = str(trio.workspace.id)
        source = add_source(client, ws)
        second = LAUNCH.index("The launch is in June", 30)
        body = {
            "source_id": source["id"],
            "statement": "The board says June.",
            "evidence_quote": "The launch is in June",
            "start": second,
        }
        claim = client.post(f"/workspaces/{ws}/claims", body).json()
        assert (claim["start"], claim["end"]) == (second, second + 21)

    @pytest.mark.parametrize(
        ("quote", "start", "reason"),
        [
            ("The launch happens in June", None, "not_found"),
            ("Revenue doubled", None, "not_found"),
            ("", None, "empty"),
            ("   ", None, "whitespace_only"),
            ("The launch is in June", 5, "not_at_start"),
            ("The launch is in June", 10_000, "not_at_start"),
            ("The launch is in June", -1, "not_at_start"),
        ],
    )
    def test_it_refuses_a_quote_that_is_not_exact(self, trio: Trio, quote: str, start: int | None, reason: str) -> None:
        client = api_for(trio.reviewer)
        ws = str(trio.workspace.id)
        source = add_source(client, ws)
        before = node_count(trio)
        body = {"source_id": source["id"], "statement": "Something.", "evidence_quote": quote, "start": start}
        response = client.post(f"/workspaces/{ws}/claims", body)
        assert response.status_code == 422
        assert response.json()["error"] == "evidence_not_found" and response.json()["reason"] == reason
        assert response.json()["detail"]
        assert node_count(trio) == before

    def test_it_links_a_quote_spanning_two_fragments_to_both(self, trio: Trio) -> None:
        client = api_for(trio.reviewer)
        ws = str(trio.workspace.id)
        text = ("First paragraph sentence. " * 40).strip() + "\n\n" + ("Second paragraph sentence. " * 40).strip()
        source = add_source(client, ws, text=text)
        assert len(source["fragments"]) == 2
        boundary = source["fragments"][0]["end"]
        quote = text[boundary - 30 : boundary + 30]
        claim = client.post(
            f"/workspaces/{ws}/claims", {"source_id": source["id"], "statement": "Spans.", "evidence_quote": quote}
        ).json()
        assert [f["id"] for f in claim["fragments"]] == [f["id"] for f in source["fragments"]]

    def test_it_does_not_duplicate_the_same_claim(self, trio: Trio) -> None:
        client = api_for(trio.reviewer)
        ws = str(trio.workspace.id)
        source = add_source(client, ws)
        body = {
            "source_id": source["id"],
            "statement": "Ana owns the checklist.",
            "evidence_quote": "Ana owns the launch checklist",
        }
        first, again = (
            client.post(f"/workspaces/{ws}/claims", body).json(),
            client.post(f"/workspaces/{ws}/claims", body).json(),
        )
        assert first["id"] == again["id"]
        assert AuditEvent.objects.filter(verb="claim.added").count() == 1

    @pytest.mark.parametrize("statement", ["", "   ", None, 7])
    def test_it_refuses_an_empty_statement(self, trio: Trio, statement: Any) -> None:
        client = api_for(trio.reviewer)
        ws = str(trio.workspace.id)
        source = add_source(client, ws)
        response = client.post(
            f"/workspaces/{ws}/claims", {"source_id": source["id"], "statement": statement, "evidence_quote": "Ana"}
        )
        assert response.status_code == 422 and response.json()["error"] == "invalid_input"

    def test_it_answers_404_for_another_workspaces_source(self, trio: Trio) -> None:
        from workspaces.services import workspaces as workspace_services

        other = workspace_services.workspace_create(name="Other", creator=trio.reviewer)
        foreign = add_source(api_for(trio.reviewer), str(other.id))
        response = api_for(trio.reviewer).post(
            f"/workspaces/{trio.workspace.id}/claims",
            {"source_id": foreign["id"], "statement": "x", "evidence_quote": "June"},
        )
        assert response.status_code == 404 and response.json()["error"] == "not_found"
        assert graph.ro_query(other, "MATCH (c:Claim) RETURN count(c)") == [[0]]


class DerivedClaimApiTests:
    def make_claims(self, trio: Trio) -> tuple[Any, str, list[str]]:
        client = api_for(trio.reviewer)
        ws = str(trio.workspace.id)
        source = add_source(client, ws)
        ids = []
        for quote in ("The launch is in June", "Ana owns the launch checklist"):
            ids.append(
                client.post(
                    f"/workspaces/{ws}/claims",
                    {"source_id": source["id"], "statement": quote + ".", "evidence_quote": quote},
                ).json()["id"]
            )
        return client, ws, ids

    def test_it_derives_a_claim_whose_one_justification_is_its_premises(self, trio: Trio) -> None:
        client, ws, ids = self.make_claims(trio)
        response = client.post(
            f"/workspaces/{ws}/claims", {"statement": "Ana must finish the checklist before June.", "derived_from": ids}
        )
        assert response.status_code == 201
        claim = response.json()
        assert claim["derived_from"] == [sorted(ids)] and claim["evidence_quote"] is None and claim["fragment"] is None
        assert claim["confidence_kind"] == "derived" and claim["status"] == "current"

    @pytest.mark.parametrize("bad", [[], "not-a-list", ["no-such-claim"], [None]])
    def test_it_refuses_missing_or_malformed_premises(self, trio: Trio, bad: Any) -> None:
        client, ws, ids = self.make_claims(trio)
        premises = [*ids, *bad] if isinstance(bad, list) and bad else bad
        before = node_count(trio)
        response = client.post(f"/workspaces/{ws}/claims", {"statement": "Derived.", "derived_from": premises})
        assert response.status_code == 422 and response.json()["error"] == "invalid_support"
        assert node_count(trio) == before

    def test_it_refuses_premises_from_another_workspace(self, trio: Trio) -> None:
        from workspaces.services import workspaces as workspace_services

        client, ws, ids = self.make_claims(trio)
        other = workspace_services.workspace_create(name="Other", creator=trio.reviewer)
        foreign_source = add_source(client, str(other.id))
        foreign = client.post(
            f"/workspaces/{other.id}/claims",
            {"source_id": foreign_source["id"], "statement": "x", "evidence_quote": "June"},
        ).json()
        response = client.post(
            f"/workspaces/{ws}/claims", {"statement": "Mixed.", "derived_from": [ids[0], foreign["id"]]}
        )
        assert response.status_code == 422 and foreign["id"] in response.json()["detail"]

    def test_it_refuses_a_premise_that_is_not_current(self, trio: Trio) -> None:
        client, ws, ids = self.make_claims(trio)
        graph.query(trio.workspace, "MATCH (c:Claim {id: $id}) SET c.status = 'superseded'", {"id": ids[0]})
        response = client.post(f"/workspaces/{ws}/claims", {"statement": "Derived.", "derived_from": ids})
        assert response.status_code == 422 and "superseded" in response.json()["detail"]


class OversizedBodyTests:
    def test_a_body_over_the_upload_limit_is_refused_as_invalid_source(self, trio: Trio) -> None:
        before = node_count(trio)
        response = api_for(trio.reviewer).post(
            f"/workspaces/{trio.workspace.id}/sources", {"title": "Huge", "text": "é" * 6_000_000}
        )
        assert response.status_code == 422 and response.json()["error"] == "invalid_source"
        assert node_count(trio) == before


class HostileInputTests:
    @pytest.mark.parametrize(
        ("field", "value"),
        [("text", "a\ud800b"), ("title", "t\ud800"), ("text", "a\u0000b")],
    )
    def test_lone_surrogates_and_nul_are_refused_in_words(self, trio: Trio, field: str, value: str) -> None:
        import json

        body = {"title": "T", "text": "Some text.", field: value}
        raw = json.dumps(body)  # keeps \\ud800 escaped, as a client would send it
        response = api_for(trio.reviewer).post(f"/workspaces/{trio.workspace.id}/sources", raw=raw)
        assert response.status_code == 422 and response.json()["error"] == "invalid_source"

    def test_a_body_that_is_not_utf8_is_not_text(self, trio: Trio) -> None:
        client = api_for(trio.reviewer)
        response = client.client.post(
            f"/api/v1/workspaces/{trio.workspace.id}/sources", data=b'{"title": "x", "text": "\\xff\xfe"}',
            content_type="application/json", headers=client.headers,
        )  # fmt: skip
        assert response.status_code == 422 and response.json()["error"] == "invalid_source"

    @pytest.mark.parametrize("bad_id", ["a%00b", "not-a-uuid", "'; MATCH (n) DETACH DELETE n //"])
    def test_malformed_ids_are_simply_not_found(self, trio: Trio, bad_id: str) -> None:
        client = api_for(trio.viewer)
        ws = trio.workspace.id
        for path in (
            f"/workspaces/{ws}/sources/{bad_id}",
            f"/workspaces/{ws}/claims/{bad_id}",
            f"/workspaces/{ws}/sources/{bad_id}/rejected",
        ):
            response = client.get(path)
            assert response.status_code == 404, path
        derived = api_for(trio.reviewer).post(
            f"/workspaces/{ws}/claims", {"statement": "x", "derived_from": ["a\u0000b"]}
        )
        assert derived.status_code == 422 and derived.json()["error"] == "invalid_support"
        # No query parameter can hold NUL (the OpenAPI document says so): refused in words, not searched.
        search = client.get(f"/workspaces/{ws}/claims?q=a%00b")
        assert search.status_code == 422 and search.json()["error"] == "invalid_input"

    def test_a_claim_cannot_be_both_evidence_backed_and_derived(self, trio: Trio) -> None:
        source = add_source(api_for(trio.reviewer), str(trio.workspace.id))
        body = {"statement": "x", "source_id": source["id"], "evidence_quote": "June", "derived_from": []}
        response = api_for(trio.reviewer).post(f"/workspaces/{trio.workspace.id}/claims", body)
        assert response.status_code == 422 and "not both" in response.json()["detail"]

    def test_a_multi_line_quote_sent_with_crlf_matches_the_normalised_text(self, trio: Trio) -> None:
        source = add_source(api_for(trio.reviewer), str(trio.workspace.id))
        quote = "The launch is in June. Ana owns the launch checklist.\r\n\r\nBudget"
        response = api_for(trio.reviewer).post(
            f"/workspaces/{trio.workspace.id}/claims",
            {"source_id": source["id"], "statement": "x", "evidence_quote": quote},
        )
        assert response.status_code == 201
        claim = response.json()
        assert claim["evidence_quote"] == quote.replace("\r\n", "\n") == LAUNCH[claim["start"] : claim["end"]]

    def test_search_returns_more_than_twenty_results(self, trio: Trio) -> None:
        text = " ".join(f"Item {n} ships in June." for n in range(60))
        source = add_source(api_for(trio.reviewer), str(trio.workspace.id), text=text)
        for n in range(30):
            api_for(trio.reviewer).post(
                f"/workspaces/{trio.workspace.id}/claims",
                {
                    "source_id": source["id"],
                    "statement": f"Item {n} ships in June.",
                    "evidence_quote": f"Item {n} ships in June.",
                },
            )
        results = api_for(trio.viewer).get(f"/workspaces/{trio.workspace.id}/claims?q=ships").json()["results"]
        assert len(results) == 30
