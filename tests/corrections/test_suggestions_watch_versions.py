"""A new version of a source is a way claims become current: the revise page offers to extract the new text at once
(checked, as adding a source does), and the claims extracted from it are watched as any extraction's. A claim whose
quote is still there moves to the new version and is not extracted again."""

from __future__ import annotations

from typing import Any

import pytest

from claims.selectors import search as claims_search
from claims.services import sources as sources_services
from tests.conftest import api_for, client_for
from tests.corrections.test_suggestions_watch import JULY, Launch, committed, launch, suggestions_stored

pytestmark = pytest.mark.django_db

__all__ = ["committed", "launch"]  # fixtures

STATUS = "Status page\n\nAna owns the checklist.\n"
STATUS_JULY = "Status page, updated\n\nAna owns the checklist. The launch is in July.\n"


def status_page(launch: Launch) -> str:
    """A third source, with one claim (Ana's), that will be edited in place to say July."""
    trio = launch.trio
    status = sources_services.source_add(workspace=trio.workspace, title="Status", text=STATUS, actor=trio.reviewer)
    launch.claim(status.id, "Ana owns the checklist.")
    return status.id


def statements(launch: Launch) -> list[str]:
    return sorted(hit.statement for hit in claims_search.newest_claims(workspace=launch.trio.workspace, limit=50))


def api_claim(launch: Launch, claim_id: str) -> dict[str, Any]:
    response = api_for(launch.trio.viewer).get(f"/workspaces/{launch.ws}/claims/{claim_id}")
    assert response.status_code == 200, response.content
    return dict(response.json())


class NewVersionWatchTests:
    def test_a_new_version_extracted_at_once_suggests_correcting_the_june_claim(
        self, launch: Launch, committed: Any
    ) -> None:
        status = status_page(launch)
        revise = f"/w/{launch.ws}/sources/{status}/revise"
        form = client_for(launch.trio.reviewer).get(revise).content.decode()
        assert '<input type="checkbox" name="extract" value="1" checked>' in form
        assert "Offline rule-based extractor" in form
        with committed(execute=True):
            response = client_for(launch.trio.reviewer).post(revise, {"text": STATUS_JULY, "extract": "1"}, follow=True)
        body = response.content.decode()
        assert "Version 2 added: 1 claim found again" in body and "Its claims are being extracted" in body
        [suggestion] = launch.suggestions()
        start = STATUS_JULY.index(JULY)
        assert suggestion["claim_id"] == launch.june and suggestion["statement"] == JULY
        assert suggestion["evidence"] == {"source_id": status, "quote": JULY, "start": start, "end": start + len(JULY)}
        july = api_claim(launch, suggestion["by_claim_id"])
        assert july["status"] == "current" and july["source_id"] == status and july["extractor"] == "rule_based"
        # Ana's claim moved to the new version; extraction did not add it a second time.
        assert statements(launch).count("Ana owns the checklist.") == 1

    def test_left_unchecked_the_new_version_is_only_revalidated(self, launch: Launch, committed: Any) -> None:
        status = status_page(launch)
        before = statements(launch)
        with committed(execute=True):
            response = client_for(launch.trio.reviewer).post(
                f"/w/{launch.ws}/sources/{status}/revise", {"text": STATUS_JULY}, follow=True
            )
        body = response.content.decode()
        assert "Version 2 added: 1 claim found again" in body and "being extracted" not in body
        assert statements(launch) == before and suggestions_stored(launch.trio) == 0
