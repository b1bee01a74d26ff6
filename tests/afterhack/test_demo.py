"""The demo workspace: loaded once, with highlighted evidence ready to look at."""

from __future__ import annotations

import pytest

from claims.graph import sources as sources_graph
from config.demo import DEMO_NAME, demo_load
from tests.conftest import MakeUser, client_for
from workspaces.models import Workspace

pytestmark = pytest.mark.django_db


class DemoTests:
    def test_it_loads_once_with_sources_claims_and_a_derived_claim(self, make_user: MakeUser) -> None:
        admin = make_user("admin", is_superuser=True)
        workspace = demo_load(owner=admin)
        assert workspace is not None and workspace.name == DEMO_NAME
        sources = sources_graph.source_list(workspace=workspace)
        assert sorted(s.claims for s in sources) == [1, 4]
        from agents.graph import actions as actions_graph
        from agents.graph import decisions as decisions_graph

        decisions = {d.title: d for d in decisions_graph.decision_list(workspace=workspace)}
        assert (
            len(decisions["Launch in June"].justifications) == 2 and decisions["Launch in June"].status == "supported"
        )
        # The announcement rests on the plan's June claim alone, and already went out.
        assert len(decisions["Announce the June launch"].justifications) == 1
        pending = {a.title for a in actions_graph.action_list(workspace=workspace, status="pending")}
        assert pending == {"Pay the ad agency deposit", "Confirm the launch date with Northwind"}
        done = actions_graph.action_list(workspace=workspace, status="done")
        assert [(a.title, a.follow_up) for a in done] == [("Send the launch announcement", None)]
        assert demo_load(owner=admin) is None
        assert Workspace.objects.filter(name=DEMO_NAME).count() == 1

    def test_its_source_page_shows_highlighted_evidence(self, make_user: MakeUser) -> None:
        admin = make_user("admin", is_superuser=True)
        workspace = demo_load(owner=admin)
        assert workspace is not None
        plan = next(s for s in sources_graph.source_list(workspace=workspace) if s.title.startswith("Launch plan"))
        page = client_for(admin).get(f"/w/{workspace.id}/sources/{plan.id}/").content.decode()
        assert page.count('<mark class="ev') >= 4 and ">The product launch is in June</mark>" in page

    def test_a_deleted_demo_is_not_loaded_again(self, make_user: MakeUser) -> None:
        admin = make_user("admin", is_superuser=True)
        workspace = demo_load(owner=admin)
        assert workspace is not None
        workspace.memberships.all().delete()
        assert demo_load(owner=admin) is None
