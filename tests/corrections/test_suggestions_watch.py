"""The contradiction watch on real stores: a claim that becomes current (added, extracted, a correction's
replacement) is compared with the current claims the search finds, and a contradiction becomes ONE open suggestion
to correct the older claim, citing the newer one's exact quote; a pair is never suggested twice (two workers at
once, a rejected pair); a suggestion whose claims stop being current is obsolete."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from afterhack import graph
from claims.services import claims as claims_services
from claims.services import embeddings as embeddings_services
from claims.services import sources as sources_services
from claims.signals import claims_current
from corrections.contradiction.rule import Outcome, judge
from corrections.services import watch as watch_services
from corrections.services.watch import claims_current_received
from tests.claims.test_extraction import extract
from tests.conftest import Trio, api_for

pytestmark = pytest.mark.django_db

PLAN = "Launch plan\n\nThe launch is in June. The launch budget is 40k.\n"
EMAIL = "From Ana, on Monday: the date moved. The launch is in July.\n"
JULY = "The launch is in July."


@dataclass
class Launch:
    trio: Trio
    plan: str
    june: str
    budget: str
    email: str

    @property
    def ws(self) -> str:
        return str(self.trio.workspace.id)

    def claim(self, source_id: str, quote: str) -> str:
        return claims_services.claim_add(
            workspace=self.trio.workspace, source_id=source_id, statement=quote, evidence_quote=quote,
            actor=self.trio.reviewer,
        ).id  # fmt: skip

    def suggestions(self, status: str = "open") -> list[dict[str, Any]]:
        response = api_for(self.trio.viewer).get(f"/workspaces/{self.ws}/suggestions?status={status}")
        assert response.status_code == 200, response.content
        return list(response.json()["results"])

    def correct(self, claim_id: str, statement: str, committed: Callable[..., Any]) -> dict[str, Any]:
        client = api_for(self.trio.reviewer)
        preview = client.post(f"/workspaces/{self.ws}/claims/{claim_id}/correction-preview", {"statement": statement})
        assert preview.status_code == 200, preview.content
        body = {"statement": statement, "reason": "It changed.", "revision": preview.json()["revision"],
                "idempotency_key": f"fix-{claim_id}"}  # fmt: skip
        with committed(execute=True):
            applied = client.post(f"/workspaces/{self.ws}/claims/{claim_id}/corrections", body)
        assert applied.status_code == 201, applied.content
        return dict(applied.json())


def suggestions_stored(trio: Trio) -> int:
    return int(graph.ro_query(trio.workspace, "MATCH (x:Suggestion) RETURN count(x)")[0][0])


@pytest.fixture
def committed(django_capture_on_commit_callbacks: Any) -> Any:
    """Runs on-commit callbacks (the watch's Celery task, eager in tests) as if the test's transaction committed."""
    return django_capture_on_commit_callbacks


@pytest.fixture
def launch(trio: Trio, no_llm: None) -> Launch:
    plan = sources_services.source_add(workspace=trio.workspace, title="Launch plan", text=PLAN, actor=trio.reviewer)
    email = sources_services.source_add(workspace=trio.workspace, title="Email", text=EMAIL, actor=trio.reviewer)
    world = Launch(trio, plan.id, "", "", email.id)
    world.june = world.claim(plan.id, "The launch is in June.")
    world.budget = world.claim(plan.id, "The launch budget is 40k.")
    return world


class WatchTests:
    def test_a_claim_added_that_contradicts_a_current_one_suggests_correcting_the_older(
        self, launch: Launch, committed: Any
    ) -> None:
        assert launch.suggestions() == []
        with committed(execute=True):
            july = launch.claim(launch.email, "The launch is in July.")
        [suggestion] = launch.suggestions()
        start = EMAIL.index("The launch is in July.")
        assert suggestion["claim_id"] == launch.june and suggestion["by_claim_id"] == july
        assert suggestion["statement"] == "The launch is in July." and suggestion["status"] == "open"
        assert suggestion["kind"] == "contradiction" and suggestion["found_by"] == "rule" and suggestion["reason"]
        assert suggestion["evidence"] == {
            "source_id": launch.email, "quote": "The launch is in July.", "start": start, "end": start + 22
        }  # fmt: skip
        assert suggestion["correction_id"] is None
        # The budget shares words with July's claim but says nothing about the date: nothing suggested about it.
        assert suggestions_stored(launch.trio) == 1

    def test_an_extracted_claim_is_watched_in_the_worker(self, launch: Launch, committed: Any) -> None:
        detail = extract(launch.trio, launch.email, committed)
        [july] = [c["id"] for c in detail["claims"] if EMAIL[c["start"] : c["end"]] == "The launch is in July."]
        [suggestion] = launch.suggestions()
        assert suggestion["claim_id"] == launch.june and suggestion["by_claim_id"] == july
        assert suggestion["evidence"]["quote"] == "The launch is in July."

    def test_a_derived_claim_is_watched_and_cites_no_passage(self, launch: Launch, committed: Any) -> None:
        with committed(execute=True):
            derived = claims_services.derived_claim_add(
                workspace=launch.trio.workspace, statement="The launch is in July.", derived_from=[launch.budget],
                actor=launch.trio.reviewer,
            ).id  # fmt: skip
        [suggestion] = launch.suggestions()
        assert suggestion["claim_id"] == launch.june and suggestion["by_claim_id"] == derived
        assert suggestion["evidence"] is None

    # Committed data: each worker thread has its own connection, and the watch's finds are audited (and told).
    @pytest.mark.django_db(transaction=True)
    def test_watching_the_same_claim_again_or_from_two_workers_at_once_stores_one(self, launch: Launch) -> None:
        claims_current.disconnect(dispatch_uid="corrections.watch")  # nothing watched yet: the workers below do it
        try:
            july = launch.claim(launch.email, "The launch is in July.")
        finally:
            claims_current.connect(claims_current_received, dispatch_uid="corrections.watch")
        assert suggestions_stored(launch.trio) == 0
        stored: list[int] = []
        barrier = threading.Barrier(2)

        def worker() -> None:
            barrier.wait()
            stored.append(watch_services.claims_watch(workspace=launch.trio.workspace, claim_ids=[july]))

        threads = [threading.Thread(target=worker) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(stored) == [0, 1]
        assert watch_services.claims_watch(workspace=launch.trio.workspace, claim_ids=[july, july]) == 0
        assert suggestions_stored(launch.trio) == 1

    def test_a_rejected_pair_is_never_suggested_again(self, launch: Launch, committed: Any) -> None:
        with committed(execute=True):
            july = launch.claim(launch.email, "The launch is in July.")
        [suggestion] = launch.suggestions()
        rejected = api_for(launch.trio.reviewer).post(
            f"/workspaces/{launch.ws}/suggestions/{suggestion['id']}/reject", {"both_hold": True}
        )
        assert rejected.status_code == 200, rejected.content
        assert watch_services.claims_watch(workspace=launch.trio.workspace, claim_ids=[july, launch.june]) == 0
        assert launch.suggestions() == [] and [s["id"] for s in launch.suggestions("rejected")] == [suggestion["id"]]
        assert suggestions_stored(launch.trio) == 1

    def test_no_suggestion_between_a_claim_and_its_corrections_replacement(
        self, launch: Launch, committed: Any
    ) -> None:
        applied = launch.correct(launch.june, "The launch is in July.", committed)
        assert suggestions_stored(launch.trio) == 0
        hits = watch_services.candidates(
            workspace=launch.trio.workspace, statement="The launch is in July.", kin={applied["replacement_claim_id"]}
        )
        assert launch.june not in [hit.id for hit in hits] and launch.budget in [hit.id for hit in hits]

    def test_no_suggestion_between_a_derived_claim_and_its_own_current_premise(
        self, launch: Launch, committed: Any
    ) -> None:
        """The rule alone would call them contradictory (June, July), and both stay current: only the kin rule (a
        claim is never paired with what it was derived from, or into) keeps the pair out."""
        with committed(execute=True):
            derived = claims_services.derived_claim_add(
                workspace=launch.trio.workspace, statement="The launch is in July.", derived_from=[launch.june],
                actor=launch.trio.reviewer,
            ).id  # fmt: skip
        assert judge("The launch is in June.", "The launch is in July.").outcome == Outcome.CONTRADICTS
        assert launch.suggestions() == [] and suggestions_stored(launch.trio) == 0
        # Watched again, from either side, still nothing: June is a candidate of July's but its kin.
        assert watch_services.claims_watch(workspace=launch.trio.workspace, claim_ids=[derived, launch.june]) == 0
        hits = watch_services.candidates(workspace=launch.trio.workspace, statement="The launch is in July.", kin=set())
        assert launch.june in [hit.id for hit in hits]

    def test_correcting_the_older_claim_makes_its_suggestion_obsolete(self, launch: Launch, committed: Any) -> None:
        with committed(execute=True):
            july = launch.claim(launch.email, "The launch is in July.")
        [suggestion] = launch.suggestions()
        applied = launch.correct(launch.june, "The launch is in August.", committed)
        [obsolete] = launch.suggestions("obsolete")
        assert obsolete["id"] == suggestion["id"] and obsolete["decided_at"]
        # The replacement (August, a reviewer's words) contradicts July, still current: that new pair is suggested,
        # without evidence (the replacement cites no passage).
        [newer] = launch.suggestions()
        assert newer["claim_id"] == july and newer["by_claim_id"] == applied["replacement_claim_id"]
        assert newer["statement"] == "The launch is in August." and newer["evidence"] is None

    def test_retracting_the_newer_claims_source_makes_its_suggestion_obsolete(
        self, launch: Launch, committed: Any
    ) -> None:
        with committed(execute=True):
            launch.claim(launch.email, "The launch is in July.")
        response = api_for(launch.trio.reviewer).post(f"/workspaces/{launch.ws}/sources/{launch.email}/retract")
        assert response.status_code == 200, response.content
        assert launch.suggestions() == [] and len(launch.suggestions("obsolete")) == 1

    def test_a_claim_that_loses_its_support_makes_its_suggestion_obsolete(self, launch: Launch, committed: Any) -> None:
        derived = claims_services.derived_claim_add(
            workspace=launch.trio.workspace, statement="The launch is in June.", derived_from=[launch.budget],
            actor=launch.trio.reviewer,
        ).id  # fmt: skip
        with committed(execute=True):
            launch.claim(launch.email, "The launch is in July.")
        assert sorted(s["claim_id"] for s in launch.suggestions()) == sorted([launch.june, derived])
        launch.correct(launch.budget, "The launch budget is 50k.", committed)
        [still] = launch.suggestions()
        assert still["claim_id"] == launch.june
        assert [s["claim_id"] for s in launch.suggestions("obsolete")] == [derived]


def test_with_an_embeddings_model_candidates_come_by_meaning_too_at_one_embedding_a_claim(
    trio: Trio, embedder: Any
) -> None:
    text = "The launch is in June. The release is in July."
    source = sources_services.source_add(workspace=trio.workspace, title="Plan", text=text, actor=trio.reviewer)
    june, release = (
        claims_services.claim_add(
            workspace=trio.workspace, source_id=source.id, statement=quote + ".", evidence_quote=quote,
            actor=trio.reviewer,
        ).id
        for quote in ("The launch is in June", "The release is in July")
    )  # fmt: skip
    # Not committed here, so no embedding task ran: the June claim is embedded as its task would.
    assert embeddings_services.claims_embed(workspace=trio.workspace, claim_ids=[june]) == 1
    asked = len(embedder.embedding_requests)
    found = watch_services.candidates(
        workspace=trio.workspace, statement="The release is in July.", kin={release}, claim_id=release
    )
    # No word of its subject is the June claim's ("release" / "launch"): only its meaning finds it.
    assert june in [hit.id for hit in found]
    # The new claim was embedded once, and kept: watching it again asks the model nothing.
    assert len(embedder.embedding_requests) == asked + 1
    watch_services.candidates(
        workspace=trio.workspace, statement="The release is in July.", kin={release}, claim_id=release
    )
    assert len(embedder.embedding_requests) == asked + 1
    assert embeddings_services.claims_embed(workspace=trio.workspace, claim_ids=[release]) == 0


@pytest.fixture
def found(launch: Launch, committed: Any) -> dict[str, Any]:
    """The suggestion the watch made when July's claim was added."""
    with committed(execute=True):
        launch.claim(launch.email, JULY)
    [suggestion] = launch.suggestions()
    return suggestion
