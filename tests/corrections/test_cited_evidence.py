"""A correction that cites a passage of a source as well as itself, through the API on the real stores."""

from __future__ import annotations

from typing import Any

import pytest

from afterhack import graph
from claims.graph import sources as sources_graph
from claims.graph.shapes import CitedPassage
from claims.services import sources as sources_services
from corrections.graph import apply as apply_graph
from corrections.graph import subgraph as subgraph_graph
from corrections.models import CorrectionIntent
from corrections.services import evidence as evidence_services
from tests.conftest import api_for
from tests.corrections.conftest import PLAN, World
from workspaces.models import AuditEvent
from workspaces.services import workspaces as workspace_services

pytestmark = pytest.mark.django_db

RISKS = "Risks\n\nThe certification may slip; if it does, the launch moves to July.\n"
PASSAGE = "if it does, the launch moves to July"


def add_risks(world: World, text: str = RISKS) -> str:
    """A second source that says what the correction says."""
    return sources_services.source_add(
        workspace=world.trio.workspace, title="Risks", text=text, actor=world.trio.reviewer
    ).id


def apply(world: World, revision: int, evidence: Any, key: str = "key-1") -> Any:
    body = {
        "statement": "The launch is in July.", "reason": "The certification slipped.", "revision": revision,
        "idempotency_key": key, "evidence": evidence,
    }  # fmt: skip
    return api_for(world.trio.reviewer).post(f"/workspaces/{world.ws}/claims/{world.june}/corrections", body)


def claim(world: World, claim_id: str) -> dict[str, Any]:
    return dict(api_for(world.trio.viewer).get(f"/workspaces/{world.ws}/claims/{claim_id}").json())


def nothing_written(world: World) -> None:
    """The claim is still current, no correction exists, no intent and no audit event were written."""
    assert claim(world, world.june)["status"] == "current" and claim(world, world.june)["superseded_by"] is None
    assert graph.ro_query(world.trio.workspace, "MATCH (x:Correction) RETURN count(x)") == [[0]]
    assert not CorrectionIntent.objects.exists()
    assert not AuditEvent.objects.filter(verb="correction.applied").exists()


def citations(world: World, claim_id: str) -> list[list[Any]]:
    return graph.ro_query(
        world.trio.workspace,
        "MATCH (:Claim {id: $id})-[r:SUPPORTED_BY]->(f:SourceFragment) RETURN r.role, f.origin_type, f.id ORDER BY r.role",
        {"id": claim_id},
    )


class CitedEvidenceTests:
    def test_without_evidence_the_replacement_cites_only_the_correction(self, world: World) -> None:
        revision = world.preview(world.june).json()["revision"]
        result = apply(world, revision, None)
        assert result.status_code == 201, result.content
        new = claim(world, result.json()["replacement_claim_id"])
        assert new["cited_passage"] is None and new["fragment"]["origin_type"] == "human_correction"
        assert [row[:2] for row in citations(world, new["id"])] == [["reviewer_correction", "human_correction"]]
        assert AuditEvent.objects.get(verb="correction.applied").payload["evidence"] is None
        assert claim(world, world.june)["cited_passage"] is None

    def test_with_evidence_the_replacement_cites_the_correction_and_the_passage(self, world: World) -> None:
        risks = add_risks(world)
        revision = world.preview(world.june).json()["revision"]
        result = apply(world, revision, {"source_id": risks, "quote": PASSAGE})
        assert result.status_code == 201, result.content
        assert result.json()["status"] == "applied"
        new = claim(world, result.json()["replacement_claim_id"])
        start = RISKS.index(PASSAGE)
        # Its own evidence stays the correction's words; the passage is a second citation beside it.
        assert (
            new["evidence_quote"] == "The launch is in July." and new["fragment"]["origin_type"] == "human_correction"
        )
        assert new["source_id"] is None and new["confidence_kind"] == "human_correction"
        cited = new["cited_passage"]
        assert cited["source_id"] == risks and cited["version"] == 1 and cited["quote"] == PASSAGE
        assert (cited["start"], cited["end"]) == (start, start + len(PASSAGE))
        fragments = sources_graph.version_fragments(
            workspace=world.trio.workspace,
            version_id=sources_graph.source_get(workspace=world.trio.workspace, source_id=risks).id,  # type: ignore[union-attr]
        )
        assert [f["id"] for f in cited["fragments"]] == [f.id for f in fragments]
        assert {f["id"] for f in new["fragments"]}.isdisjoint(f["id"] for f in cited["fragments"])
        # Two SUPPORTED_BY citations in the graph: the correction's own fragment and the source's.
        rows = citations(world, new["id"])
        assert [row[:2] for row in rows] == [["cited_passage", "document"], ["reviewer_correction", "human_correction"]]
        assert rows[0][2] == fragments[0].id
        intent = CorrectionIntent.objects.get()
        assert (intent.evidence_source_id, intent.evidence_quote, intent.evidence_start) == (risks, PASSAGE, None)
        event = AuditEvent.objects.get(verb="correction.applied").payload
        assert event["evidence"]["quote"] == PASSAGE and event["evidence"]["start"] == start
        assert event["recovered"] is False

    def test_the_claims_own_source_can_be_cited_at_a_given_start(self, world: World) -> None:
        revision = world.preview(world.june).json()["revision"]
        source_id = claim(world, world.june)["source_id"]
        start = PLAN.index("Marketing starts in May")
        result = apply(world, revision, {"source_id": source_id, "quote": "Marketing starts in May", "start": start})
        assert result.status_code == 201, result.content
        cited = claim(world, result.json()["replacement_claim_id"])["cited_passage"]
        assert (cited["source_id"], cited["start"], cited["end"]) == (source_id, start, start + 23)
        # The old claim's source is not rewritten: the passage is cited, not claimed.
        assert claim(world, world.june)["status"] == "superseded"

    def test_a_paraphrased_quote_is_refused_and_nothing_is_written(self, world: World) -> None:
        risks = add_risks(world)
        revision = world.preview(world.june).json()["revision"]
        result = apply(world, revision, {"source_id": risks, "quote": "if so, the launch moves to July"})
        assert result.status_code == 422
        body = result.json()
        # The same answer a proposed claim with that quote gets: no near-miss hint for the API.
        assert body == {
            "error": "evidence_not_found",
            "detail": "The quote does not occur in the source text, character for character.",
            "reason": "not_found",
        }
        nothing_written(world)

    def test_a_quote_not_at_its_start_is_refused(self, world: World) -> None:
        risks = add_risks(world)
        revision = world.preview(world.june).json()["revision"]
        result = apply(world, revision, {"source_id": risks, "quote": PASSAGE, "start": 3})
        assert result.status_code == 422
        assert result.json()["error"] == "evidence_not_found" and result.json()["reason"] == "not_at_start"
        nothing_written(world)

    def test_another_workspaces_source_is_not_found(self, world: World) -> None:
        other = workspace_services.workspace_create(name="Elsewhere", creator=world.trio.reviewer)
        elsewhere = sources_services.source_add(workspace=other, title="Risks", text=RISKS, actor=world.trio.reviewer)
        revision = world.preview(world.june).json()["revision"]
        result = apply(world, revision, {"source_id": elsewhere.id, "quote": PASSAGE})
        assert result.status_code == 404 and result.json()["error"] == "not_found"
        nothing_written(world)

    def test_a_retracted_source_cannot_be_cited(self, world: World) -> None:
        risks = add_risks(world)
        evidence_services.source_retract(workspace=world.trio.workspace, source_id=risks, actor=world.trio.reviewer)
        revision = world.preview(world.june).json()["revision"]
        result = apply(world, revision, {"source_id": risks, "quote": PASSAGE})
        assert result.status_code == 409 and "retracted" in result.json()["detail"]
        nothing_written(world)

    @pytest.mark.parametrize(
        ("evidence", "words"),
        [
            ({"source_id": "nope", "quote": PASSAGE}, "is not an id"),
            ({"quote": PASSAGE}, "source_id"),
            ({"source_id": "8a0b7d9e-6c1f-4a51-9d1c-0c9e2f3b4a5d", "quote": 7}, "“evidence.quote” must be"),
            ({"source_id": "8a0b7d9e-6c1f-4a51-9d1c-0c9e2f3b4a5d", "quote": "x", "start": "1"}, "“evidence.start”"),
            ("if it does", "“evidence” must be an object"),
        ],
    )
    def test_malformed_evidence_is_refused_in_words(self, world: World, evidence: Any, words: str) -> None:
        revision = world.preview(world.june).json()["revision"]
        result = apply(world, revision, evidence)
        assert result.status_code == 422 and result.json()["error"] == "invalid_input"
        assert words in result.json()["detail"]
        nothing_written(world)

    def test_the_same_key_with_other_evidence_is_another_correction(self, world: World) -> None:
        risks = add_risks(world)
        revision = world.preview(world.june).json()["revision"]
        first = apply(world, revision, {"source_id": risks, "quote": PASSAGE})
        assert first.status_code == 201
        for other in (None, {"source_id": risks, "quote": "the launch moves to July"},
                      {"source_id": risks, "quote": PASSAGE, "start": RISKS.index(PASSAGE)}):  # fmt: skip
            refused = apply(world, revision, other)
            assert refused.status_code == 422 and "already used for a different correction" in refused.json()["detail"]
        again = apply(world, revision, {"source_id": risks, "quote": PASSAGE})
        assert again.status_code == 200 and again.json()["status"] == "already_applied"
        assert again.json()["replacement_claim_id"] == first.json()["replacement_claim_id"]
        assert AuditEvent.objects.filter(verb="correction.applied").count() == 1

    def test_a_key_first_used_without_evidence_refuses_evidence(self, world: World) -> None:
        risks = add_risks(world)
        revision = world.preview(world.june).json()["revision"]
        assert apply(world, revision, None).status_code == 201
        refused = apply(world, revision, {"source_id": risks, "quote": PASSAGE})
        assert refused.status_code == 422 and "different correction" in refused.json()["detail"]

    def test_the_replay_answers_even_after_the_cited_source_changed(self, world: World) -> None:
        risks = add_risks(world)
        revision = world.preview(world.june).json()["revision"]
        first = apply(world, revision, {"source_id": risks, "quote": PASSAGE})
        evidence_services.source_retract(workspace=world.trio.workspace, source_id=risks, actor=world.trio.reviewer)
        again = apply(world, revision, {"source_id": risks, "quote": PASSAGE})
        assert again.status_code == 200 and again.json()["status"] == "already_applied"
        assert again.json()["replacement_claim_id"] == first.json()["replacement_claim_id"]
        # What was cited stays cited, in the version it was cited in.
        cited = claim(world, first.json()["replacement_claim_id"])["cited_passage"]
        assert cited["version"] == 1 and len(cited["fragments"]) == 1


class CitedSourceVersionTests:
    def test_a_new_version_after_the_preview_is_what_the_quote_is_checked_against(self, world: World) -> None:
        risks = add_risks(world)
        revision = world.preview(world.june).json()["revision"]
        moved = "Update: nothing is certain.\n" + RISKS
        evidence_services.source_new_version(
            workspace=world.trio.workspace, source_id=risks, text=moved, actor=world.trio.reviewer
        )
        result = apply(world, revision, {"source_id": risks, "quote": PASSAGE})
        assert result.status_code == 201, result.content
        cited = claim(world, result.json()["replacement_claim_id"])["cited_passage"]
        assert cited["version"] == 2 and cited["start"] == moved.index(PASSAGE)

    def test_a_quote_gone_from_the_new_version_is_refused(self, world: World) -> None:
        risks = add_risks(world)
        revision = world.preview(world.june).json()["revision"]
        evidence_services.source_new_version(
            workspace=world.trio.workspace, source_id=risks, text="Risks\n\nNone.\n", actor=world.trio.reviewer
        )
        result = apply(world, revision, {"source_id": risks, "quote": PASSAGE})
        assert result.status_code == 422 and result.json()["error"] == "evidence_not_found"
        nothing_written(world)

    def test_a_version_added_between_the_check_and_the_write_refuses_the_write(
        self, world: World, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        risks = add_risks(world)
        revision = world.preview(world.june).json()["revision"]
        write = apply_graph.correction_apply

        def another_reviewer_first(**kwargs: Any) -> bool:
            # Another reviewer's new version lands after the passage was checked, before the graph write.
            evidence_services.source_new_version(
                workspace=world.trio.workspace, source_id=risks, text=RISKS + "More.\n", actor=world.trio.owner
            )
            monkeypatch.setattr(apply_graph, "correction_apply", write)
            return write(**kwargs)

        monkeypatch.setattr(apply_graph, "correction_apply", another_reviewer_first)
        result = apply(world, revision, {"source_id": risks, "quote": PASSAGE})
        assert result.status_code == 409 and result.json()["error"] == "conflict"
        assert "“Risks” changed" in result.json()["detail"] and "nothing was written" in result.json()["detail"]
        assert claim(world, world.june)["status"] == "current"
        assert graph.ro_query(world.trio.workspace, "MATCH (x:Correction) RETURN count(x)") == [[0]]
        assert CorrectionIntent.objects.get().state == "refused"
        # Applied again with the same key, the passage is found in the new version.
        again = apply(world, revision, {"source_id": risks, "quote": PASSAGE})
        assert again.status_code == 201, again.content
        assert claim(world, again.json()["replacement_claim_id"])["cited_passage"]["version"] == 2

    def test_the_write_itself_refuses_a_version_that_is_no_longer_current(self, world: World) -> None:
        risks = add_risks(world)
        old = sources_graph.source_get(workspace=world.trio.workspace, source_id=risks)
        assert old is not None
        evidence_services.source_new_version(
            workspace=world.trio.workspace, source_id=risks, text=RISKS + "More.\n", actor=world.trio.owner
        )
        fragments = sources_graph.version_fragments(workspace=world.trio.workspace, version_id=old.id)
        start = RISKS.index(PASSAGE)
        cited = CitedPassage(risks, old.id, 1, PASSAGE, start, start + len(PASSAGE), fragments[:1])
        affected: dict[str, list[str]] = {
            k: []
            for k in ("decisions_needing_review", "decisions_still_supported", "actions_held", "claims_unsupported")
        }
        written = apply_graph.correction_apply(
            workspace=world.trio.workspace, revision=subgraph_graph.workspace_revision(workspace=world.trio.workspace),
            claim_id=world.june, correction_id="5f1d0c9a-0b8e-4a44-9a36-2b1c3d4e5f60",
            fragment_id="5f1d0c9a-0b8e-4a44-9a36-2b1c3d4e5f61", replacement_id="5f1d0c9a-0b8e-4a44-9a36-2b1c3d4e5f62",
            statement="The launch is in July.", reason="r", actor="rita", idempotency_key="k", affected=affected,
            review_reason="r", now="2026-01-01T00:00:00Z", cited=cited,
        )  # fmt: skip
        assert written is False
        assert claim(world, world.june)["status"] == "current"
        assert graph.ro_query(world.trio.workspace, "MATCH (x:Correction) RETURN count(x)") == [[0]]
