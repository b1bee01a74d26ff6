"""The staff audit: every audited kind across workspaces, its filters, its CSV export, and a correction's
impact as it was when applied."""

from __future__ import annotations

import csv
import html
import io
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Permission

from agents.services import decisions as agents_services
from claims.services import sources as sources_services
from corrections import review
from corrections.services import preview as preview_services
from tests.conftest import MakeUser, client_for
from tests.corrections.conftest import World
from workspaces.models import AUDIT_EVERY_WORKSPACE, EVENT_KINDS, EVENT_WORDS, AuditEvent, Membership, Role
from workspaces.services import memberships as membership_services
from workspaces.services import tokens as token_services
from workspaces.services import workspaces as workspace_services

pytestmark = pytest.mark.django_db

TODAY = datetime.now(UTC).date()


def text(response: Any) -> str:
    """The page's text as a person reads it: entities decoded, runs of white space as one space."""
    return " ".join(html.unescape(response.content.decode()).split())


def flag_launch(world: World) -> tuple[str, str, dict[str, Any]]:
    """A decision on June with an action, then June corrected: the decision needs review, the action is held."""
    launch = world.decision("Launch in June", [world.june])
    announce = world.action("Send the launch announcement", launch)
    revision = world.preview(world.june).json()["revision"]
    applied = world.apply(world.june, revision, key="june").json()
    return launch, announce, applied


@pytest.fixture
def auditor(make_user: MakeUser) -> Any:
    """Staff without the permission to read every workspace, and no member: the content of events is withheld."""
    return make_user("audrey", is_staff=True, first_name="Audrey", last_name="Quill")


@pytest.fixture
def reader(make_user: MakeUser) -> Any:
    """A staff auditor given the permission to read every workspace: every event whole."""
    user = make_user("ada", is_staff=True, first_name="Ada", last_name="Byron")
    user.user_permissions.add(Permission.objects.get(codename=AUDIT_EVERY_WORKSPACE))
    return user


@pytest.fixture
def other_workspace(world: World) -> Any:
    """A second workspace, owned by the same admin, with a source of its own."""
    other = workspace_services.workspace_create(name="Hiring", creator=world.trio.owner)
    sources_services.source_add(workspace=other, title="Job ad", text="We hire two people.", actor=world.trio.owner)
    return other


class AuditKindsTests:
    def test_it_lists_every_kind_of_audited_event_across_workspaces(
        self, world: World, auditor: Any, other_workspace: Any
    ) -> None:
        launch, _, _ = flag_launch(world)
        review.decision_dismiss(workspace=world.trio.workspace, decision_id=launch, actor=world.trio.reviewer)
        viewer = Membership.objects.get(user=world.trio.viewer)
        membership_services.member_change_role(
            workspace=world.trio.workspace, membership_id=viewer.pk, role=Role.REVIEWER, actor=world.trio.owner
        )
        token_services.token_issue(user=world.trio.reviewer, name="script")
        page = text(client_for(auditor).get("/audit/"))
        for words in ("Correction", "Dismissal", "Role changed", "API token issued", "Source added", "Member added"):
            assert f'<td class="words">{words}</td>' in page, words
        assert "made victor reviewer (was viewer)" in page and "Launch planning" in page and "Hiring" in page
        assert "none (an account)" in page

    def test_every_verb_the_code_records_has_words(self) -> None:
        root = Path(__file__).resolve().parents[2]
        recorded = set()
        for folder in ("afterhack", "workspaces", "claims", "agents", "corrections", "mcp_server", "config"):
            for path in (root / folder).rglob("*.py"):
                recorded |= set(re.findall(r'verb="([a-z_]+\.[a-z_]+)"', path.read_text()))
                recorded |= set(
                    re.findall(r'"([a-z]+\.(?:done|cancelled|reopened|restored|revoked|loaded))"', path.read_text())
                )
        assert {"correction.applied", "token.restored", "action.done", "demo.loaded"} <= recorded
        assert recorded <= set(EVENT_KINDS), recorded - set(EVENT_KINDS)
        assert recorded <= set(EVENT_WORDS), recorded - set(EVENT_WORDS)


class AuditFilterTests:
    def test_it_filters_by_workspace(self, world: World, reader: Any, other_workspace: Any) -> None:
        page = text(client_for(reader).get(f"/audit/?workspace={other_workspace.id}"))
        assert "added the source “Job ad”" in page and "added the source “Launch plan”" not in page
        assert "events match workspace Hiring." in page and "Clear filters" in page

    def test_events_about_accounts_are_their_own_choice(self, world: World, reader: Any) -> None:
        token_services.token_issue(user=world.trio.reviewer, name="script")
        page = text(client_for(reader).get("/audit/?workspace=none"))
        assert "issued an API token" in page and "added the source" not in page
        assert "events match workspace None (accounts: people, groups, tokens, MCP)." in page

    def test_the_person_filter_is_partial_and_ignores_case_on_username_and_full_name(
        self, world: World, reader: Any
    ) -> None:
        world.trio.reviewer.first_name, world.trio.reviewer.last_name = "Rita", "Hayworth"
        world.trio.reviewer.save()
        browser = client_for(reader)
        for person in ("RIT", "it", "hayWORTH", "rita hay"):
            page = text(browser.get(f"/audit/?actor={person}"))
            assert "added the source “Launch plan”" in page, person
            assert "created the workspace" not in page, person  # olivia's
        page = text(browser.get("/audit/?actor=nobody-at-all"))
        assert "No events match these filters." in page and "Clear filters" in page

    def test_it_filters_by_kind_and_day(self, world: World, reader: Any) -> None:
        flag_launch(world)
        browser = client_for(reader)
        page = text(browser.get("/audit/?kind=correction.applied"))
        assert "corrected “The launch is in June.” to “The launch is in July.” (why: “The board moved it.”)" in page
        assert "added the source" not in page
        assert "1 event matches kind Correction." in page
        today, tomorrow = TODAY.isoformat(), (TODAY + timedelta(days=1)).isoformat()
        yesterday = (TODAY - timedelta(days=1)).isoformat()
        assert "added the source “Launch plan”" in text(browser.get(f"/audit/?since={today}&until={today}"))
        assert "No events match" in text(browser.get(f"/audit/?since={tomorrow}"))
        assert "No events match" in text(browser.get(f"/audit/?until={yesterday}"))

    def test_an_unknown_value_is_explained_and_left_out(self, world: World, reader: Any) -> None:
        page = text(client_for(reader).get("/audit/?kind=sideways&workspace=nope&since=soon&sort=who"))
        assert "“sideways” is not a kind this list knows" in page
        assert "“nope” is not a workspace this list knows" in page
        assert "“soon” is not a date like 2026-05-12" in page
        assert "This list cannot be sorted by “who”" in page
        assert "added the source “Launch plan”" in page

    def test_it_pages_with_counts(self, world: World, reader: Any) -> None:
        total = AuditEvent.objects.count()
        for n in range(30 - total):
            sources_services.source_add(
                workspace=world.trio.workspace, title=f"Note {n}", text=f"Note number {n}.", actor=world.trio.owner
            )
        browser = client_for(reader)
        assert "1–25 of 30 events" in text(browser.get("/audit/"))
        second = text(browser.get("/audit/?page=2"))
        assert "26–30 of 30 events" in second and "created the workspace “Launch planning”" in second

    def test_it_is_for_staff_only(self, world: World) -> None:
        for user in (world.trio.owner, world.trio.reviewer):
            for path in ("/audit/", "/audit/export.csv"):
                response = client_for(user).get(path)
                assert response.status_code == 403 and "staff auditors" in response.content.decode(), (user, path)


class AuditExportTests:
    def rows(self, response: Any) -> list[list[str]]:
        assert response.streaming
        body = b"".join(response.streaming_content).decode("utf-8-sig")
        return list(csv.reader(io.StringIO(body)))

    def test_the_csv_holds_exactly_the_filtered_events_of_every_page(self, world: World, reader: Any) -> None:
        for n in range(30):
            sources_services.source_add(
                workspace=world.trio.workspace, title=f"Note {n}", text=f"Note number {n}.", actor=world.trio.reviewer
            )
        browser = client_for(reader)
        page = browser.get("/audit/?actor=rita&kind=source.added").content.decode()
        assert "1–25 of 33 events" in page and 'href="/audit/export.csv?actor=rita&amp;kind=source.added"' in page
        response = browser.get("/audit/export.csv?actor=rita&kind=source.added")
        assert response["Content-Type"].startswith("text/csv")
        assert f'filename="afterhack-audit-{TODAY.isoformat()}.csv"' in response["Content-Disposition"]
        header, *rows = self.rows(response)
        assert header == ["time (UTC)", "workspace", "person", "kind", "summary", "target ids"]
        expected = AuditEvent.objects.filter(actor_name="rita", verb="source.added").order_by("-created_at", "-id")
        assert [row[4] for row in rows] == [event.summary for event in expected] and len(rows) == 33
        first = expected[0]
        assert rows[0][:4] == [first.created_at.isoformat(), "Launch planning", "rita", "Source added"]
        assert rows[0][5] == f"source_id={first.payload['source_id']}"
        assert datetime.fromisoformat(rows[0][0]).tzinfo is not None

    def test_cells_a_spreadsheet_would_run_are_quoted(self, world: World, reader: Any) -> None:
        for title in ('=HYPERLINK("http://evil.example","click")', "+1+2", "-3", "@SUM(A1)", " =1+2", "＝1+2"):
            sources_services.source_add(
                workspace=world.trio.workspace, title=title, text="Some text.", actor=world.trio.owner
            )
        world.trio.owner.username = "=cmd"
        world.trio.owner.save()
        rows = self.rows(client_for(reader).get("/audit/export.csv?kind=source.added"))
        summaries = [row[4] for row in rows[1:]]
        assert "added the source “=HYPERLINK" in " ".join(summaries)  # inside a sentence: harmless
        workspace_services.workspace_create(name="=1+1", creator=world.trio.owner)
        workspace_services.workspace_create(name="＝2+2", creator=world.trio.owner)  # a full-width equals sign
        rows = self.rows(client_for(reader).get("/audit/export.csv?kind=workspace.created"))
        cells = [cell for row in rows[1:] for cell in row]
        assert "'=1+1" in cells and "'=cmd" in cells and "'＝2+2" in cells
        assert not any(cell.lstrip(" ").startswith(("=", "+", "-", "@", "＝")) for cell in cells)


class ImpactAsItWasTests:
    def test_the_audit_detail_shows_the_impact_as_applied_whatever_happened_since(
        self, world: World, auditor: Any
    ) -> None:
        launch, announce, applied = flag_launch(world)
        # Afterwards: the decision is re-justified (supported again) and its action is pending again, then done.
        review.decision_rejustify(
            workspace=world.trio.workspace,
            decision_id=launch,
            justifications=[[world.board]],
            actor=world.trio.reviewer,
        )
        agents_services.action_mark(
            workspace=world.trio.workspace, action_id=announce, status="done", actor=world.trio.reviewer
        )
        path = f"/audit/corrections/{world.ws}/{applied['correction_id']}/"
        page = text(client_for(auditor).get(path))
        then = page[page.index("Impact when it was applied") :]
        assert "Needed review: Launch in June" in then and "Actions held: Send the launch announcement" in then
        assert "today" not in then and "done" not in then and "supported" not in then.split("Still supported")[0]
        # The auditor does not belong to the workspace: titles, no links into it.
        assert f"/w/{world.ws}/" not in page

    def test_a_member_auditor_gets_links_to_what_it_names(self, world: World, auditor: Any) -> None:
        launch, _, applied = flag_launch(world)
        membership_services.member_add(
            workspace=world.trio.workspace, username="audrey", role=Role.VIEWER, actor=world.trio.owner
        )
        page = client_for(auditor).get(f"/audit/corrections/{world.ws}/{applied['correction_id']}/").content.decode()
        assert f'href="/w/{world.ws}/decisions/{launch}/"' in page and f'href="/w/{world.ws}/"' in page
        assert f'href="/w/{world.ws}/claims/{world.june}/"' in page

    def test_a_correction_applied_before_the_snapshot_says_only_today_is_known(
        self, world: World, auditor: Any, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        # What apply wrote before it kept the impact: the audit event without it.
        monkeypatch.setattr(preview_services.Preview, "snapshot", lambda self: None)
        _, _, applied = flag_launch(world)
        assert "impact" not in AuditEvent.objects.get(verb="correction.applied").payload
        page = text(client_for(auditor).get(f"/audit/corrections/{world.ws}/{applied['correction_id']}/"))
        assert "applied before Afterhack kept each impact as it was" in page
        assert "Needed review: Launch in June" in page and "today" in page


class AuditEventPageTests:
    def test_it_says_who_did_what_where_and_links_only_where_the_auditor_belongs(
        self, world: World, auditor: Any
    ) -> None:
        _, _, applied = flag_launch(world)
        event = AuditEvent.objects.get(verb="correction.applied")
        listed = client_for(auditor).get("/audit/").content.decode()
        assert f'href="/audit/events/{event.pk}/"' in listed
        response = client_for(auditor).get(f"/audit/events/{event.pk}/")
        page = text(response)
        assert (
            "rita corrected “The launch is in June.” to “The launch is in July.”" in page and "Launch planning" in page
        )
        assert "<dt>From</dt><dd>“The launch is in June.”</dd> <dt>To</dt><dd>“The launch is in July.”</dd>" in page
        assert "<dt>Why</dt><dd>The board moved it.</dd>" in page
        assert "you are not a member" in page and f"/w/{world.ws}/" not in response.content.decode()
        assert f'href="/audit/corrections/{world.ws}/{applied["correction_id"]}/"' in response.content.decode()
        membership_services.member_add(
            workspace=world.trio.workspace, username="audrey", role=Role.VIEWER, actor=world.trio.owner
        )
        member_page = client_for(auditor).get(f"/audit/events/{event.pk}/").content.decode()
        assert f'href="/w/{world.ws}/corrections/{applied["correction_id"]}/"' in member_page

    def test_it_is_for_staff_only_and_an_unknown_event_is_a_404(self, world: World, auditor: Any) -> None:
        event = AuditEvent.objects.latest("id")
        assert client_for(world.trio.owner).get(f"/audit/events/{event.pk}/").status_code == 403
        assert client_for(auditor).get(f"/audit/events/{event.pk + 1000}/").status_code == 404
