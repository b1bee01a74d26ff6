"""The picker of claims and decisions: its endpoints (claims:pick, agents:pick) and the forms that use it instead of
typed ids — a new decision, derive, the history's claim filter, the actions' decision filter."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest

from afterhack import graph
from agents.graph import decisions as decisions_graph
from tests.conftest import client_for
from tests.corrections.conftest import World
from tests.corrections.conftest import world as world  # the launch story
from workspaces.models import AuditEvent

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
UNKNOWN = "00000000-0000-0000-0000-000000000000"


def get(world: World, path: str, user: Any = None, **headers: str) -> Any:
    return client_for(user or world.trio.reviewer).get(f"/w/{world.ws}/{path}", headers=headers)


def body(response: Any) -> str:
    return html.unescape(response.content.decode())


def text(page: str) -> str:
    """What a person reads: the page without its tags, whitespace folded."""
    return " ".join(re.sub(r"<[^>]+>", " ", page).split())


def chosen(page: str, key: str) -> str:
    """The chosen list of the picker `key` (results carry a chosen line too, in a template for picking)."""
    found = re.search(rf'<ul class="chosen" id="{key}-chosen".*?</ul>', page, re.S)
    assert found, f"no picker {key} on the page"
    return found.group(0)


def written(world: World) -> tuple[Any, ...]:
    revision = graph.ro_query(world.trio.workspace, "MATCH (w:Workspace) RETURN w.revision")
    return revision, AuditEvent.objects.exclude(verb__startswith="token.").count()


class ClaimPickTests:
    def test_before_typing_it_shows_the_newest_claims_with_status_source_and_date(self, world: World) -> None:
        fragment = body(get(world, "claims/pick?field=derived_from", **HTMX))
        assert "<html" not in fragment and 'role="listbox"' in fragment
        assert "The newest claims" in fragment
        assert "The launch is in June." in fragment and "from Launch plan" in fragment
        assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", fragment)
        assert f'name="derived_from" value="{world.june}"' in fragment  # the line a pick adds, in its template

    def test_typing_finds_claims_and_a_superseded_one_is_marked_not_pickable(self, world: World) -> None:
        revision = world.preview(world.june).json()["revision"]
        world.apply(world.june, revision)
        fragment = body(get(world, "claims/pick?field=j1_claims&j1_claims_q=launch", **HTMX))
        assert "Claims matching “launch”" in fragment
        assert "The launch is in July." in fragment and "a reviewer's correction" in fragment
        assert "cannot support: it is superseded" in fragment
        assert f'value="j1_claims {world.june}"' not in fragment and f'value="j1_claims {world.northwind}"' in fragment
        # A filter picks anything: the superseded claim is what one looks for in the history.
        anything = body(get(world, "claims/pick?field=claim&claim_q=June&single=1&any=1", **HTMX))
        assert f'value="claim {world.june}"' in anything and "cannot support" not in anything
        assert "No claim matches “zebra”" in body(get(world, "claims/pick?field=x&x_q=zebra", **HTMX))

    def test_what_is_chosen_is_marked_chosen(self, world: World) -> None:
        fragment = body(get(world, f"claims/pick?field=j1_claims&j1_claims_q=June&j1_claims={world.june}", **HTMX))
        june = re.search(rf'<li role="option" id="j1_claims-option-{world.june}".*?</li>', fragment, re.S)
        assert june is not None and 'class="is-chosen"' in june.group(0) and "chosen" in text(june.group(0))

    def test_hostile_fields_and_ids_are_read_as_plain_defaults(self, world: World) -> None:
        odd = '"><script>alert(1)</script>'
        response = get(world, f"claims/pick?field={odd}&key={odd}&chosen=nope&chosen={UNKNOWN}", **HTMX)
        assert response.status_code == 200 and "<script>" not in response.content.decode()
        assert 'name="chosen"' in response.content.decode()
        page = get(world, "claims/pick?field=x&x_q=" + "a" * 5000)
        assert page.status_code == 200 and "<html" in page.content.decode() and "Find claims" in body(page)

    def test_access(self, world: World) -> None:
        for path in ("claims/pick?field=x", "decisions/pick?field=x"):
            assert get(world, path, user=world.trio.viewer, **HTMX).status_code == 200
            assert get(world, path, user=world.trio.outsider, **HTMX).status_code == 404


class DecisionPickTests:
    def test_it_finds_decisions_by_their_title_and_marks_those_that_cannot_support(self, world: World) -> None:
        world.decision("Launch in June", [world.june])
        flagged = world.decision("Marketing in May", [world.may])
        revision = world.preview(world.may, "Marketing starts in June.").json()["revision"]
        world.apply(world.may, revision, statement="Marketing starts in June.")
        newest = body(get(world, "decisions/pick?field=j1_decisions", **HTMX))
        assert "The newest decisions" in newest and "Launch in June" in newest and "by rita" in newest
        found = body(get(world, "decisions/pick?field=j1_decisions&j1_decisions_q=marketing", **HTMX))
        assert "Marketing in May" in found and "Launch in June" not in found
        assert "needs review" in found and "cannot support: it is needs review" in found
        assert f'value="j1_decisions {flagged}"' not in found
        words = body(get(world, "decisions/pick?field=x&x_q=june launch plans", **HTMX))
        assert "Launch in June" in words


class NewDecisionTests:
    def test_the_form_offers_pickers_and_the_ids_only_behind_a_toggle(self, world: World) -> None:
        page = body(get(world, "decisions/"))
        assert "Justification 1" in page and "Find claims" in page and "Add another justification" in page
        assert re.search(r"<details>\s*<summary[^>]*>Type ids instead", page)

    def test_two_justifications_picked_make_the_decision(self, world: World) -> None:
        response = client_for(world.trio.reviewer).post(
            f"/w/{world.ws}/decisions/new",
            {"title": "Launch", "groups": "2", "j1_claims": [world.june], "j2_claims": [world.ana, world.board]},
        )
        assert response.status_code == 302
        created = decisions_graph.decision_list(workspace=world.trio.workspace)[0]
        assert created.justifications == [[world.june], sorted([world.ana, world.board])]

    def test_a_decision_can_rest_on_a_decision(self, world: World) -> None:
        first = world.decision("Launch in June", [world.june])
        response = client_for(world.trio.reviewer).post(
            f"/w/{world.ws}/decisions/new", {"title": "Book the hall", "j1_decisions": first, "j1_claims": world.ana}
        )
        assert response.status_code == 302
        assert decisions_graph.decision_list(workspace=world.trio.workspace)[0].justifications == [
            sorted([first, world.ana])
        ]

    def test_without_javascript_add_remove_search_and_more_change_the_form_and_save_nothing(self, world: World) -> None:
        before = written(world)
        url = f"/w/{world.ws}/decisions/new"
        browser = client_for(world.trio.reviewer)
        added = body(browser.post(url, {"title": "Launch", "rationale": "Why.", "pick": f"j1_claims {world.june}"}))
        assert f'<input type="hidden" name="j1_claims" value="{world.june}">' in chosen(added, "j1_claims")
        assert 'value="Launch"' in added and ">Why.</textarea>" in added and "This field is required" not in added
        found = body(browser.post(url, {"title": "L", "j1_claims_q": "told", "find": "j1_claims"}))
        assert "Claims matching “told”" in found and "we were told the launch is in June." in found
        more = body(browser.post(url, {"title": "L", "groups": "1", "more": "1"}))
        assert "Justification 2" in more and 'name="groups" id="justification-count" value="2"' in more
        dropped = body(browser.post(url, {"title": "L", "j1_claims": world.june, "unpick": f"j1_claims {world.june}"}))
        assert f'name="j1_claims" value="{world.june}"' not in chosen(dropped, "j1_claims")
        assert written(world) == before

    def test_more_over_htmx_is_one_more_justification(self, world: World) -> None:
        fragment = body(get(world, "decisions/new?more=1&groups=2", **HTMX))
        assert "<html" not in fragment and 'id="justification-3"' in fragment and "Justification 3" in fragment
        assert 'id="justification-count" value="3" hx-swap-oob="true"' in fragment

    def test_nothing_chosen_or_an_unusable_claim_is_refused_with_what_was_typed(self, world: World) -> None:
        before = written(world)
        url = f"/w/{world.ws}/decisions/new"
        nothing = client_for(world.trio.reviewer).post(url, {"title": "Launch", "rationale": "Why."})
        assert nothing.status_code == 422 and "Choose what it rests on" in body(nothing)
        assert 'value="Launch"' in body(nothing)
        revision = world.preview(world.june).json()["revision"]
        world.apply(world.june, revision)
        before = written(world)
        refused = client_for(world.trio.reviewer).post(url, {"title": "Launch", "j1_claims": world.june})
        assert refused.status_code == 422 and "Nothing was saved: “The launch is in June.” is superseded." in body(
            refused
        )
        assert f'name="j1_claims" value="{world.june}"' in chosen(body(refused), "j1_claims")
        assert written(world) == before

    def test_reloading_the_form_address_shows_the_form_never_405(self, world: World) -> None:
        page = get(world, "decisions/new")
        assert page.status_code == 200 and "New decision" in body(page) and "Justification 1" in body(page)
        viewer = get(world, "decisions/new", user=world.trio.viewer)
        assert viewer.status_code == 302 and viewer["Location"] == f"/w/{world.ws}/decisions/"
        assert get(world, "decisions/new", user=world.trio.outsider).status_code == 404


class DeriveTests:
    def test_the_claims_page_offers_the_derive_form_with_its_picker_before_any_search(self, world: World) -> None:
        page = body(get(world, "claims/"))
        assert "Derive a claim from other claims" in page and "Find the claims it follows from" in page
        assert "The newest claims" in page and "No claim chosen yet" in chosen(page, "derived_from")
        assert "Derive a claim" not in body(get(world, "claims/", user=world.trio.viewer))

    def test_deriving_from_picked_claims(self, world: World) -> None:
        response = client_for(world.trio.reviewer).post(
            f"/w/{world.ws}/claims/derive", {"statement": "It is a summer launch.", "derived_from": [world.june]}
        )
        assert response.status_code == 302
        derived = body(client_for(world.trio.viewer).get(response["Location"]))
        assert "Derived from" in derived and "The launch is in June." in derived

    def test_a_failed_derive_keeps_the_statement_and_the_chosen_claims(self, world: World) -> None:
        revision = world.preview(world.june).json()["revision"]
        world.apply(world.june, revision)
        before = written(world)
        url = f"/w/{world.ws}/claims/derive"
        refused = client_for(world.trio.reviewer).post(
            url, {"statement": "It is a summer launch.", "derived_from": [world.june, world.ana]}
        )
        page = body(refused)
        assert refused.status_code == 422
        # Said with the claim's statement, not its id.
        assert "Nothing was derived: “The launch is in June.” is superseded." in page
        assert 'value="It is a summer launch."' in page and re.search(
            r'<details class="card derive" id="derive" open data-scroll-here>', page
        )
        assert world.june in chosen(page, "derived_from") and world.ana in chosen(page, "derived_from")
        empty = client_for(world.trio.reviewer).post(url, {"statement": "", "derived_from": world.ana})
        assert (
            empty.status_code == 422
            and "Write the statement" in body(empty)
            and world.ana in chosen(body(empty), "derived_from")
        )
        stepped = client_for(world.trio.reviewer).post(
            url, {"statement": "Typed.", "derived_from": world.ana, "pick": f"derived_from {world.may}"}
        )
        assert stepped.status_code == 200 and 'value="Typed."' in body(stepped)
        assert world.may in chosen(body(stepped), "derived_from")
        assert written(world) == before


class HistoryFilterTests:
    def test_picking_a_claim_filters_and_the_page_names_it(self, world: World) -> None:
        revision = world.preview(world.june).json()["revision"]
        world.apply(world.june, revision)
        page = body(get(world, f"corrections/?claim={world.june}"))
        assert "The launch is in June." in chosen(page, "claim") and "Remove" in chosen(page, "claim")
        assert "The launch is in July." in page.split("</form>")[-1]
        # Without JavaScript, Add is a button of the filter form: the picked claim becomes the filter.
        other = body(get(world, f"corrections/?claim={world.june}&pick=claim+{world.ana}"))
        assert "Ana owns the checklist." in chosen(other, "claim")
        assert "No corrections match claim “Ana owns the checklist.”" in other and "Clear filters" in other
        cleared = body(get(world, f"corrections/?claim={world.june}&unpick=claim+{world.june}"))
        assert "Any claim" in chosen(cleared, "claim") and "The launch is in July." in cleared.split("</form>")[-1]

    def test_an_unknown_claim_is_said_in_words(self, world: World) -> None:
        page = body(get(world, f"corrections/?claim={UNKNOWN}"))
        assert "No claim of this workspace has the id" in page and "No corrections match" in page


class ActionDecisionFilterTests:
    def test_picking_a_decision_lists_only_its_actions_and_names_it(self, world: World) -> None:
        launch = world.decision("Launch in June", [world.june])
        checklist = world.decision("Ana runs the checklist", [world.ana])
        world.action("Print the flyers", launch)
        world.action("Book the hall", checklist)
        page = body(get(world, f"actions/?decision={launch}"))
        table = page.split('<section id="actions-list"')[1]
        assert "Print the flyers" in table and "Book the hall" not in table
        assert "Launch in June" in chosen(page, "decision")
        done = body(get(world, f"actions/?decision={launch}&status=done")).split('<section id="actions-list"')[1]
        assert "Print the flyers" not in done
        # The filter form keeps the decision picked.
        assert f'value="{launch}"' in done
        # Without JavaScript, Add is a button of the filter form.
        other = body(get(world, f"actions/?decision={launch}&pick=decision+{checklist}"))
        assert "Ana runs the checklist" in chosen(other, "decision")
        assert "Book the hall" in other.split('<section id="actions-list"')[1]

    def test_an_unknown_or_odd_decision_is_explained_not_an_error(self, world: World) -> None:
        launch = world.decision("Launch in June", [world.june])
        world.action("Print the flyers", launch)
        unknown = get(world, f"actions/?decision={UNKNOWN}")
        assert unknown.status_code == 200 and "No decision of this workspace has the id" in body(unknown)
        assert "Print the flyers" not in body(unknown).split('<section id="actions-list"')[1]
        odd = get(world, "actions/?decision=nope")
        assert odd.status_code == 200 and "No decision of this workspace has the id nope" in body(odd)
