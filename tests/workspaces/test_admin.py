"""Django admin: workspaces get their graph, member changes go through the same rules and audit, tokens shown once."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model

from afterhack import graph
from tests.conftest import ApiClient, MakeUser, Trio, client_for
from workspaces.models import ApiToken, AuditEvent, Membership, Workspace

pytestmark = pytest.mark.django_db


def inline_form(rows: list[dict[str, str]], initial: int = 0, **extra: str) -> dict[str, str]:
    form = {"memberships-TOTAL_FORMS": str(len(rows)), "memberships-INITIAL_FORMS": str(initial), **extra}
    for index, row in enumerate(rows):
        form.update({f"memberships-{index}-{key}": value for key, value in row.items()})
    return form


class AdminWorkspaceTests:
    def test_it_creates_a_workspace_with_its_graph_and_audited_members(self, make_user: MakeUser) -> None:
        root = make_user("root", is_staff=True, is_superuser=True)
        ada, bo = make_user("ada"), make_user("bo")
        form = inline_form(
            [{"user": str(ada.pk), "role": "admin"}, {"user": str(bo.pk), "role": "reviewer"}], name="Admin made"
        )
        response = client_for(root).post("/admin/workspaces/workspace/add/", form)
        assert response.status_code == 302, response.content.decode()[:2000]
        workspace = Workspace.objects.get(name="Admin made")
        assert workspace.graph_name in graph.list_graph_names()
        assert dict(workspace.memberships.values_list("user__username", "role")) == {"ada": "admin", "bo": "reviewer"}
        verbs = sorted(AuditEvent.objects.filter(workspace=workspace).values_list("verb", flat=True))
        assert verbs == ["member.added", "member.added", "workspace.created"]

    def test_it_refuses_a_workspace_without_an_admin_and_writes_nothing(self, make_user: MakeUser) -> None:
        root = make_user("root", is_staff=True, is_superuser=True)
        ada = make_user("ada")
        graphs = set(graph.list_graph_names())
        response = client_for(root).post(
            "/admin/workspaces/workspace/add/", inline_form([{"user": str(ada.pk), "role": "viewer"}], name="No admin")
        )
        assert response.status_code == 200 and "needs at least one admin" in response.content.decode()
        assert not Workspace.objects.filter(name="No admin").exists()
        assert set(graph.list_graph_names()) == graphs

    def test_it_keeps_the_last_admin_when_editing_members_inline(self, trio: Trio, make_user: MakeUser) -> None:
        root = make_user("root", is_staff=True, is_superuser=True)
        rows = [
            {
                "id": str(m.pk),
                "user": str(m.user_id),
                "role": "viewer" if m.role == "admin" else m.role,
                "workspace": str(trio.workspace.id),
            }
            for m in Membership.objects.filter(workspace=trio.workspace).order_by("pk")
        ]
        form = inline_form(rows, initial=len(rows), name=trio.workspace.name)
        response = client_for(root).post(f"/admin/workspaces/workspace/{trio.workspace.id}/change/", form)
        assert response.status_code == 200 and "needs at least one admin" in response.content.decode()
        assert Membership.objects.get(user=trio.owner).role == "admin"

    def test_it_audits_a_role_change_made_inline(self, trio: Trio, make_user: MakeUser) -> None:
        root = make_user("root", is_staff=True, is_superuser=True)
        rows = [
            {
                "id": str(m.pk),
                "user": str(m.user_id),
                "role": "reviewer" if m.user == trio.viewer else m.role,
                "workspace": str(trio.workspace.id),
            }
            for m in Membership.objects.filter(workspace=trio.workspace).order_by("pk")
        ]
        response = client_for(root).post(
            f"/admin/workspaces/workspace/{trio.workspace.id}/change/",
            inline_form(rows, initial=len(rows), name=trio.workspace.name),
        )
        assert response.status_code == 302
        event = AuditEvent.objects.get(verb="member.role_changed")
        assert (
            event.target == "victor" and event.payload == {"from": "viewer", "to": "reviewer"} and event.actor == root
        )
        assert not AuditEvent.objects.filter(verb="workspace.changed").exists()

    def test_it_lists_every_model_page(self, trio: Trio, make_user: MakeUser) -> None:
        client = client_for(make_user("root", is_staff=True, is_superuser=True))
        for model in ("workspace", "membership", "auditevent", "apitoken"):
            assert client.get(f"/admin/workspaces/{model}/").status_code == 200
        assert client.get(f"/admin/workspaces/workspace/{trio.workspace.id}/change/").status_code == 200

    @pytest.mark.parametrize("selected", ["abc", "9" * 5000])
    def test_a_list_action_on_rows_that_are_not_ids_changes_nothing_and_says_so(
        self, trio: Trio, make_user: MakeUser, selected: str
    ) -> None:
        client = client_for(make_user("root", is_staff=True, is_superuser=True))
        before = sorted(Membership.objects.values_list("pk", "role"))
        for listing in ("/admin/workspaces/membership/", "/admin/auth/user/"):
            form = {"action": "delete_selected", "_selected_action": [selected, str(trio.viewer.pk)], "post": "yes"}
            response = client.post(listing, form, follow=True)
            assert response.status_code == 200
            assert "Some ticked rows are not rows of this list; nothing was changed." in response.content.decode()
        assert sorted(Membership.objects.values_list("pk", "role")) == before
        assert get_user_model().objects.filter(pk=trio.viewer.pk).exists()

    @pytest.mark.parametrize("value", ["abc", "1.5", "9" * 5000])
    def test_an_autocomplete_field_given_something_that_is_not_an_id_is_refused_in_words(
        self, trio: Trio, make_user: MakeUser, value: str
    ) -> None:
        client = client_for(make_user("root", is_staff=True, is_superuser=True))
        assert client.get(f"/admin/workspaces/membership/add/?user={value}").status_code == 200
        form = {"user": value, "workspace": str(trio.workspace.id), "role": "viewer"}
        response = client.post("/admin/workspaces/membership/add/", form)
        assert response.status_code == 200 and "Select a valid choice" in response.content.decode()
        assert not Membership.objects.filter(user=trio.outsider).exists()

    def test_a_date_drill_down_past_any_calendar_shows_the_list_unfiltered(self, make_user: MakeUser) -> None:
        client = client_for(make_user("root", is_staff=True, is_superuser=True))
        for query in (
            f"created_at__year={2**63}",
            f"created_at__year=2026&created_at__month=1&created_at__day={2**64}",
        ):
            response = client.get(f"/admin/workspaces/auditevent/?{query}", follow=True)
            assert response.status_code == 200 and response.redirect_chain[-1][0].endswith("?e=1")


class AdminTokenTests:
    def test_it_shows_a_new_token_once_and_stores_its_hash(self, make_user: MakeUser) -> None:
        root = make_user("root", is_staff=True, is_superuser=True)
        agent = make_user("agent")
        client = client_for(root)
        response = client.post("/admin/workspaces/apitoken/add/", {"user": agent.pk, "name": "nightly"})
        assert response.status_code == 200 and "no-store" in response["Cache-Control"]
        raw = re.search(r'<code id="new-token"[^>]*>(ah_[A-Za-z0-9]+)</code>', response.content.decode())
        assert raw is not None
        token = ApiToken.objects.get(name="nightly")
        assert token.user == agent and raw.group(1) not in token.key_hash
        assert ApiClient(raw.group(1)).get("/workspaces").status_code == 200
        assert AuditEvent.objects.get(verb="token.issued").actor == root
        assert raw.group(1) not in str(dict(client.session))
        for page in ("/admin/workspaces/apitoken/", f"/admin/workspaces/apitoken/{token.pk}/change/"):
            assert raw.group(1) not in client.get(page).content.decode()

    def test_it_never_moves_a_token_to_someone_else_nor_revokes_it_by_editing(self, make_user: MakeUser) -> None:
        from workspaces.services import tokens as token_services

        root = make_user("root", is_staff=True, is_superuser=True)
        agent, thief = make_user("agent"), make_user("thief")
        token, raw = token_services.token_issue(user=agent)
        form = {"user": thief.pk, "name": "renamed", "revoked_at_0": "2026-01-01", "revoked_at_1": "00:00:00"}
        response = client_for(root).post(f"/admin/workspaces/apitoken/{token.pk}/change/", form)
        assert response.status_code == 302
        token.refresh_from_db()
        assert token.user == agent and token.name == "renamed" and token.revoked_at is None
        assert ApiClient(raw).get("/workspaces").status_code == 200
