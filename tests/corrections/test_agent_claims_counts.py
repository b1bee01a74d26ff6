"""Agents' claims waiting for approval are counted, on real stores: the dashboard's "claims await approval" (linking
to the review queue's section of proposed claims), now and as of a moment, shown where the workspace asks for
approval or while claims wait; the Review link's badge counts them with the suggested corrections."""

from __future__ import annotations

import re
from typing import Any

import pytest

from afterhack.clock import now_iso
from claims.services import sources as sources_services
from tests.conftest import api_for, client_for
from tests.corrections.test_agent_claims import agent_claim, agent_suggestions, approve, need_approval
from tests.corrections.test_suggestions_pages import get, open_then, text
from tests.corrections.test_suggestions_watch import JULY, Launch, committed, launch

pytestmark = pytest.mark.django_db

__all__ = ["committed", "launch"]  # fixtures

TILE = re.compile(r'<li( class="attn")?><a href="([^"]+)"><strong>(\d+)</strong> claims? awaits? approval</a></li>')


def tile(launch: Launch) -> tuple[int, str, bool] | None:
    """The dashboard's count of claims awaiting approval: the number, its link, whether it is marked; None if absent."""
    found = TILE.search(get(launch, ""))
    return (int(found.group(3)), found.group(2), bool(found.group(1))) if found else None


def badge(launch: Launch) -> str:
    """The Review link's badge, as a screen reader reads it."""
    found = re.search(r'aria-label="Review, ([^"]+)"', get(launch, "claims/"))
    return found.group(1) if found else ""


class CountTests:
    def test_the_dashboard_and_the_menu_count_claims_awaiting_approval_now_and_then(
        self, launch: Launch, committed: Any
    ) -> None:
        assert tile(launch) is None and badge(launch) == ""  # the workspace does not ask for approval
        need_approval(launch)
        assert tile(launch) == (0, f"/w/{launch.ws}/review/#proposed", False)
        before = now_iso()
        agent_claim(launch)
        agent_claim(launch, "the date moved")
        proposed = now_iso()
        assert tile(launch) == (2, f"/w/{launch.ws}/review/#proposed", True)
        assert badge(launch) == "2 need attention"
        memo = sources_services.source_add(
            workspace=launch.trio.workspace, title="Memo", text="The launch budget is 50k.", actor=launch.trio.reviewer
        )
        with committed(execute=True):
            launch.claim(memo.id, "The launch budget is 50k.")  # contradicts the plan's 40k: one suggestion
        assert "1 suggested correction" in text(get(launch, ""))
        assert badge(launch) == "3 need attention"
        first = next(s for s in agent_suggestions(launch) if s["statement"] == JULY)
        with committed(execute=True):
            assert approve(launch, first["id"]).status_code == 200
        # Approved, July's claim is watched: it contradicts June's, a second suggested correction.
        assert tile(launch) == (1, f"/w/{launch.ws}/review/#proposed", True) and badge(launch) == "3 need attention"
        assert "2 suggested corrections" in text(get(launch, ""))
        assert [open_then(launch, moment, "awaiting_approval") for moment in (before, proposed, now_iso())] == [0, 2, 1]
        then = text(client_for(launch.trio.reviewer).get(f"/w/{launch.ws}/", {"as_of": proposed}).content.decode())
        assert "2 claims awaiting approval then" in then and "1 suggested correction open then" not in then

    def test_with_approval_turned_off_the_count_stays_while_claims_wait(self, launch: Launch) -> None:
        need_approval(launch)
        agent_claim(launch)
        need_approval(launch, on=False)
        assert tile(launch) == (1, f"/w/{launch.ws}/review/#proposed", True) and badge(launch) == "1 needs attention"
        [waiting] = agent_suggestions(launch)
        rejected = api_for(launch.trio.reviewer).post(f"/workspaces/{launch.ws}/suggestions/{waiting['id']}/reject", {})
        assert rejected.status_code == 200, rejected.content
        assert tile(launch) is None and badge(launch) == ""
