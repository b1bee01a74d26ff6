"""Evidence that goes away: retracting a source, and a new version that re-validates every quote."""

from __future__ import annotations

import pytest

from tests.conftest import api_for
from tests.corrections.conftest import PLAN, World

pytestmark = pytest.mark.django_db


def status_of(world: World, kind: str, node_id: str) -> str:
    return str(api_for(world.trio.viewer).get(f"/workspaces/{world.ws}/{kind}/{node_id}").json()["status"])


def source_of(world: World, claim_id: str) -> str:
    return str(api_for(world.trio.viewer).get(f"/workspaces/{world.ws}/claims/{claim_id}").json()["source_id"])


class RetractionTests:
    def test_retracting_a_source_retracts_its_claims_and_propagates(self, world: World) -> None:
        plan_only = world.decision("Ana runs the launch", [world.ana])
        both = world.decision("Launch in June", [world.june], [world.northwind])
        held = world.action("Brief Ana", plan_only)
        response = api_for(world.trio.reviewer).post(
            f"/workspaces/{world.ws}/sources/{source_of(world, world.june)}/retract"
        )
        assert response.status_code == 200
        body = response.json()
        assert set(body["retracted"]) == {world.june, world.ana, world.may}
        assert body["affected"]["decisions_needing_review"] == [plan_only] and body["affected"][
            "decisions_still_supported"
        ] == [both]
        assert (
            status_of(world, "claims", world.june) == "retracted"
            and status_of(world, "claims", world.northwind) == "current"
        )
        assert (
            status_of(world, "decisions", plan_only) == "needs_review"
            and status_of(world, "decisions", both) == "supported"
        )
        assert status_of(world, "actions", held) == "held"
        again = api_for(world.trio.reviewer).post(
            f"/workspaces/{world.ws}/sources/{source_of(world, world.june)}/retract"
        )
        assert again.status_code == 409

    def test_viewers_cannot_retract(self, world: World) -> None:
        response = api_for(world.trio.viewer).post(
            f"/workspaces/{world.ws}/sources/{source_of(world, world.june)}/retract"
        )
        assert response.status_code == 403 and status_of(world, "claims", world.june) == "current"


class NewVersionTests:
    def test_quotes_still_there_move_and_the_others_are_retracted_and_propagated(self, world: World) -> None:
        launch = world.decision("Launch in June", [world.june])
        ana = world.decision("Ana runs it", [world.ana])
        source = source_of(world, world.june)
        new_text = "Launch plan, revised\n\nPreface added.\n\nAna owns the checklist. The launch is in July. Marketing starts in May.\n"
        response = api_for(world.trio.reviewer).post(
            f"/workspaces/{world.ws}/sources/{source}/versions", {"text": new_text}
        )
        assert response.status_code == 201, response.content
        body = response.json()
        assert body["version"] == 2 and body["moved"] == 2 and body["retracted"] == [world.june]
        assert body["affected"]["decisions_needing_review"] == [launch]
        moved = api_for(world.trio.viewer).get(f"/workspaces/{world.ws}/claims/{world.ana}").json()
        assert moved["status"] == "current" and new_text[moved["start"] : moved["end"]] == "Ana owns the checklist"
        assert moved["fragment"]["text"] in new_text
        assert (
            status_of(world, "claims", world.june) == "retracted" and status_of(world, "decisions", ana) == "supported"
        )
        detail = api_for(world.trio.viewer).get(f"/workspaces/{world.ws}/sources/{source}").json()
        assert detail["version"] == 2 and detail["text"] == new_text
        assert {c["id"] for c in detail["claims"]} == {world.ana, world.may}

    def test_the_same_text_again_changes_nothing(self, world: World) -> None:
        source = source_of(world, world.june)
        response = api_for(world.trio.reviewer).post(
            f"/workspaces/{world.ws}/sources/{source}/versions", {"text": PLAN}
        )
        assert response.status_code == 422 and "same as the current version" in response.json()["detail"]


class RevisePageTests:
    def test_a_new_version_from_the_page_lists_the_vanished_claims(self, world: World) -> None:
        from tests.conftest import client_for

        source = source_of(world, world.june)
        page = client_for(world.trio.reviewer).get(f"/w/{world.ws}/sources/{source}/revise")
        assert page.status_code == 200 and "Add version 2" in page.content.decode()
        response = client_for(world.trio.reviewer).post(
            f"/w/{world.ws}/sources/{source}/revise", {"text": "Ana owns the checklist. Marketing starts in May."}
        )
        assert response.status_code == 302
        shown = client_for(world.trio.viewer).get(f"/w/{world.ws}/sources/{source}/").content.decode()
        assert "Retracted claims (1)" in shown and "its quote is not in the newer version" in shown
        assert client_for(world.trio.viewer).get(f"/w/{world.ws}/sources/{source}/revise").status_code == 403


class NothingComesBackTests:
    def test_no_new_claim_can_cite_a_retracted_source(
        self, world: World, django_capture_on_commit_callbacks: object
    ) -> None:
        source = source_of(world, world.june)
        api_for(world.trio.reviewer).post(f"/workspaces/{world.ws}/sources/{source}/retract")
        added = api_for(world.trio.reviewer).post(
            f"/workspaces/{world.ws}/claims", {"source_id": source, "statement": "x", "evidence_quote": "Ana owns"}
        )
        assert added.status_code == 409 and "retracted" in added.json()["detail"]
        extract = api_for(world.trio.reviewer).post(f"/workspaces/{world.ws}/sources/{source}/extract")
        assert extract.status_code == 409

    def test_a_corrected_claim_cannot_be_added_again_or_re_extracted(
        self, world: World, django_capture_on_commit_callbacks: object, settings: object
    ) -> None:
        revision = world.preview(world.june).json()["revision"]
        world.apply(world.june, revision)
        source = source_of(world, world.june)
        again = api_for(world.trio.reviewer).post(
            f"/workspaces/{world.ws}/claims",
            {"source_id": source, "statement": "The launch is in June.", "evidence_quote": "The launch is in June"},
        )
        assert again.status_code == 409 and "superseded" in again.json()["detail"]
        settings.AFTERHACK_LLM_MODEL = ""  # type: ignore[attr-defined]
        with django_capture_on_commit_callbacks(execute=True):  # type: ignore[operator]
            api_for(world.trio.reviewer).post(f"/workspaces/{world.ws}/sources/{source}/extract")
        results = api_for(world.trio.viewer).get(f"/workspaces/{world.ws}/claims?q=launch is in June").json()["results"]
        assert [r["status"] for r in results if "June" in r["statement"] and r["source_id"] == source] == ["superseded"]
