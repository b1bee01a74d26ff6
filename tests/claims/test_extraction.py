"""Extraction through a scripted model and through the offline rules; hostile answers change nothing."""

from __future__ import annotations

from typing import Any

import pytest

from afterhack import graph
from benchmarks.llm_server import json_reply
from tests.claims.test_sources_api import LAUNCH, add_source
from tests.conftest import Trio, api_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def committed(django_capture_on_commit_callbacks: Any) -> Any:
    """Runs on-commit callbacks (the Celery enqueue) as if the test's transaction had committed."""
    return django_capture_on_commit_callbacks


def extract(trio: Trio, source_id: str, committed: Any) -> dict[str, Any]:
    """Asks for extraction (the task runs eagerly once the request commits) and returns the source as the API shows it."""
    client = api_for(trio.reviewer)
    with committed(execute=True):
        response = client.post(f"/workspaces/{trio.workspace.id}/sources/{source_id}/extract")
    assert response.status_code == 202 and response.json()["status"] == "queued"
    return dict(client.get(f"/workspaces/{trio.workspace.id}/sources/{source_id}").json())


def claims_in_graph(trio: Trio) -> int:
    return int(graph.ro_query(trio.workspace, "MATCH (c:Claim) RETURN count(c)")[0][0])


def source_with_one_fragment(trio: Trio) -> dict[str, Any]:
    return add_source(api_for(trio.reviewer), str(trio.workspace.id), text=LAUNCH)


class ModelExtractionTests:
    def test_it_keeps_exact_quotes_and_records_paraphrased_and_invented_ones(
        self, trio: Trio, committed: Any, llm: Any
    ) -> None:
        llm.script(json_reply({"claims": [
            {"statement": "The launch is in June.", "evidence_quote": "The launch is in June", "confidence": 0.9},
            {"statement": "Ana owns the checklist.", "evidence_quote": "Ana is the owner of the launch checklist", "confidence": 0.8},
            {"statement": "The CEO resigned.", "evidence_quote": "The CEO resigned yesterday", "confidence": 0.7},
        ]}))  # fmt: skip
        source = source_with_one_fragment(trio)
        detail = extract(trio, source["id"], committed)
        assert detail["extraction"]["status"] == "done"
        assert len(detail["claims"]) == 1
        span = detail["claims"][0]
        assert LAUNCH[span["start"] : span["end"]] == "The launch is in June"
        rejected = (
            api_for(trio.reviewer)
            .get(f"/workspaces/{trio.workspace.id}/sources/{source['id']}/rejected")
            .json()["results"]
        )
        assert {r["reason"] for r in rejected} == {"not_found"}
        by_quote = {r["evidence_quote"]: r for r in rejected}
        paraphrase = by_quote["Ana is the owner of the launch checklist"]["hint"]
        assert paraphrase is not None and "launch checklist" in LAUNCH[paraphrase["start"] : paraphrase["end"]]
        assert by_quote["The CEO resigned yesterday"]["hint"] is None
        # The system message names the call kind, as docs/model.md (Extraction) says.
        assert "EXTRACT" in llm.requests[0]["messages"][0]["content"] and "tools" not in llm.requests[0]

    def test_it_hides_the_near_miss_hint_from_viewers(self, trio: Trio, committed: Any, llm: Any) -> None:
        llm.script(json_reply({"claims": [{"statement": "x", "evidence_quote": "the launch happens in June"}]}))
        source = source_with_one_fragment(trio)
        extract(trio, source["id"], committed)
        rows = (
            api_for(trio.viewer)
            .get(f"/workspaces/{trio.workspace.id}/sources/{source['id']}/rejected")
            .json()["results"]
        )
        assert rows and "hint" not in rows[0]
        assert rows[0] | {} == {
            "statement": "x",
            "evidence_quote": "the launch happens in June",
            "reason": "not_found",
            "detail": rows[0]["detail"],
        }

    def test_it_accepts_json_inside_a_fence(self, trio: Trio, committed: Any, llm: Any) -> None:
        llm.script(
            json_reply(
                {"claims": [{"statement": "Ana owns it.", "evidence_quote": "Ana owns the launch checklist"}]},
                fenced=True,
            )
        )
        detail = extract(trio, source_with_one_fragment(trio)["id"], committed)
        assert detail["extraction"]["status"] == "done" and len(detail["claims"]) == 1

    def test_running_it_again_adds_no_duplicates(self, trio: Trio, committed: Any, llm: Any) -> None:
        llm.script(json_reply({"claims": [
            {"statement": "The launch is in June.", "evidence_quote": "The launch is in June"},
            {"statement": "Paraphrase.", "evidence_quote": "launch happens in June"},
        ]}))  # fmt: skip
        source = source_with_one_fragment(trio)
        extract(trio, source["id"], committed)
        again = extract(trio, source["id"], committed)
        assert len(again["claims"]) == 1 and again["extraction"]["claims_added"] == 0
        rejected = (
            api_for(trio.reviewer)
            .get(f"/workspaces/{trio.workspace.id}/sources/{source['id']}/rejected")
            .json()["results"]
        )
        assert len(rejected) == 1

    @pytest.mark.parametrize(
        ("reply", "words"),
        [
            ({"raw": "this is not json"}, "not JSON"),
            ({"content": "Sure! The claims are: launch in June."}, "did not answer with the JSON"),
            ({"content": '{"claims": "June"}'}, "not a list of claims"),
            ({"status": 500}, "HTTP 500"),
            ({"delay": 3, "content": '{"claims": []}'}, "did not answer within"),
        ],
    )
    def test_a_failed_model_call_fails_the_run_with_a_sentence_and_writes_no_claims(
        self, trio: Trio, committed: Any, llm: Any, reply: dict[str, Any], words: str
    ) -> None:
        # Two fragments: the first answers well, the second fails; nothing of the first may stay.
        text = ("The launch is in June. " * 60).strip() + "\n\n" + ("Ana owns the checklist. " * 60).strip()
        source = add_source(api_for(trio.reviewer), str(trio.workspace.id), text=text)
        assert len(source["fragments"]) == 2
        llm.script(json_reply({"claims": [{"statement": "June.", "evidence_quote": "The launch is in June."}]}), reply)
        detail = extract(trio, source["id"], committed)
        assert detail["extraction"]["status"] == "failed"
        assert words in detail["extraction"]["error"] and detail["extraction"]["error"].endswith((".", "”).", "?"))
        assert detail["claims"] == [] and claims_in_graph(trio) == 0


class OfflineExtractionTests:
    def test_it_proposes_one_claim_per_fact_bearing_sentence_quoting_it_exactly(
        self, trio: Trio, committed: Any, no_llm: None
    ) -> None:
        source = source_with_one_fragment(trio)
        detail = extract(trio, source["id"], committed)
        assert detail["extraction"]["status"] == "done" and detail["extraction"]["extractor"] == "rule_based"
        quotes = sorted(LAUNCH[c["start"] : c["end"]] for c in detail["claims"])
        assert "The launch is in June." in quotes and "Ana owns the launch checklist." in quotes
        assert "Launch plan" not in quotes  # a title states nothing
        claim = api_for(trio.viewer).get(f"/workspaces/{trio.workspace.id}/claims/{detail['claims'][0]['id']}").json()
        assert claim["confidence_kind"] == "rule_match" and claim["statement"] == " ".join(
            claim["evidence_quote"].split()
        )

    def test_it_is_idempotent(self, trio: Trio, committed: Any, no_llm: None) -> None:
        source = source_with_one_fragment(trio)
        first = extract(trio, source["id"], committed)
        again = extract(trio, source["id"], committed)
        assert sorted(c["id"] for c in first["claims"]) == sorted(c["id"] for c in again["claims"])
        assert again["extraction"]["claims_added"] == 0

    def test_viewers_cannot_start_an_extraction(self, trio: Trio, committed: Any, no_llm: None) -> None:
        source = source_with_one_fragment(trio)
        response = api_for(trio.viewer).post(f"/workspaces/{trio.workspace.id}/sources/{source['id']}/extract")
        assert response.status_code == 403
        assert (
            api_for(trio.reviewer).get(f"/workspaces/{trio.workspace.id}/sources/{source['id']}").json()["extraction"]
            is None
        )


class StalledAndDirtyTests:
    def test_a_stalled_extraction_shows_as_failed_and_can_be_started_again(
        self, trio: Trio, committed: Any, no_llm: None
    ) -> None:
        source = source_with_one_fragment(trio)
        client = api_for(trio.reviewer)
        with committed(execute=False):
            client.post(f"/workspaces/{trio.workspace.id}/sources/{source['id']}/extract")
        graph.query(
            trio.workspace, "MATCH (e:Extraction) SET e.status = 'running', e.updated_at = '2000-01-01T00:00:00'"
        )
        detail = client.get(f"/workspaces/{trio.workspace.id}/sources/{source['id']}").json()
        assert (
            detail["extraction"]["status"] == "failed" and "stopped reporting progress" in detail["extraction"]["error"]
        )
        again = extract(trio, source["id"], committed)
        assert again["extraction"]["status"] == "done" and len(again["claims"]) >= 2

    def test_nul_and_lone_surrogates_in_a_model_answer_are_stored_clean(
        self, trio: Trio, committed: Any, llm: Any
    ) -> None:
        llm.script(
            {
                "content": '{"claims": [{"statement": "The launch\\u0000 is in June.", "evidence_quote": "The launch is in June"},'
                ' {"statement": "Bad \\ud800 text", "evidence_quote": "not \\ud800 there"}]}'
            }
        )
        detail = extract(trio, source_with_one_fragment(trio)["id"], committed)
        assert detail["extraction"]["status"] == "done" and len(detail["claims"]) == 1
        claim = api_for(trio.viewer).get(f"/workspaces/{trio.workspace.id}/claims/{detail['claims'][0]['id']}").json()
        assert claim["statement"] == "The launch is in June."
        rejected = (
            api_for(trio.reviewer)
            .get(f"/workspaces/{trio.workspace.id}/sources/{detail['id']}/rejected")
            .json()["results"]
        )
        assert rejected[0]["evidence_quote"] == "not ? there"

    def test_a_reworded_statement_on_a_second_run_is_not_a_duplicate(
        self, trio: Trio, committed: Any, llm: Any
    ) -> None:
        source = source_with_one_fragment(trio)
        llm.script(
            json_reply({"claims": [{"statement": "The launch is in June.", "evidence_quote": "The launch is in June"}]})
        )
        extract(trio, source["id"], committed)
        llm.script(
            json_reply(
                {"claims": [{"statement": "Launch happens in June.", "evidence_quote": "The launch is in June"}]}
            )
        )
        again = extract(trio, source["id"], committed)
        assert len(again["claims"]) == 1 and again["extraction"]["claims_added"] == 0


class RuleExtractorTests:
    def test_it_takes_statements_and_skips_headings_questions_and_chatter(self) -> None:
        from claims.extraction import rule_proposals

        text = (
            "Launch plan — update from the March planning meeting\n\n"
            "Café Aurora opens on 12 April 2027 in Lisbon. The café seats 60 people on two floors. "
            "Thanks a lot for everything. Is the launch in June? Ana owns the checklist."
        )
        quotes = [p.evidence_quote for p in rule_proposals(text)]
        assert quotes == [
            "Café Aurora opens on 12 April 2027 in Lisbon.",
            "The café seats 60 people on two floors.",
            "Ana owns the checklist.",
        ]
        assert all(text.count(q) == 1 for q in quotes)

    def test_it_does_not_repeat_a_claim_a_person_already_made(self, trio: Trio, committed: Any, no_llm: None) -> None:
        from claims.services import claims as claims_services

        source = source_with_one_fragment(trio)
        claims_services.claim_add(
            workspace=trio.workspace,
            source_id=source["id"],
            statement="The launch is in June.",
            evidence_quote="The launch is in June",
            actor=trio.reviewer,
        )
        detail = extract(trio, source["id"], committed)
        statements = [
            api_for(trio.viewer).get(f"/workspaces/{trio.workspace.id}/claims/{c['id']}").json()["statement"]
            for c in detail["claims"]
        ]
        assert statements.count("The launch is in June.") == 1
