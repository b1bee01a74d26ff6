"""The review page: two parts, nothing chosen for the reviewer, the claim picker, revise, and the confirm step of Dismiss."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any

import pytest

from afterhack import graph
from agents.services import runs as agents_services
from tests.conftest import api_for, client_for
from tests.corrections.conftest import World
from workspaces.models import AuditEvent

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def flagged(world: World) -> dict[str, str]:
    """“Launch in June” with an action, June corrected to July: the decision needs review, the action is held."""
    launch = world.decision("Launch in June", [world.june])
    announce = world.action("Send the launch announcement", launch)
    revision = world.preview(world.june).json()["revision"]
    july = world.apply(world.june, revision).json()["replacement_claim_id"]
    return {"launch": launch, "announce": announce, "july": july}


def page(world: World, path: str = "", user: Any = None, **headers: str) -> str:
    response = client_for(user or world.trio.reviewer).get(f"/w/{world.ws}/review/{path}", headers=headers)
    assert response.status_code == 200, response.status_code
    return html.unescape(response.content.decode())


def text(body: str) -> str:
    """What a person reads: the page without its tags, whitespace folded."""
    return " ".join(re.sub(r"<[^>]+>", " ", body).split())


def snapshot(world: World) -> tuple[Any, ...]:
    rows = graph.ro_query(
        world.trio.workspace, "MATCH (x) WHERE x:Decision OR x:Action RETURN x.id, x.status, x.dismissed_at"
    )
    revision = graph.ro_query(world.trio.workspace, "MATCH (w:Workspace) RETURN w.revision")
    return sorted(map(tuple, rows)), revision, AuditEvent.objects.exclude(verb__startswith="token.").count()


class NothingChosenTests:
    def test_the_review_page_offers_the_replacement_but_chooses_nothing(self, world: World) -> None:
        ids = flagged(world)
        body = page(world)
        assert "Lost their support" in body and "Unanswered questions" in body
        # No claim id in any field: the chosen list starts empty, the new title is the reviewer's to write.
        # (Each result holds the line a pick adds in a <template>: inert, never sent.)
        fields = re.findall(r"<input[^>]*>", re.sub(r"<template>.*?</template>", "", body, flags=re.S))
        assert [f for f in fields if 'name="support_ids"' in f or 'name="chosen"' in f] == []
        values = " ".join(re.findall(r'\bvalue="([^"]*)"', " ".join(fields)))
        claims = (world.june, world.ana, world.may, world.northwind, world.board, ids["july"])
        assert UUID.search(values) and not any(claim in values for claim in claims)
        assert re.search(r'<input name="title"[^>]*value=""', body)
        assert "Nothing chosen yet" in body
        # The correction's replacement is offered, with its text, as a link to add it.
        assert "Suggested: the corrected statement “The launch is in July.”" in body
        assert f'value="d{ids["launch"]} {ids["july"]}"' in body
        words = text(body)
        assert "Flagged by the correction by rita" in words
        assert "“The launch is in June.” → “The launch is in July.”" in words
        assert "Its actions: Send the launch announcement held" in words

    def test_a_viewer_sees_the_queue_without_any_form(self, world: World) -> None:
        flagged(world)
        body = page(world, user=world.trio.viewer)
        assert "Launch in June" in body and '<form method="post" action="/w/' not in body
        assert "Re-justify with the chosen claims" not in body and "Dismiss…" not in body


class PickerTests:
    def test_typing_searches_and_shows_statement_status_and_source(self, world: World) -> None:
        ids = flagged(world)
        key = f"d{ids['launch']}"
        fragment = html.unescape(
            client_for(world.trio.reviewer)
            .get(f"/w/{world.ws}/claims/pick?field=support_ids&key={key}&{key}_q=launch", headers=HTMX)
            .content.decode()
        )
        assert "<html" not in fragment and '<ul class="pick-list" role="listbox"' in fragment
        assert "The launch is in July." in fragment and "a reviewer's correction" in fragment
        assert "we were told the launch is in June." in fragment and "from Email" in fragment
        # The corrected claim is listed for what it is, and cannot be added.
        assert "cannot support: it is superseded" in fragment
        assert f'value="{key} {world.june}"' not in fragment and f'value="{key} {world.northwind}"' in fragment
        # A pick adds the line in the result's template: the claim's id in a hidden support_ids field.
        assert f'<input type="hidden" name="support_ids" value="{world.northwind}">' in fragment

    def test_the_page_shows_the_newest_claims_before_anything_is_typed(self, world: World) -> None:
        ids = flagged(world)
        item = page(world, f"{ids['launch']}/")
        assert "The newest claims" in item and "Ana owns the checklist." in item

    def test_without_javascript_search_and_add_are_buttons_of_the_form(self, world: World) -> None:
        ids = flagged(world)
        key = f"d{ids['launch']}"
        url = f"/w/{world.ws}/review/{ids['launch']}"
        browser = client_for(world.trio.reviewer)
        before = snapshot(world)
        found = html.unescape(browser.post(url, {f"{key}_q": "told", "find": key, "title": "Kept"}).content.decode())
        assert "Claims matching “told”" in found and 'value="Kept"' in found
        added = html.unescape(browser.post(url, {"pick": f"{key} {world.northwind}"}).content.decode())
        chosen = re.search(rf'<ul class="chosen" id="{key}-chosen".*?</ul>', added, re.S)
        assert chosen is not None and f'name="support_ids" value="{world.northwind}"' in chosen.group(0)
        removed = html.unescape(
            browser.post(url, {"support_ids": world.northwind, "unpick": f"{key} {world.northwind}"}).content.decode()
        )
        chosen = re.search(rf'<ul class="chosen" id="{key}-chosen".*?</ul>', removed, re.S)
        assert chosen is not None and world.northwind not in chosen.group(0)
        assert snapshot(world) == before
        # A link that names the decision, its search and chosen claims still opens the picker that way.
        body = page(world, f"?for={ids['launch']}&q=told&chosen={world.northwind}")
        chosen = re.search(rf'<ul class="chosen" id="{key}-chosen".*?</ul>', body, re.S)
        assert chosen is not None and f'name="support_ids" value="{world.northwind}"' in chosen.group(0)


class ResolveTests:
    def test_revising_from_the_page_moves_the_action(self, world: World) -> None:
        ids = flagged(world)
        response = client_for(world.trio.reviewer).post(
            f"/w/{world.ws}/review/{ids['launch']}",
            {"resolution": "revise", "title": "Launch in July", "support_ids": ids["july"], "actions": "move"},
            follow=True,
        )
        body = html.unescape(response.content.decode())
        assert "Revised into “Launch in July”, now supported; 1 open action moved to it." in body
        assert "Nothing needs review" in body
        old = api_for(world.trio.viewer).get(f"/workspaces/{world.ws}/decisions/{ids['launch']}").json()
        assert old["status"] == "superseded"
        action = api_for(world.trio.viewer).get(f"/workspaces/{world.ws}/actions/{ids['announce']}").json()
        assert action["status"] == "pending" and action["decision_ids"] == [old["superseded_by"]]

    def test_a_refused_revision_comes_back_with_what_was_typed_and_writes_nothing(self, world: World) -> None:
        ids = flagged(world)
        before = snapshot(world)
        response = client_for(world.trio.reviewer).post(
            f"/w/{world.ws}/review/{ids['launch']}",
            {"resolution": "revise", "title": "Launch in July", "rationale": "Board.", "support_ids": ids["july"]},
        )
        body = html.unescape(response.content.decode())
        assert response.status_code == 422 and "Say what happens to its open actions" in body
        assert 'value="Launch in July"' in body and ">Board.</textarea>" in body
        assert f'name="support_ids" value="{ids["july"]}"' in body
        assert snapshot(world) == before

    @pytest.mark.parametrize("resolution", ["rejustify", "revise"])
    def test_nothing_chosen_is_refused_in_words(self, world: World, resolution: str) -> None:
        ids = flagged(world)
        before = snapshot(world)
        response = client_for(world.trio.reviewer).post(
            f"/w/{world.ws}/review/{ids['launch']}", {"resolution": resolution, "title": "T", "actions": "move"}
        )
        assert response.status_code == 422 and "Choose the claims it rests on now" in response.content.decode()
        assert snapshot(world) == before

    def test_rejustifying_with_a_picked_claim(self, world: World) -> None:
        ids = flagged(world)
        response = client_for(world.trio.reviewer).post(
            f"/w/{world.ws}/review/{ids['launch']}", {"resolution": "rejustify", "support_ids": world.northwind}
        )
        assert response.status_code == 302
        decision = api_for(world.trio.viewer).get(f"/workspaces/{world.ws}/decisions/{ids['launch']}").json()
        assert decision["status"] == "supported" and [world.northwind] in decision["justifications"]


class DismissTests:
    def test_the_first_post_only_asks_naming_the_actions_it_cancels(self, world: World) -> None:
        ids = flagged(world)
        before = snapshot(world)
        url = f"/w/{world.ws}/review/{ids['launch']}"
        asked = client_for(world.trio.reviewer).post(url, {"resolution": "dismiss", "next": f"/w/{world.ws}/review/"})
        body = html.unescape(asked.content.decode())
        assert asked.status_code == 200 and "Dismiss “Launch in June”?" in body
        assert "This cancels 1 action: “Send the launch announcement”." in body
        assert 'name="confirmed" value="yes"' in body and snapshot(world) == before
        in_place = client_for(world.trio.reviewer).post(url, {"resolution": "dismiss"}, headers=HTMX)
        fragment = in_place.content.decode()
        assert "<html" not in fragment and f'hx-target="#dismiss-{ids["launch"]}"' in fragment
        assert snapshot(world) == before
        done = client_for(world.trio.reviewer).post(url, {"resolution": "dismiss", "confirmed": "yes"}, headers=HTMX)
        assert done.status_code == 204 and done["HX-Redirect"] == f"/w/{world.ws}/review/"
        action = api_for(world.trio.viewer).get(f"/workspaces/{world.ws}/actions/{ids['announce']}").json()
        assert action["status"] == "cancelled"
        assert AuditEvent.objects.get(verb="decision.dismissed").payload["cancelled"] == [ids["announce"]]

    def test_a_decision_that_cannot_be_dismissed_is_not_asked_about(self, world: World) -> None:
        supported = world.decision("Ana runs it", [world.ana])
        before = snapshot(world)
        response = client_for(world.trio.reviewer).post(
            f"/w/{world.ws}/review/{supported}", {"resolution": "dismiss"}, follow=True
        )
        assert "does not need review" in html.unescape(response.content.decode()) and snapshot(world) == before


class UnansweredTests:
    def test_an_unanswered_question_has_its_own_part_question_first(
        self, world: World, no_llm: None, django_capture_on_commit_callbacks: Callable[..., Any]
    ) -> None:
        with django_capture_on_commit_callbacks(execute=True):
            agents_services.ask(
                workspace=world.trio.workspace, question="What is the capital of France?", actor=world.trio.reviewer
            )
        flagged(world)
        body = page(world)
        unanswered, lost = body.split('id="lost-support"')
        assert "“What is the capital of France?”" in unanswered and "Launch in June" not in unanswered
        assert "Asked by rita" in unanswered and "Answer it" in unanswered and "Re-justify" not in unanswered
        assert "Launch in June" in lost and "What is the capital of France?" not in lost
        again = re.search(r'<a class="button" href="([^"]+)">Ask again</a>', unanswered)
        assert again is not None and again.group(1).endswith("?question=What%20is%20the%20capital%20of%20France%3F")
        ask_page = html.unescape(client_for(world.trio.reviewer).get(again.group(1)).content.decode())
        assert 'value="What is the capital of France?"' in ask_page


class DecisionPageTests:
    def test_a_revised_decision_and_its_revision_link_to_each_other(self, world: World) -> None:
        ids = flagged(world)
        browser = client_for(world.trio.reviewer)
        needing = html.unescape(browser.get(f"/w/{world.ws}/decisions/{ids['launch']}/").content.decode())
        assert "Re-justify or revise it" in needing and "Dismiss…" in needing
        new = (
            api_for(world.trio.reviewer)
            .post(
                f"/workspaces/{world.ws}/decisions/{ids['launch']}/revise",
                {"title": "Launch in July", "justifications": [[ids["july"]]], "actions": "cancel"},
            )
            .json()
        )
        old_page = html.unescape(browser.get(f"/w/{world.ws}/decisions/{ids['launch']}/").content.decode())
        assert (
            "Revised by rita" in old_page
            and f'href="/w/{world.ws}/decisions/{new["id"]}/">“Launch in July”' in old_page
        )
        assert "Re-justify or revise it" not in old_page and "Dismiss…" not in old_page and "Add action" not in old_page
        new_page = html.unescape(browser.get(f"/w/{world.ws}/decisions/{new['id']}/").content.decode())
        assert (
            f'This decision revises <a href="/w/{world.ws}/decisions/{ids["launch"]}/">“Launch in June”</a>' in new_page
        )
        assert "Dismiss…" not in new_page and "by a reviewer" in new_page
        item = html.unescape(browser.get(f"/w/{world.ws}/review/{ids['launch']}/").content.decode())
        assert "it is superseded by" in item and "Re-justify" not in item
        listed = html.unescape(browser.get(f"/w/{world.ws}/decisions/?status=superseded").content.decode())
        table = listed.split('<section id="decisions-list"')[1].split("</section>")[0]
        assert "Launch in June" in table and "Launch in July" not in table

    def test_access(self, world: World) -> None:
        ids = flagged(world)
        for path in ("", f"{ids['launch']}/"):
            url = f"/w/{world.ws}/review/{path}"
            assert client_for(world.trio.outsider).get(url, headers=HTMX).status_code == 404
            assert client_for(world.trio.viewer).get(url, headers=HTMX).status_code == 200
        viewer = client_for(world.trio.viewer).post(f"/w/{world.ws}/review/{ids['launch']}", {"resolution": "dismiss"})
        assert viewer.status_code == 403
        assert client_for(world.trio.reviewer).get(f"/w/{world.ws}/review/nope/").status_code == 404
