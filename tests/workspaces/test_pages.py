"""The workspace pages: list, create, dashboard, and members management over HTMX."""

from __future__ import annotations

import html
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from afterhack import graph
from afterhack.clock import now_iso
from agents.coordinator import NO_ANSWER_TITLE
from tests.conftest import MakeUser, Trio, client_for
from workspaces.models import AuditEvent, Membership, Workspace

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


class WorkspaceListTests:
    def test_it_lists_my_workspaces_with_my_role_and_not_others(self, trio: Trio, make_user: MakeUser) -> None:
        from workspaces.services import workspaces as workspace_services

        stranger = make_user("sam", is_superuser=True)
        workspace_services.workspace_create(name="Secret project", creator=stranger)
        page = client_for(trio.viewer).get("/w/").content.decode()
        assert "Launch planning" in page and "Viewer" in page
        assert "Secret project" not in page

    def test_it_creates_a_workspace_from_the_page(self, make_user: MakeUser) -> None:
        user = make_user("ada", is_superuser=True)
        response = client_for(user).post("/w/new", {"name": "Research"})
        workspace = Workspace.objects.get(name="Research")
        assert response.status_code == 302 and response["Location"] == f"/w/{workspace.id}/"
        assert workspace.graph_name in graph.list_graph_names()

    def test_it_explains_a_bad_name_in_the_page_and_creates_nothing(self, make_user: MakeUser) -> None:
        user = make_user("ada", is_superuser=True)
        response = client_for(user).post("/w/new", {"name": "x" * 201})
        assert response.status_code == 422
        assert "at most 200 characters" in response.content.decode()
        assert not Workspace.objects.exists()

    def test_it_forbids_creating_without_permission(self, make_user: MakeUser) -> None:
        response = client_for(make_user("ada")).post("/w/new", {"name": "Research"})
        assert response.status_code == 403
        assert not Workspace.objects.exists()


class DashboardTests:
    def test_it_shows_counts_from_the_graph_and_recent_activity(self, trio: Trio) -> None:
        graph.query(trio.workspace, "CREATE (:Source {id: 's1'}), (:Claim {id: 'c1'}), (:Claim {id: 'c2'})")
        page = client_for(trio.viewer).get(f"/w/{trio.workspace.id}/").content.decode()
        assert "<strong>1</strong> source</a>" in page
        assert "<strong>2</strong> claims</a>" in page
        assert "<strong>3</strong> members" in page
        assert "added victor as viewer" in page and "added rita as reviewer" in page
        assert "revision" not in page.lower()

    def test_it_counts_what_needs_attention_each_a_link_to_the_list_of_exactly_those(self, trio: Trio) -> None:
        now, long_ago = now_iso(), "2020-01-01T00:00:00+00:00"
        graph.query(
            trio.workspace,
            "CREATE (:Decision {id: 'd1', status: 'needs_review', kind: 'manual'}),"
            " (:Decision {id: 'd2', status: 'needs_review', kind: 'agent'}),"
            " (:Decision {id: 'd3', status: 'needs_review', kind: 'manual', dismissed_at: $now}),"
            " (:Decision {id: 'd4', status: 'needs_review', kind: 'unanswered'}),"
            " (:Decision {id: 'd5', status: 'supported', kind: 'manual'}),"
            " (:Action {id: 'a1', status: 'held'}), (:Action {id: 'a2', status: 'pending'}),"
            " (:Correction {id: 'x1', applied_at: $now}), (:Correction {id: 'x2', applied_at: $long_ago}),"
            # One source whose newest extraction failed (an older one was done), one running, one stalled.
            " (:Source {id: 's1'})-[:HAS_VERSION]->(v1:SourceVersion {current: true}),"
            " (v1)<-[:OF]-(:Extraction {status: 'done', started_at: '1', updated_at: $now}),"
            " (v1)<-[:OF]-(:Extraction {status: 'failed', started_at: '2', updated_at: $now}),"
            " (:Source {id: 's2'})-[:HAS_VERSION]->(:SourceVersion {current: true})"
            "<-[:OF]-(:Extraction {status: 'running', started_at: '1', updated_at: $now}),"
            " (:Source {id: 's3'})-[:HAS_VERSION]->(:SourceVersion {current: true})"
            "<-[:OF]-(:Extraction {status: 'queued', started_at: '1', updated_at: $long_ago})",
            {"now": now, "long_ago": long_ago},
        )
        ws = trio.workspace.id
        page = client_for(trio.viewer).get(f"/w/{ws}/").content.decode()
        since = (datetime.now(UTC).date() - timedelta(days=6)).isoformat()
        expected = [
            (f"/w/{ws}/review/#lost-support", "<strong>2</strong> decisions that lost support"),
            (f"/w/{ws}/review/#unanswered", "<strong>1</strong> unanswered question<"),
            (f"/w/{ws}/actions/?status=held", "<strong>1</strong> held action<"),
            (f"/w/{ws}/sources/?extraction=failed", "<strong>2</strong> failed extractions"),
            (f"/w/{ws}/sources/?extraction=running", "<strong>1</strong> extraction running"),
            (f"/w/{ws}/corrections/?since={since}", "<strong>1</strong> correction in the last 7 days"),
            (f"/w/{ws}/decisions/", "<strong>5</strong> decisions<"),
            (f"/w/{ws}/actions/", "<strong>2</strong> actions<"),
            (f"/w/{ws}/corrections/", "<strong>2</strong> corrections<"),
        ]
        for href, words in expected:
            assert f'<a href="{href}">{words}' in page
        # The menu's badges, in words a screen reader reads: three decisions wait on the Review page, one action is held.
        assert 'aria-label="Review, 3 need attention">Review<span class="navbadge" aria-hidden="true">3</span>' in page
        assert 'aria-label="Actions, 1 held">Actions<span class="navbadge" aria-hidden="true">1</span>' in page

    def test_it_counts_decisions_written_before_kinds_were_stored_as_the_review_page_does(self, trio: Trio) -> None:
        graph.query(
            trio.workspace,
            # An agent's decision with nothing supporting it and the no-answer title (the one its run gave every
            # unanswered question) is its unanswered question (agents/graph/decisions.py DECISION_KIND); any other lost support.
            "CREATE (:Decision {id: 'd1', status: 'needs_review', origin: 'agent', title: $no_answer}),"
            " (:Decision {id: 'd2', status: 'needs_review', origin: 'reviewer'}),"
            " (:Claim {id: 'c1'})-[:SUPPORTS]->(:Decision {id: 'd3', status: 'needs_review', origin: 'agent'})",
            {"no_answer": NO_ANSWER_TITLE},
        )
        page = client_for(trio.viewer).get(f"/w/{trio.workspace.id}/").content.decode()
        assert "<strong>2</strong> decisions that lost support" in page
        assert "<strong>1</strong> unanswered question<" in page

    def test_the_dashboard_and_its_menu_badges_cost_one_graph_query(self, trio: Trio) -> None:
        client = client_for(trio.viewer)
        before = graph.queries_sent()
        assert client.get(f"/w/{trio.workspace.id}/").status_code == 200
        assert graph.queries_sent() - before == 1

    def test_it_says_when_the_counts_are_unknown_because_the_graph_is_gone(self, trio: Trio) -> None:
        graph.graph_delete(trio.workspace)
        page = client_for(trio.viewer).get(f"/w/{trio.workspace.id}/").content.decode()
        assert "<strong>0</strong> decisions" in page and "<strong>3</strong> members" in page


class WorkspaceMenuTests:
    @pytest.mark.parametrize("tail", ["", "sources/", "sources/new", "claims/", "decisions/", "actions/", "review/",
                                      "corrections/", "ask/", "members/"])  # fmt: skip
    def test_it_shows_members_to_an_admin_on_every_page(self, trio: Trio, tail: str) -> None:
        page = client_for(trio.owner).get(f"/w/{trio.workspace.id}/{tail}").content.decode()
        assert f'href="/w/{trio.workspace.id}/members/"' in page.split('<nav class="wsnav"')[1].split("</nav>")[0]

    def test_it_hides_members_from_a_reviewer_and_shows_no_badge_without_anything_to_do(self, trio: Trio) -> None:
        page = client_for(trio.reviewer).get(f"/w/{trio.workspace.id}/sources/new").content.decode()
        menu = page.split('<nav class="wsnav"')[1].split("</nav>")[0]
        assert "/members/" not in menu and "navbadge" not in menu


class MembersPageTests:
    def url(self, trio: Trio, tail: str = "") -> str:
        return f"/w/{trio.workspace.id}/members/{tail}"

    def test_it_adds_a_member_over_htmx_returning_only_the_section(self, trio: Trio) -> None:
        response = client_for(trio.owner).post(
            self.url(trio, "add"), {"username": "oscar", "role": "viewer"}, headers=HTMX
        )
        body = response.content.decode()
        assert response.status_code == 200
        assert body.lstrip().startswith('<section id="member-section">') and "<html" not in body
        assert "oscar" in body and "oscar added as viewer" in body
        assert Membership.objects.get(user=trio.outsider).role == "viewer"
        assert AuditEvent.objects.filter(verb="member.added", target="oscar").count() == 1

    def test_it_adds_a_member_without_javascript_too(self, trio: Trio) -> None:
        response = client_for(trio.owner).post(self.url(trio, "add"), {"username": "oscar", "role": "reviewer"})
        assert response.status_code == 302
        assert Membership.objects.get(user=trio.outsider).role == "reviewer"

    @pytest.mark.parametrize(
        ("form", "words"),
        [
            ({"username": "nobody", "role": "viewer"}, "There is no user called"),
            ({"username": "oscar", "role": "owner"}, "Select a valid choice"),
            ({"username": "", "role": "viewer"}, "This field is required"),
        ],
    )
    def test_it_explains_bad_input_in_the_fragment_and_writes_nothing(
        self, trio: Trio, form: dict[str, str], words: str
    ) -> None:
        events = AuditEvent.objects.count()
        response = client_for(trio.owner).post(self.url(trio, "add"), form, headers=HTMX)
        assert response.status_code == 422
        assert words in response.content.decode()
        assert not Membership.objects.filter(user=trio.outsider).exists()
        assert AuditEvent.objects.count() == events

    def test_it_changes_a_role_and_audits_it(self, trio: Trio) -> None:
        membership = Membership.objects.get(user=trio.viewer)
        response = client_for(trio.owner).post(
            self.url(trio, f"{membership.pk}/role"), {"role": "reviewer"}, headers=HTMX
        )
        assert response.status_code == 200 and "victor is now reviewer" in response.content.decode()
        membership.refresh_from_db()
        assert membership.role == "reviewer"
        event = AuditEvent.objects.get(verb="member.role_changed")
        assert event.payload == {"from": "viewer", "to": "reviewer"} and event.actor == trio.owner

    def test_it_removes_a_member_after_asking_and_audits_it(self, trio: Trio) -> None:
        membership = Membership.objects.get(user=trio.reviewer)
        asked = client_for(trio.owner).post(self.url(trio, f"{membership.pk}/remove"), headers=HTMX)
        question = asked.content.decode()
        assert question.lstrip().startswith(f'<tr id="member-{membership.pk}" class="confirm-row">')
        assert "Remove rita from Launch planning?" in question and Membership.objects.filter(pk=membership.pk).exists()
        response = client_for(trio.owner).post(
            self.url(trio, f"{membership.pk}/remove"), {"confirmed": "yes"}, headers=HTMX
        )
        assert response.status_code == 200 and response["HX-Retarget"] == "#member-section"
        assert not Membership.objects.filter(pk=membership.pk).exists()
        assert AuditEvent.objects.filter(verb="member.removed", target="rita").exists()
        assert client_for(trio.reviewer).get(f"/w/{trio.workspace.id}/").status_code == 404

    def test_it_keeps_the_last_admin(self, trio: Trio) -> None:
        membership = Membership.objects.get(user=trio.owner)
        client = client_for(trio.owner)
        demoted = client.post(self.url(trio, f"{membership.pk}/role"), {"role": "viewer"}, headers=HTMX)
        removed = client.post(self.url(trio, f"{membership.pk}/remove"), headers=HTMX)
        assert demoted.status_code == removed.status_code == 422
        assert "at least one admin" in removed.content.decode()
        for confirmed in (
            client.post(self.url(trio, f"{membership.pk}/role"), {"role": "viewer", "confirmed": "yes"}, headers=HTMX),
            client.post(self.url(trio, f"{membership.pk}/remove"), {"confirmed": "yes"}, headers=HTMX),
        ):
            assert confirmed.status_code == 422 and "at least one admin" in confirmed.content.decode()
        membership.refresh_from_db()
        assert membership.role == "admin"

    def test_a_role_changes_with_its_button_and_to_or_from_admin_only_after_a_confirmation(self, trio: Trio) -> None:
        page = client_for(trio.owner).get(self.url(trio)).content.decode()
        assert 'hx-trigger="change"' not in page and page.count(">Change role</button>") == 3
        victor = Membership.objects.get(user=trio.viewer)
        asked = client_for(trio.owner).post(self.url(trio, f"{victor.pk}/role"), {"role": "admin"}, headers=HTMX)
        question = asked.content.decode()
        assert asked.status_code == 200 and "Make victor an admin of Launch planning?" in question
        assert (
            "Admins also manage members" in question and '<input type="hidden" name="role" value="admin">' in question
        )
        victor.refresh_from_db()
        assert victor.role == "viewer" and not AuditEvent.objects.filter(verb="member.role_changed").exists()
        done = client_for(trio.owner).post(
            self.url(trio, f"{victor.pk}/role"), {"role": "admin", "confirmed": "yes"}, headers=HTMX
        )
        assert done.status_code == 200 and "victor is now admin" in done.content.decode()
        victor.refresh_from_db()
        assert victor.role == "admin"
        back = client_for(trio.owner).post(self.url(trio, f"{victor.pk}/role"), {"role": "reviewer"}, headers=HTMX)
        assert "Make victor a reviewer instead of an admin?" in back.content.decode()
        victor.refresh_from_db()
        assert victor.role == "admin"

    def test_without_javascript_the_question_is_a_page(self, trio: Trio) -> None:
        victor = Membership.objects.get(user=trio.viewer)
        asked = client_for(trio.owner).post(self.url(trio, f"{victor.pk}/role"), {"role": "admin"})
        assert (
            asked.status_code == 200
            and "<html" in asked.content.decode()
            and "Make victor admin" in asked.content.decode()
        )
        done = client_for(trio.owner).post(self.url(trio, f"{victor.pk}/role"), {"role": "admin", "confirmed": "yes"})
        assert done.status_code == 302 and done["Location"] == self.url(trio)

    def test_an_admin_who_gives_up_the_role_is_taken_to_the_dashboard(self, trio: Trio) -> None:
        Membership.objects.filter(user=trio.viewer).update(role="admin")
        own = Membership.objects.get(user=trio.owner)
        asked = client_for(trio.owner).post(self.url(trio, f"{own.pk}/role"), {"role": "reviewer"}, headers=HTMX)
        assert "Give up being an admin of Launch planning?" in asked.content.decode()
        done = client_for(trio.owner).post(
            self.url(trio, f"{own.pk}/role"), {"role": "reviewer", "confirmed": "yes"}, headers=HTMX
        )
        assert done["HX-Redirect"] == f"/w/{trio.workspace.id}/"

    def test_the_page_explains_roles_and_where_accounts_come_from(
        self, trio: Trio, make_user: MakeUser, settings: Any
    ) -> None:
        page = client_for(trio.owner).get(self.url(trio)).content.decode()
        assert "reads everything in the workspace" in page and "also manages members" in page
        assert "an administrator creates in the Django admin" in page and "/admin/auth/user/" not in page
        unknown = client_for(trio.owner).post(self.url(trio, "add"), {"username": "Nobody", "role": "viewer"}).content
        assert "There is no user called 'Nobody'. Their account does not exist yet" in html.unescape(unknown.decode())
        staff = make_user("sam", is_staff=True)
        Membership.objects.create(workspace=trio.workspace, user=staff, role="admin")
        assert (
            'href="/admin/auth/user/add/">create an account</a>'
            in client_for(staff).get(self.url(trio)).content.decode()
        )
        settings.REMOTE_USER_HEADER = "X-Forwarded-User"
        portal = client_for(trio.owner).post(self.url(trio, "add"), {"username": "nobody", "role": "viewer"}).content
        assert "sign in through the company portal" in portal.decode()
        assert "They have not signed in through the company portal yet" in portal.decode()

    def test_it_refuses_a_membership_of_another_workspace(self, trio: Trio, make_user: MakeUser) -> None:
        from workspaces.services import workspaces as workspace_services

        other = workspace_services.workspace_create(name="Other", creator=trio.outsider)
        foreign = Membership.objects.get(workspace=other)
        response = client_for(trio.owner).post(self.url(trio, f"{foreign.pk}/remove"), headers=HTMX)
        assert response.status_code == 422
        assert Membership.objects.filter(pk=foreign.pk).exists()

    def test_it_forbids_role_changes_by_viewers(self, trio: Trio) -> None:
        membership = Membership.objects.get(user=trio.owner)
        response = client_for(trio.viewer).post(
            self.url(trio, f"{membership.pk}/role"), {"role": "viewer"}, headers=HTMX
        )
        assert response.status_code == 403
        membership.refresh_from_db()
        assert membership.role == "admin"


class LoginTests:
    def test_it_logs_in_with_a_password_and_explains_a_wrong_one(self, make_user: MakeUser) -> None:
        from django.test import Client

        from tests.conftest import PASSWORD

        make_user("ada")
        client = Client()
        wrong = client.post("/accounts/login/", {"username": "ada", "password": "nope"})
        assert wrong.status_code == 200 and "Wrong username or password" in wrong.content.decode()
        right = client.post("/accounts/login/", {"username": "ada", "password": PASSWORD})
        assert right.status_code == 302 and right["Location"] == "/w/"
        assert client.post("/accounts/logout/").status_code == 302
        assert client.get("/w/").status_code == 302
