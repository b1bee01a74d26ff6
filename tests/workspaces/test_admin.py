"""Django admin: workspaces get their graph, member changes are audited, tokens are shown once."""

from __future__ import annotations

import re

import pytest

from afterhack import graph
from tests.conftest import ApiClient, MakeUser, Trio, client_for
from workspaces.models import ApiToken, AuditEvent, Workspace

pytestmark = pytest.mark.django_db


class AdminTests:
    def test_it_creates_a_workspace_with_its_graph_from_the_admin(self, make_user: MakeUser) -> None:
        admin = make_user("root", is_staff=True, is_superuser=True)
        member = make_user("ada")
        form = {
            "name": "Admin made",
            "memberships-TOTAL_FORMS": "1", "memberships-INITIAL_FORMS": "0",
            "memberships-0-user": str(member.pk), "memberships-0-role": "reviewer",
        }  # fmt: skip
        response = client_for(admin).post("/admin/workspaces/workspace/add/", form)
        assert response.status_code == 302, response.content.decode()[:2000]
        workspace = Workspace.objects.get(name="Admin made")
        assert workspace.graph_name in graph.list_graph_names()
        assert workspace.memberships.get().user == member
        verbs = set(AuditEvent.objects.filter(workspace=workspace).values_list("verb", flat=True))
        assert verbs == {"workspace.created", "member.added"}

    def test_it_lists_every_model_page(self, trio: Trio, make_user: MakeUser) -> None:
        client = client_for(make_user("root", is_staff=True, is_superuser=True))
        for model in ("workspace", "membership", "auditevent", "apitoken"):
            assert client.get(f"/admin/workspaces/{model}/").status_code == 200
        assert client.get(f"/admin/workspaces/workspace/{trio.workspace.id}/change/").status_code == 200

    def test_it_shows_a_new_token_once_and_stores_its_hash(self, make_user: MakeUser) -> None:
        admin = make_user("root", is_staff=True, is_superuser=True)
        agent = make_user("agent")
        client = client_for(admin)
        response = client.post("/admin/workspaces/apitoken/add/", {"user": agent.pk, "name": "nightly"}, follow=True)
        raw = re.search(r"The new token is (ah_[\w-]+)", response.content.decode())
        assert raw is not None
        token = ApiToken.objects.get(name="nightly")
        assert token.user == agent and raw.group(1) not in token.key_hash
        assert ApiClient(raw.group(1)).get("/workspaces").status_code == 200
