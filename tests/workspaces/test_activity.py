"""A workspace's activity: the dashboard's recent rows link to what they name, and the full list pages, filters
and searches."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from agents.services import runs as agents_services
from corrections import review
from tests.conftest import client_for
from tests.corrections.conftest import World
from tests.corrections.conftest import world as world  # the launch story, reused here
from workspaces.models import Membership, Role
from workspaces.services import memberships as membership_services
from workspaces.services import workspaces as workspace_services

pytestmark = pytest.mark.django_db

TODAY = datetime.now(UTC).date()


def text(response: Any) -> str:
    """The page's words as a person reads them: tags out, entities decoded, white space folded."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", response.content.decode())).split())


def links(response: Any) -> dict[str, str]:
    """Each link of the events table: its words → where it goes."""
    body = response.content.decode()
    table = body[body.index('<table class="list events">') : body.index("</table>")]
    return {html.unescape(words): href for href, words in re.findall(r'<a href="([^"]+)">([^<]+)</a>', table)}


def busy(world: World) -> dict[str, Any]:
    """A decision with an action, a run, a correction that flags the decision, and its dismissal."""
    launch = world.decision("Launch in June", [world.june])
    action = world.action("Send the launch announcement", launch)
    run = agents_services.ask(workspace=world.trio.workspace, question="When is the launch?", actor=world.trio.reviewer)
    revision = world.preview(world.june).json()["revision"]
    applied = world.apply(world.june, revision, key="june").json()
    review.decision_dismiss(workspace=world.trio.workspace, decision_id=launch, actor=world.trio.reviewer)
    return {"launch": launch, "action": action, "run": run, **applied}


class DashboardActivityTests:
    def test_recent_rows_link_to_what_they_name_and_to_all_activity(self, world: World) -> None:
        made = busy(world)
        ws = world.ws
        response = client_for(world.trio.viewer).get(f"/w/{ws}/")
        found = links(response)
        assert found["dismissed “Launch in June”"] == f"/w/{ws}/decisions/{made['launch']}/"
        assert found["corrected a claim to “The launch is in July.”"] == f"/w/{ws}/corrections/{made['correction_id']}/"
        assert found["asked the agent “When is the launch?”"] == f"/w/{ws}/runs/{made['run']}/"
        action_page = found["added the action “Send the launch announcement”"]
        assert action_page in (f"/w/{ws}/actions/{made['action']}/", f"/w/{ws}/decisions/{made['launch']}/")
        assert found["created the decision “Launch in June”"] == f"/w/{ws}/decisions/{made['launch']}/"
        assert f'href="/w/{ws}/activity/">See all activity</a>' in response.content.decode()

    def test_member_events_link_to_the_members_page_only_for_its_admins(self, world: World) -> None:
        viewer = Membership.objects.get(user=world.trio.viewer)
        membership_services.member_change_role(
            workspace=world.trio.workspace, membership_id=viewer.pk, role=Role.REVIEWER, actor=world.trio.owner
        )
        made = "made victor reviewer (was viewer)"
        assert links(client_for(world.trio.owner).get(f"/w/{world.ws}/"))[made] == f"/w/{world.ws}/members/"
        reviewer_page = client_for(world.trio.reviewer).get(f"/w/{world.ws}/")
        assert made not in links(reviewer_page) and made in text(reviewer_page)


class ActivityPageTests:
    def test_members_read_it_outsiders_do_not(self, world: World) -> None:
        assert client_for(world.trio.viewer).get(f"/w/{world.ws}/activity/").status_code == 200
        assert client_for(world.trio.outsider).get(f"/w/{world.ws}/activity/").status_code == 404

    def test_it_pages_with_counts(self, world: World) -> None:
        for n in range(20):
            world.decision(f"Decision {n}", [world.june])
        browser = client_for(world.trio.viewer)
        first = text(browser.get(f"/w/{world.ws}/activity/"))
        assert "1–25 of 31 events" in first and "created the decision “Decision 19”" in first
        last = text(browser.get(f"/w/{world.ws}/activity/?page=2"))
        assert "26–31 of 31 events" in last and "created the workspace “Launch planning”" in last
        oldest_first = text(browser.get(f"/w/{world.ws}/activity/?sort=when"))
        assert oldest_first.index("created the workspace") < oldest_first.index("added rita as reviewer")

    def test_it_filters_by_person_kind_and_day_and_searches_the_summaries(self, world: World) -> None:
        busy(world)
        browser = client_for(world.trio.viewer)
        ws = world.ws
        by_olivia = text(browser.get(f"/w/{ws}/activity/?actor=OLIV"))
        assert "added rita as reviewer" in by_olivia and "added the source" not in by_olivia
        assert "3 events match person “OLIV”. Clear filters" in by_olivia
        dismissals = text(browser.get(f"/w/{ws}/activity/?kind=decision.dismissed"))
        assert "dismissed “Launch in June”" in dismissals and "1 event matches kind Dismissal." in dismissals
        searched = text(browser.get(f"/w/{ws}/activity/?q=announcement"))
        assert "added the action “Send the launch announcement”" in searched and "added the source" not in searched
        assert "added the source" in text(browser.get(f"/w/{ws}/activity/?q=added+the+source"))
        tomorrow = (TODAY + timedelta(days=1)).isoformat()
        empty = text(browser.get(f"/w/{ws}/activity/?since={tomorrow}"))
        assert "No events match these filters. Clear filters" in empty
        assert "added the source" in text(browser.get(f"/w/{ws}/activity/?until={TODAY.isoformat()}"))

    def test_only_this_workspaces_events_are_listed(self, world: World) -> None:
        workspace_services.workspace_create(name="Hiring", creator=world.trio.owner)
        page = text(client_for(world.trio.owner).get(f"/w/{world.ws}/activity/"))
        assert "created the workspace “Launch planning”" in page and "Hiring" not in page

    def test_over_htmx_it_answers_only_the_list(self, world: World) -> None:
        response = client_for(world.trio.viewer).get(
            f"/w/{world.ws}/activity/?actor=rita", headers={"HX-Request": "true"}
        )
        body = response.content.decode()
        assert body.lstrip().startswith('<section id="activity-list"') and "<html" not in body
        assert "added the source “Launch plan”" in html.unescape(body)
