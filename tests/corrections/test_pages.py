"""The correction pages: correct with preview → apply over HTMX, 409 handling, the review queue, history, audit."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest

from corrections.models import CorrectionIntent
from tests.conftest import MakeUser, client_for
from tests.corrections.conftest import World

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def preview_over_htmx(world: World, claim_id: str, statement: str = "The launch is in July.") -> str:
    response = client_for(world.trio.reviewer).post(
        f"/w/{world.ws}/claims/{claim_id}/correct", {"statement": statement, "reason": "Board moved it."}, headers=HTMX
    )
    assert response.status_code == 200
    return response.content.decode()


def words(response: Any) -> str:
    """The page's words as a person reads them: tags out, entities decoded, white space folded."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", response.content.decode())).split())


def apply_fields(fragment: str) -> dict[str, str]:
    fields = {
        name: html.unescape(value)
        for name, value in re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', fragment)
    }
    fields.pop("csrfmiddlewaretoken", None)
    return fields


class CorrectPageTests:
    def test_preview_then_apply_over_htmx(self, world: World) -> None:
        launch = world.decision("Launch in June", [world.june])
        world.action("Send the launch announcement", launch)
        fragment = preview_over_htmx(world, world.june)
        assert fragment.lstrip().startswith('<section class="card impact" id="impact">') and "<html" not in fragment
        assert "Launch in June" in fragment and "Send the launch announcement" in fragment
        fields = apply_fields(fragment)
        assert set(fields) == {"statement", "reason", "revision", "idempotency_key", "previewed"}
        applied = client_for(world.trio.reviewer).post(
            f"/w/{world.ws}/claims/{world.june}/correct/apply", fields, headers=HTMX
        )
        assert applied.status_code == 204 and "/corrections/" in applied["HX-Redirect"]
        detail = client_for(world.trio.viewer).get(applied["HX-Redirect"]).content.decode()
        assert (
            "The launch is in June" in detail
            and "The launch is in July." in detail
            and "its only evidence: the reviewer's correction" in detail
        )

    def test_a_stale_apply_shows_a_fresh_preview_and_says_why(self, world: World) -> None:
        launch = world.decision("Launch in June", [world.june])
        fields = apply_fields(preview_over_htmx(world, world.june))
        world.action("Added meanwhile", launch)
        response = client_for(world.trio.reviewer).post(
            f"/w/{world.ws}/claims/{world.june}/correct/apply", fields, headers=HTMX
        )
        body = response.content.decode()
        assert response.status_code == 200 and "changed since your preview" in body and "Added meanwhile" in body
        assert "What changed:" in body and "The action “Added meanwhile” would now be held." in body
        assert apply_fields(body)["revision"] != fields["revision"]
        assert CorrectionIntent.objects.get().state == "refused"

    def test_correcting_an_already_superseded_claim_is_explained(self, world: World) -> None:
        fields = apply_fields(preview_over_htmx(world, world.june))
        client_for(world.trio.reviewer).post(f"/w/{world.ws}/claims/{world.june}/correct/apply", fields)
        again = client_for(world.trio.reviewer).post(
            f"/w/{world.ws}/claims/{world.june}/correct", {"statement": "x", "reason": "y"}, headers=HTMX
        )
        assert again.status_code == 409 and "already superseded" in again.content.decode()

    def test_the_form_starts_with_the_statement_and_an_unchanged_one_is_refused_in_words(self, world: World) -> None:
        page = client_for(world.trio.reviewer).get(f"/w/{world.ws}/claims/{world.june}/correct").content.decode()
        assert re.search(r'<input name="statement"[^>]*value="The launch is in June\."', page)
        for same in ("The launch is in June.", "  the launch is in june "):
            refused = client_for(world.trio.reviewer).post(
                f"/w/{world.ws}/claims/{world.june}/correct", {"statement": same, "reason": "Board."}, headers=HTMX
            )
            body = refused.content.decode()
            assert refused.status_code == 422 and "says the same as the claim" in body and 'id="impact"' not in body
        api = world.preview(world.june, "The launch is in June.")
        assert api.status_code == 422 and "says the same as the claim" in api.json()["detail"]
        # An edit of the pre-filled statement previews as before, with its restating check.
        world.decision("Launch in June", [world.june], [world.northwind])
        edited = preview_over_htmx(world, world.june, "The launch is in July.")
        assert "we were told the launch is in June" in edited[edited.index('id="restating"') :]

    def test_access(self, world: World) -> None:
        assert client_for(world.trio.viewer).get(f"/w/{world.ws}/claims/{world.june}/correct").status_code == 403
        assert client_for(world.trio.outsider).get(f"/w/{world.ws}/claims/{world.june}/correct").status_code == 404
        assert client_for(world.trio.reviewer).get(f"/w/{world.ws}/claims/nope/correct").status_code == 404


class QueueAndHistoryTests:
    def test_the_queue_rejustifies_with_the_replacement_and_the_history_lists_it(
        self, world: World, make_user: MakeUser
    ) -> None:
        launch = world.decision("Launch in June", [world.june])
        world.action("Send the launch announcement", launch)
        fields = apply_fields(preview_over_htmx(world, world.june))
        client_for(world.trio.reviewer).post(f"/w/{world.ws}/claims/{world.june}/correct/apply", fields)
        queue = client_for(world.trio.viewer).get(f"/w/{world.ws}/review/").content.decode()
        assert "Launch in June" in queue and "The launch is in July." in queue
        page = client_for(world.trio.reviewer).get(f"/w/{world.ws}/review/").content.decode()
        # Nothing is chosen for the reviewer; the replacement is only suggested, with its text.
        assert 'name="support_ids"' not in re.sub(r"<template>.*?</template>", "", page, flags=re.S)
        replacement = re.search(
            r"Suggested: the corrected statement “The launch is in July.”.*?name=\"pick\" value=\"d[0-9a-f-]+ ([0-9a-f-]+)\"",
            page,
            re.S,
        )
        assert replacement is not None
        client_for(world.trio.reviewer).post(
            f"/w/{world.ws}/review/{launch}", {"resolution": "rejustify", "support_ids": replacement.group(1)}
        )
        assert "Nothing needs review" in client_for(world.trio.viewer).get(f"/w/{world.ws}/review/").content.decode()
        history = client_for(world.trio.viewer).get(f"/w/{world.ws}/corrections/?actor=rita").content.decode()
        assert "The launch is in July." in history
        nobody = client_for(world.trio.viewer).get(f"/w/{world.ws}/corrections/?actor=nobody").content.decode()
        assert "The launch is in July." not in below_filters(nobody)
        chain = client_for(world.trio.viewer).get(f"/w/{world.ws}/claims/{world.june}/chain").content.decode()
        assert "corrected by rita" in chain and "Launch in June" in chain
        auditor = make_user("auditor", is_staff=True)
        audit = client_for(auditor).get("/audit/").content.decode()
        assert "Launch planning" in audit and "The launch is in July." in audit
        assert client_for(world.trio.reviewer).get("/audit/").status_code == 403

    def test_the_queue_and_history_follow_the_access_rules(self, world: World) -> None:
        for url in (f"/w/{world.ws}/review/", f"/w/{world.ws}/corrections/"):
            assert client_for(world.trio.outsider).get(url).status_code == 404
            assert client_for(world.trio.viewer).get(url).status_code == 200
        assert (
            client_for(world.trio.viewer).post(f"/w/{world.ws}/review/x", {"resolution": "dismiss"}).status_code == 403
        )


class ApplyErrorsTests:
    def test_a_key_reused_for_another_correction_is_explained_in_the_page(self, world: World) -> None:
        fields = apply_fields(preview_over_htmx(world, world.june))
        client_for(world.trio.reviewer).post(f"/w/{world.ws}/claims/{world.june}/correct/apply", fields)
        other = apply_fields(preview_over_htmx(world, world.ana, "Bo owns the checklist."))
        other["idempotency_key"] = fields["idempotency_key"]
        response = client_for(world.trio.reviewer).post(
            f"/w/{world.ws}/claims/{world.ana}/correct/apply", other, headers=HTMX
        )
        assert response.status_code == 422 and "different correction" in response.content.decode()

    @pytest.mark.parametrize("revision", [str(2**63), str(2**64), "1" + "0" * 30, "-1", "1.5", "abc", ""])
    def test_a_revision_no_preview_hands_out_is_refused_in_words_and_writes_nothing(
        self, world: World, revision: str
    ) -> None:
        fields = {**apply_fields(preview_over_htmx(world, world.june)), "revision": revision}
        response = client_for(world.trio.reviewer).post(
            f"/w/{world.ws}/claims/{world.june}/correct/apply", fields, headers=HTMX
        )
        body = html.unescape(response.content.decode())
        assert response.status_code == 422 and "“revision” must be the whole number the preview returned" in body
        assert not CorrectionIntent.objects.exists()
        assert client_for(world.trio.viewer).get(f"/w/{world.ws}/claims/{world.june}/").status_code == 200
        assert (
            "already superseded"
            not in client_for(world.trio.reviewer).get(f"/w/{world.ws}/claims/{world.june}/correct").content.decode()
        )


def below_filters(page: str) -> str:
    """The page after its filters (the claim filter's picker offers the newest claims)."""
    return page.split('filters-form"')[-1].split("</form>", 1)[-1]


def listed(response: Any) -> str:
    """The words of the page below its filters (the claim filter's picker offers the newest claims)."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", below_filters(response.content.decode()))).split())


class HistoryFilterTests:
    def applied(self, world: World) -> None:
        fields = apply_fields(preview_over_htmx(world, world.june))
        client_for(world.trio.reviewer).post(f"/w/{world.ws}/claims/{world.june}/correct/apply", fields)

    @pytest.mark.parametrize(
        ("query", "words"),
        [
            ("claim=not-a-claim", "“not-a-claim” is not the id of a claim; the claim filter was left out."),
            ("claim=" + "1" * 30, "is not the id of a claim; the claim filter was left out."),
            ("since=yesterday", "“yesterday” is not a date like 2026-05-12; the from filter was left out."),
            ("until=" + "9" * 40, "is not a date like 2026-05-12; the to filter was left out."),
            ("kind=sideways", "“sideways” is not a kind this list knows"),
            ("sort=reason", "This list cannot be sorted by “reason”"),
        ],
    )
    def test_a_filter_that_cannot_be_used_is_explained_and_left_out(
        self, world: World, make_user: MakeUser, query: str, words: str
    ) -> None:
        self.applied(world)
        response = client_for(world.trio.viewer).get(f"/w/{world.ws}/corrections/?{query}")
        body = html.unescape(response.content.decode())
        assert response.status_code == 200 and words in body
        assert "The launch is in July." in body and "match" not in body

    def test_valid_filters_still_select_and_the_last_day_there_is_works(self, world: World) -> None:
        self.applied(world)
        browser = client_for(world.trio.viewer)
        history = f"/w/{world.ws}/corrections/"
        for query in (
            "until=9999-12-31",
            "since=0001-01-01",
            f"claim={world.june}",
            f"claim={world.june.upper()}",
            "actor=rita",
        ):
            response = browser.get(f"{history}?{query}")
            assert response.status_code == 200 and "The launch is in July." in below_filters(response.content.decode())
        for query in ("since=9999-12-31", "actor=somebody", f"claim={world.ana}"):
            response = browser.get(f"{history}?{query}")
            body = html.unescape(response.content.decode())
            assert response.status_code == 200 and "No corrections match" in body and "Clear filters" in body, query

    def test_the_person_filter_is_partial_ignores_case_and_matches_full_names(self, world: World) -> None:
        self.applied(world)
        world.trio.reviewer.first_name, world.trio.reviewer.last_name = "Rita", "Hayworth"
        world.trio.reviewer.save()
        browser = client_for(world.trio.viewer)
        for person in ("RIT", "iT", "hayworth", "Rita H"):
            body = words(browser.get(f"/w/{world.ws}/corrections/?actor={person}"))
            assert "The launch is in July." in body and f"1 correction matches person “{person}”." in body, person
        body = words(browser.get(f"/w/{world.ws}/corrections/?actor=olivia"))
        assert "No corrections match person “olivia”. Clear filters" in body

    def test_the_kind_filter_says_what_the_correction_did(self, world: World) -> None:
        world.decision("Launch in June", [world.june])
        self.applied(world)
        browser = client_for(world.trio.viewer)
        assert "The launch is in July." in words(browser.get(f"/w/{world.ws}/corrections/?kind=review"))
        body = words(browser.get(f"/w/{world.ws}/corrections/?kind=none"))
        assert "No corrections match kind Left everything standing. Clear filters" in body
        body = words(browser.get(f"/w/{world.ws}/corrections/?kind=held"))
        assert "No corrections match kind Held actions." in body
        body = words(browser.get(f"/w/{world.ws}/corrections/?kind=unsupported"))
        assert "No corrections match kind Left derived claims unsupported." in body

    def test_a_correction_that_only_left_a_derived_claim_unsupported_is_found_by_that_kind(self, world: World) -> None:
        world.derived("The campaign starts in June.", world.june)
        self.applied(world)
        browser = client_for(world.trio.viewer)
        assert "The launch is in July." in words(browser.get(f"/w/{world.ws}/corrections/?kind=unsupported"))
        body = words(browser.get(f"/w/{world.ws}/corrections/?kind=none"))
        assert "No corrections match kind Left everything standing." in body

    def test_over_htmx_it_answers_only_the_list(self, world: World) -> None:
        self.applied(world)
        response = client_for(world.trio.viewer).get(f"/w/{world.ws}/corrections/?actor=rit", headers=HTMX)
        body = response.content.decode()
        assert body.lstrip().startswith('<section id="corrections-list"') and "<html" not in body
        assert "The launch is in July." in body

    def test_it_pages_sorts_and_counts(self, world: World, monkeypatch: pytest.MonkeyPatch) -> None:
        from dataclasses import replace

        from corrections.views import history as history_views

        monkeypatch.setattr(history_views, "HISTORY", replace(history_views.HISTORY, per_page=2))
        for claim, statement in ((world.june, "The launch is in July."), (world.ana, "Ben owns the checklist."),
                                 (world.may, "Marketing starts in June.")):  # fmt: skip
            revision = world.preview(claim, statement).json()["revision"]
            world.apply(claim, revision, key=statement, statement=statement)
        browser = client_for(world.trio.viewer)
        first = listed(browser.get(f"/w/{world.ws}/corrections/"))
        assert "1–2 of 3 corrections" in first and "Marketing starts in June." in first
        assert "The launch is in July." not in first
        last = listed(browser.get(f"/w/{world.ws}/corrections/?page=2"))
        assert "3–3 of 3 corrections" in last and "The launch is in July." in last
        oldest = listed(browser.get(f"/w/{world.ws}/corrections/?sort=applied"))
        assert "The launch is in July." in oldest and "Marketing starts in June." not in oldest


class AfterTrialTests:
    def test_a_conflict_comes_back_in_place_and_clears_the_stale_preview(self, world: World) -> None:
        tab_a = apply_fields(preview_over_htmx(world, world.june))
        tab_b = apply_fields(preview_over_htmx(world, world.june, "The launch is in August."))
        client_for(world.trio.reviewer).post(f"/w/{world.ws}/claims/{world.june}/correct/apply", tab_a, headers=HTMX)
        second_tab = client_for(world.trio.reviewer).post(
            f"/w/{world.ws}/claims/{world.june}/correct/apply", tab_b, headers=HTMX
        )
        body = second_tab.content.decode()
        assert second_tab.status_code == 409 and "superseded" in body and 'hx-swap-oob="true"' in body
        replay = client_for(world.trio.reviewer).post(
            f"/w/{world.ws}/claims/{world.june}/correct/apply", tab_a, headers=HTMX
        )
        assert replay.status_code == 204 and "/corrections/" in replay["HX-Redirect"]
        page = client_for(world.trio.reviewer).get(f"/w/{world.ws}/claims/{world.june}/correct").content.decode()
        assert "already superseded" in page and 'name="statement"' not in page
        blank = client_for(world.trio.reviewer).post(
            f"/w/{world.ws}/claims/{world.ana}/correct", {"statement": "   ", "reason": "x"}, headers=HTMX
        )
        text = blank.content.decode()
        assert blank.status_code == 422 and 'hx-swap-oob="true"' in text and text.count('id="correction-form"') == 1

    def test_a_claim_shows_the_decisions_resting_on_it_and_why_it_was_retracted(self, world: World) -> None:
        from tests.conftest import api_for

        launch = world.decision("Launch in June", [world.june], [world.northwind])
        page = client_for(world.trio.viewer).get(f"/w/{world.ws}/claims/{world.northwind}/").content.decode()
        assert "Launch in June" in page and "Nothing rests on this claim yet" not in page
        source = api_for(world.trio.viewer).get(f"/workspaces/{world.ws}/claims/{world.northwind}").json()["source_id"]
        api_for(world.trio.reviewer).post(f"/workspaces/{world.ws}/sources/{source}/retract")
        retracted = client_for(world.trio.viewer).get(f"/w/{world.ws}/claims/{world.northwind}/").content.decode()
        assert "Its source “Email” was retracted." in retracted and "Launch in June" in retracted
        refused = client_for(world.trio.reviewer).post(f"/w/{world.ws}/sources/{source}/extract", follow=True)
        assert refused.status_code == 200 and "has been retracted" in refused.content.decode()
        assert client_for(world.trio.viewer).get(f"/w/{world.ws}/decisions/{launch}/").status_code == 200
