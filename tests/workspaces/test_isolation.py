"""Two workspaces with identical data see nothing of each other's: pages, API and graph."""

from __future__ import annotations

import pytest

from afterhack import graph
from tests.conftest import MakeUser, api_for, client_for
from workspaces.services import workspaces as workspace_services

pytestmark = pytest.mark.django_db

SEED = "CREATE (:Source {id: 'same-id', title: $title})-[:HAS_VERSION]->(:SourceVersion {id: 'v1'})"


class IsolationTests:
    def test_it_keeps_identical_graph_data_apart(self, make_user: MakeUser) -> None:
        alice, bob = make_user("alice", is_superuser=True), make_user("bob", is_superuser=True)
        first = workspace_services.workspace_create(name="Same name", creator=alice)
        second = workspace_services.workspace_create(name="Same name", creator=bob)
        assert first.graph_name != second.graph_name
        graph.query(first, SEED, {"title": "first's"})
        graph.query(second, SEED, {"title": "second's"})
        for workspace, title in ((first, "first's"), (second, "second's")):
            rows = graph.ro_query(workspace, "MATCH (s:Source {id: 'same-id'}) RETURN s.title")
            assert rows == [[title]]
        graph.query(first, "MATCH (s:Source) DETACH DELETE s")
        assert graph.ro_query(second, "MATCH (s:Source) RETURN count(s)") == [[1]]

    def test_it_keeps_pages_and_api_apart(self, make_user: MakeUser) -> None:
        alice, bob = make_user("alice", is_superuser=True), make_user("bob", is_superuser=True)
        first = workspace_services.workspace_create(name="Same name", creator=alice)
        second = workspace_services.workspace_create(name="Same name", creator=bob)
        graph.query(first, SEED, {"title": "first's"})
        graph.query(second, SEED, {"title": "second's"})
        alice_page, bob_page = client_for(alice), client_for(bob)
        assert alice_page.get(f"/w/{second.id}/").status_code == 404
        assert bob_page.get(f"/w/{first.id}/members/").status_code == 404
        assert [w["id"] for w in api_for(alice).get("/workspaces").json()["results"]] == [str(first.id)]
        assert api_for(alice).get(f"/workspaces/{second.id}/members").status_code == 404
        assert "<strong>1</strong> source</a>" in alice_page.get(f"/w/{first.id}/").content.decode()
