"""A contradiction watch is never lost, on real stores: with the Celery broker unreachable a claim added still answers
201 and is kept; every path that makes a claim current notes when (`current_since_ms`, range-indexed); a watch run
marks the claims it judged (`watched_at`); the sweep watches the current claims of the last day that have no mark,
the newest first, a batch at a time, and never one already watched."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from afterhack import graph
from claims.services import claims as claims_services
from claims.services import sources as sources_services
from corrections import tasks
from corrections.graph.watch import CLAIMS_UNWATCHED
from corrections.services import watch as watch_services
from tests.afterhack.test_outages import broker_unreachable
from tests.claims.test_extraction import extract
from tests.conftest import api_for
from tests.corrections.test_agent_claims import agent_claim, agent_suggestions, approve, need_approval
from tests.corrections.test_suggestions_watch import EMAIL, JULY, Launch, committed, launch, suggestions_stored
from workspaces.graph import index_kinds

pytestmark = pytest.mark.django_db

__all__ = ["committed", "launch"]  # fixtures

# A moment the sweep may take each of these claims at: past its grace, within its day.
LATER = timedelta(minutes=3)
BUDGET = "The launch budget is 50k.\n"


def marks(launch: Launch) -> dict[str, dict[str, Any]]:
    """Each claim's status, when it became current (ms) and when it was watched, by id."""
    rows = graph.ro_records(
        launch.trio.workspace,
        "MATCH (c:Claim) RETURN c {.id, .statement, .status, .current_since_ms, .watched_at} AS claim",
    )
    return {row["id"]: row for row in rows}


def sweep(at: timedelta = LATER, limit: int = watch_services.SWEEP_BATCH) -> watch_services.SweepReport:
    return watch_services.watches_sweep(now=datetime.now(UTC) + at, limit=limit)


@pytest.mark.django_db(transaction=True)
class BrokerDownTests:
    def test_a_claim_added_while_the_broker_is_down_is_kept_and_the_sweep_watches_it(
        self, launch: Launch, tmp_path: Path, caplog: pytest.LogCaptureFixture
    ) -> None:
        body = {"source_id": launch.email, "statement": JULY, "evidence_quote": JULY}
        client = api_for(launch.trio.reviewer)
        with broker_unreachable(tmp_path), caplog.at_level(logging.WARNING, logger="corrections"):
            added = client.post(f"/workspaces/{launch.ws}/claims", body)
        assert added.status_code == 201, added.content
        july = added.json()["id"]
        assert any(
            july in record.getMessage() and "could not be queued" in record.getMessage() for record in caplog.records
        )
        # Kept, current, and not watched: its watch was never queued.
        kept = marks(launch)[july]
        assert kept["status"] == "current" and kept["statement"] == JULY
        assert kept["current_since_ms"] and kept["watched_at"] is None
        assert suggestions_stored(launch.trio) == 0
        # Within its grace the sweep leaves it (its queued watch may still be on its way); later it watches it.
        assert sweep(at=timedelta(0)).claims == 0
        report = tasks.watches_sweep()
        assert report["workspaces"] >= 1 and (report["claims"], report["failed"], report["skipped"]) == (0, 0, 0)
        swept = sweep()
        assert (swept.claims, swept.suggestions, swept.failed) == (1, 1, 0)
        [suggestion] = launch.suggestions()
        assert suggestion["claim_id"] == launch.june and suggestion["by_claim_id"] == july
        assert suggestion["found_by"] == "rule" and suggestion["evidence"]["quote"] == JULY
        assert marks(launch)[july]["watched_at"]
        # Watched now: the next sweep has nothing to do.
        assert sweep(at=LATER + timedelta(minutes=1)).claims == 0


class SweepTests:
    def test_a_claim_watched_when_it_was_added_is_marked_and_never_swept(self, launch: Launch, committed: Any) -> None:
        with committed(execute=True):
            july = launch.claim(launch.email, JULY)
        assert marks(launch)[july]["watched_at"]
        [suggestion] = launch.suggestions()
        # June and the budget were added without their on-commit watch (the fixture): the sweep takes those two only.
        report = sweep()
        assert (report.claims, report.suggestions) == (2, 0)
        assert all(claim["watched_at"] for claim in marks(launch).values())
        assert sweep().claims == 0
        assert launch.suggestions() == [suggestion]

    def test_the_newest_first_a_batch_at_a_time_and_nothing_older_than_a_day(self, launch: Launch) -> None:
        july = launch.claim(launch.email, JULY)  # on-commit not run: its watch was lost
        claims = marks(launch)
        assert not [claim for claim in claims.values() if claim["watched_at"]]
        # A day and more after they became current, they are left alone (docs/suggestions.md says why).
        assert sweep(at=watch_services.SWEEP_WINDOW + LATER).claims == 0
        assert sweep(limit=1).claims == 1
        [watched] = [claim for claim in marks(launch).values() if claim["watched_at"]]
        assert watched["current_since_ms"] == max(claim["current_since_ms"] for claim in claims.values())
        assert sweep(limit=1).claims == 1 and sweep(limit=1).claims == 1 and sweep(limit=1).claims == 0
        # Whichever the order, July and June made one suggestion.
        [suggestion] = launch.suggestions()
        assert {suggestion["claim_id"], suggestion["by_claim_id"]} == {launch.june, july}

    def test_every_way_a_claim_becomes_current_notes_when_and_a_proposed_claim_waits(
        self, launch: Launch, committed: Any
    ) -> None:
        derived = claims_services.derived_claim_add(
            workspace=launch.trio.workspace, statement="The launch has a budget.", derived_from=[launch.budget],
            actor=launch.trio.reviewer,
        ).id  # fmt: skip
        extracted = extract(launch.trio, launch.email, committed)["claims"]
        [july] = [claim["id"] for claim in extracted if EMAIL[claim["start"] : claim["end"]] == JULY]
        fixed = launch.correct(launch.june, "The launch is in August.", committed)["replacement_claim_id"]
        need_approval(launch)
        update = sources_services.source_add(
            workspace=launch.trio.workspace, title="Budget update", text=BUDGET, actor=launch.trio.reviewer
        )
        proposed = agent_claim(launch, BUDGET.strip(), update.id)
        claims = marks(launch)
        # The extraction ran in the worker (eager here): it marked what it watched.
        assert all(claims[claim["id"]]["watched_at"] for claim in extracted)
        assert claims[proposed]["status"] == "proposed" and claims[proposed]["current_since_ms"] is None
        for claim_id in (launch.budget, derived, july, fixed):
            assert claims[claim_id]["status"] == "current" and claims[claim_id]["current_since_ms"], claim_id
        assert claims[fixed]["current_since_ms"] >= claims[july]["current_since_ms"]
        [waiting] = agent_suggestions(launch)
        assert approve(launch, waiting["id"]).status_code == 200  # its on-commit watch not run: lost
        approved = marks(launch)[proposed]
        assert approved["status"] == "current" and approved["current_since_ms"] and approved["watched_at"] is None
        sweep()
        assert marks(launch)[proposed]["watched_at"]
        # The approved 50k says otherwise than the current 40k: found by the sweep.
        assert [s for s in launch.suggestions() if s["by_claim_id"] == proposed and s["claim_id"] == launch.budget]

    def test_the_window_is_read_through_the_index_on_a_number(self, launch: Launch) -> None:
        """FalkorDB 4.22 drops a `<` bound on a string parameter in a range index (FalkorDB #2239): the window is
        read on a number, whose range index answers it rightly, and the plan uses that index."""
        assert ("Claim", "current_since_ms", "RANGE") in index_kinds(workspace=launch.trio.workspace)
        params = {"since_ms": 0, "before_ms": 2**53, "limit": 10}
        plan = str(graph.client().select_graph(launch.trio.workspace.graph_name).explain(CLAIMS_UNWATCHED, params))
        assert "Node By Index Scan | (c:Claim)" in plan and "Label Scan" not in plan, plan
        # Both bounds hold: only the claims inside the window, a millisecond either side.
        claims = marks(launch)
        newest = max(claim["current_since_ms"] for claim in claims.values())
        inside = graph.ro_query(launch.trio.workspace, CLAIMS_UNWATCHED, {**params, "before_ms": newest})
        assert {row[0] for row in inside} == {i for i, c in claims.items() if c["current_since_ms"] < newest}
        after = graph.ro_query(launch.trio.workspace, CLAIMS_UNWATCHED, {**params, "since_ms": newest + 1})
        assert after == []
