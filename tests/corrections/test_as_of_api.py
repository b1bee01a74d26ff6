"""The past through the JSON API (docs/api.md, The past): `?as_of=` on a claim, a decision, an action and
the claim search, and `GET …/changes` paginated — the June → July story on the real stores."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pytest

from afterhack.clock import now_iso
from corrections import review
from corrections.models import CorrectionIntent
from tests.conftest import api_for
from tests.corrections.conftest import World, june_to_july

pytestmark = pytest.mark.django_db


def get(world: World, path: str, user: Any = None, **params: str) -> Any:
    query = "?" + urlencode(params) if params else ""
    return api_for(user or world.trio.viewer).get(f"/workspaces/{world.ws}/{path}{query}")


class JuneToJulyApiTests:
    def test_before_the_correction_it_says_june_after_it_is_superseded(self, world: World) -> None:
        launch, announce, before, after = june_to_july(world)
        replacement = str(CorrectionIntent.objects.get().replacement_claim_id)

        claim = get(world, f"claims/{world.june}", as_of=before)
        assert claim.status_code == 200, claim.content
        body = claim.json()
        assert (body["status"], body["statement"], body["superseded_by"]) == ("current", "The launch is in June.", None)
        assert body["evidence_quote"] == "The launch is in June" and body["fragment"]["text"]
        decision = get(world, f"decisions/{launch}", as_of=before).json()
        assert (decision["status"], decision["review_reason"]) == ("supported", None)
        assert decision["justifications"] == [[world.june]] and decision["superseded_by"] is None
        action = get(world, f"actions/{announce}", as_of=before).json()
        assert (action["status"], action["decision_ids"]) == ("pending", [launch])

        claim = get(world, f"claims/{world.june}", as_of=after).json()
        assert (claim["status"], claim["superseded_by"]) == ("superseded", replacement)
        decision = get(world, f"decisions/{launch}", as_of=after).json()
        assert decision["status"] == "needs_review" and "July" in decision["review_reason"]
        assert get(world, f"actions/{announce}", as_of=after).json()["status"] == "held"

        # Without as_of: the present, as before.
        assert get(world, f"claims/{world.june}").json()["status"] == "superseded"

    def test_before_a_thing_existed_it_is_not_found(self, world: World) -> None:
        early = "2000-01-01T00:00:00Z"
        launch, announce, before, _ = june_to_july(world)
        replacement = str(CorrectionIntent.objects.get().replacement_claim_id)
        for path in (f"claims/{world.june}", f"decisions/{launch}", f"actions/{announce}"):
            answer = get(world, path, as_of=early)
            assert answer.status_code == 404 and answer.json()["error"] == "not_found", path
            assert "as of 2000-01-01T00:00:00.000000+00:00: it did not exist yet" in answer.json()["detail"]
        assert get(world, f"claims/{replacement}", as_of=before).status_code == 404
        assert get(world, f"claims/{replacement}", as_of=now_iso()).status_code == 200

    def test_a_non_member_is_not_told_anything_of_the_past(self, world: World) -> None:
        _, _, before, _ = june_to_july(world)
        answer = get(world, f"claims/{world.june}", user=world.trio.outsider, as_of=before)
        assert answer.status_code == 404
        assert get(world, "changes", user=world.trio.outsider).status_code == 404

    def test_the_changes_between_name_the_correction_and_the_reviewer(self, world: World) -> None:
        launch, announce, before, after = june_to_july(world)
        correction = str(CorrectionIntent.objects.get().correction_id)
        page = get(world, "changes", **{"from": before, "to": after})
        assert page.status_code == 200, page.content
        body = page.json()
        assert body["count"] == 3 and body["next"] is None
        assert [(c["kind"], c["id"], c["from_status"], c["to_status"]) for c in body["results"]] == [
            ("action", announce, "pending", "held"),
            ("claim", world.june, "current", "superseded"),
            ("decision", launch, "supported", "needs_review"),
        ]
        assert {(c["cause"]["kind"], c["cause"]["id"], c["actor"]) for c in body["results"]} == {
            ("correction", correction, "rita")
        }
        assert len({c["at"] for c in body["results"]}) == 1
        # Open ends; a window before the story holds nothing.
        assert get(world, "changes").json()["count"] == 3
        assert get(world, "changes", to=before).json() == {"results": [], "next": None, "count": 0}
        # A day alone: "from" that day includes it (its start), "to" that day too (its end).
        day = body["results"][0]["at"][:10]
        assert get(world, "changes", **{"from": day, "to": day}).json()["count"] == 3

    def test_changes_page_through_one_write_that_changed_several_nodes(self, world: World) -> None:
        launch, announce, _, _ = june_to_july(world)
        review.decision_dismiss(workspace=world.trio.workspace, decision_id=launch, actor=world.trio.reviewer)
        everything = get(world, "changes", limit="200").json()
        assert everything["count"] == 5
        seen: list[dict[str, Any]] = []
        page = get(world, "changes", limit="2").json()
        while True:
            assert page["count"] == 5 and len(page["results"]) <= 2
            seen += page["results"]
            if page["next"] is None:
                break
            page = get(world, "changes", limit="2", cursor=page["next"]).json()
        assert seen == everything["results"]
        # Oldest first; one write's changes (three at the correction's `at`) by kind, then id.
        assert [(c["kind"], c["cause"]["kind"]) for c in seen] == [
            ("action", "correction"), ("claim", "correction"), ("decision", "correction"),
            ("action", "dismissal"), ("decision", "dismissal"),
        ]  # fmt: skip
        assert [c["id"] for c in seen[3:]] == [announce, launch]


class SearchAsOfApiTests:
    def test_search_as_of_lists_what_existed_then_as_it_was(self, world: World) -> None:
        _, _, before, after = june_to_july(world)
        replacement = str(CorrectionIntent.objects.get().replacement_claim_id)

        def found(**params: str) -> dict[str, str]:
            answer = get(world, "claims", q="launch", **params)
            assert answer.status_code == 200, answer.content
            return {claim["id"]: claim["status"] for claim in answer.json()["results"]}

        assert found(as_of="2000-01-01") == {}
        then = found(as_of=before)
        assert then[world.june] == "current" and replacement not in then
        assert found(as_of=after)[world.june] == "superseded" and found(as_of=after)[replacement] == "current"

    def test_search_pages_as_of_hold_their_moment(self, world: World) -> None:
        _, _, before, _ = june_to_july(world)
        first = get(world, "claims", q="launch", limit="1", as_of=before).json()
        assert first["count"] == 3 and first["next"]  # June, Northwind and the board: the replacement is later
        rest = get(world, "claims", q="launch", limit="200", as_of=before, cursor=first["next"]).json()
        assert len(rest["results"]) == 2 and rest["next"] is None
        assert {c["status"] for c in first["results"] + rest["results"]} == {"current"}
        # The cursor belongs to that moment: the present, or another moment, refuses it in words.
        for params in ({}, {"as_of": now_iso()}):
            refused = get(world, "claims", q="launch", cursor=first["next"], **params)
            assert refused.status_code == 422 and "cursor" in refused.json()["detail"]


class BadMomentsTests:
    @pytest.mark.parametrize("moment", ["nonsense", "²", "2026-13-01", "", "12 May"])
    def test_a_moment_that_is_not_one_is_refused_in_words(self, world: World, moment: str) -> None:
        launch, announce, _, _ = june_to_july(world)
        for path in (f"claims/{world.june}", f"decisions/{launch}", f"actions/{announce}", "claims"):
            answer = get(world, path, as_of=moment)
            assert answer.status_code == 422, (path, answer.content)
            assert answer.json()["error"] == "invalid_input"
            assert "“as_of” must be a moment in ISO 8601" in answer.json()["detail"]
        answer = get(world, "changes", **{"from": moment})
        assert answer.status_code == 422 and "“from” must be a moment" in answer.json()["detail"]

    def test_from_after_to_and_a_cursor_from_elsewhere_are_refused(self, world: World) -> None:
        june_to_july(world)
        answer = get(world, "changes", **{"from": "2026-05-13", "to": "2026-05-12"})
        assert answer.status_code == 422 and answer.json()["detail"].startswith("“from” must not be after “to”")
        page = get(world, "changes", limit="1").json()
        assert page["next"]
        elsewhere = get(world, "changes", limit="1", cursor=page["next"], **{"from": "2000-01-01"})
        assert elsewhere.status_code == 422 and "cursor" in elsewhere.json()["detail"]
        borrowed = get(world, "decisions", cursor=page["next"])
        assert borrowed.status_code == 422 and "cursor" in borrowed.json()["detail"]
        too_long = get(world, f"claims/{world.june}", as_of="2026-05-12T09:30:00Z" * 10)
        assert too_long.status_code == 422 and "“as_of” must be a moment" in too_long.json()["detail"]


class PresentListsTests:
    def test_a_list_of_the_present_refuses_as_of_in_words(self, world: World) -> None:
        june_to_july(world)
        for path in ("decisions", "actions"):
            refused = get(world, path, as_of="2026-01-01")
            assert refused.status_code == 422, path
            assert refused.json()["error"] == "invalid_input" and "shows the present" in refused.json()["detail"]
            assert get(world, path).status_code == 200
