"""The reviewer's pages for suggested corrections, on real stores: the review queue's first section (both claims
side by side, their quotes in context, who found it and why), Correct it and Correct the other one through the
correction page, Both hold and Not a contradiction (over HTMX and without JavaScript; audited; the pair never
suggested again), and the counts on the dashboard and the menu, now and as of a moment."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest

from afterhack.clock import now_iso
from tests.conftest import client_for
from tests.corrections.test_suggestions_watch import JULY, Launch, committed, launch
from tests.corrections.test_suggestions_watch import found as found  # the fixture: the suggestion July made
from workspaces.models import AuditEvent
from workspaces.selectors import dashboard as dashboard_selectors

pytestmark = pytest.mark.django_db

__all__ = ["committed", "launch"]  # fixtures

HTMX = {"HX-Request": "true"}


def text(body: str) -> str:
    """What a person reads: the page without its tags, whitespace folded."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split())


def get(launch: Launch, path: str, user: Any = None, status: int = 200) -> str:
    response = client_for(user or launch.trio.reviewer).get(f"/w/{launch.ws}/{path}")
    assert response.status_code == status, response.content[:2000]
    return response.content.decode()


class QueueTests:
    def test_the_section_comes_first_with_both_claims_and_their_quotes(
        self, launch: Launch, found: dict[str, Any]
    ) -> None:
        body = get(launch, "review/")
        read = text(body)
        assert read.index("Suggested corrections (1)") < read.index("Unanswered questions")
        item = body[body.index(f'id="suggestion-{found["id"]}"') :]
        older, newer = item.index("The launch is in June."), item.index(JULY)
        assert older < newer  # the older claim on the left
        assert (
            '<mark class="ev d1">The launch is in June.</mark>' in item and f'<mark class="ev d1">{JULY}</mark>' in item
        )
        item_text = text(item)
        assert "Launch plan" in item_text and "Email" in item_text and "the date moved." in item_text
        assert "Found by the contradiction rule" in item_text and found["reason"] in html.unescape(item)
        assert f"/w/{launch.ws}/claims/{launch.june}/correct?suggestion={found['id']}" in item
        assert f"/w/{launch.ws}/claims/{found['by_claim_id']}/correct?suggestion={found['id']}" in item
        assert "Both hold" in item_text and "Not a contradiction" in item_text
        viewer = get(launch, "review/", user=launch.trio.viewer)
        assert "Suggested corrections (1)" in text(viewer) and "Correct it" not in text(viewer)

    def test_no_suggestion_says_so(self, launch: Launch) -> None:
        assert "No suggested corrections." in text(get(launch, "review/"))


class CorrectItTests:
    def test_correct_it_fills_the_page_and_apply_accepts_it(
        self, launch: Launch, found: dict[str, Any], committed: Any
    ) -> None:
        body = get(launch, f"claims/{launch.june}/correct?suggestion={found['id']}")
        assert "Accepting a suggested correction" in body
        assert f'value="{JULY}"' in body and f'name="suggestion_id" value="{found["id"]}"' in body
        assert f'id="evidence-quote" value="{JULY}"' in body
        # Why is the suggestion's own reason, to edit: the page previews the impact at one click.
        reason = re.search(r'<textarea name="reason"[^>]*>\s*(.*?)</textarea>', body, re.S)
        assert reason and html.unescape(reason.group(1)) == found["reason"] and found["reason"]
        client = client_for(launch.trio.reviewer)
        form = {"statement": JULY, "reason": "The email says July.", "suggestion_id": found["id"],
                "evidence_source_id": launch.email, "evidence_quote": JULY,
                "evidence_start": found["evidence"]["start"]}  # fmt: skip
        previewed = client.post(f"/w/{launch.ws}/claims/{launch.june}/correct", form)
        assert previewed.status_code == 200, previewed.content[:2000]
        page = previewed.content.decode()
        revision = re.search(r'name="revision" value="(\d+)"', page)
        key = re.search(r'name="idempotency_key" value="([^"]+)"', page)
        assert revision and key and f'name="suggestion_id" value="{found["id"]}"' in page
        with committed(execute=True):
            applied = client.post(
                f"/w/{launch.ws}/claims/{launch.june}/correct/apply",
                {**form, "revision": revision.group(1), "idempotency_key": key.group(1), "previewed": ""},
            )
        assert applied.status_code == 302, applied.content[:2000]
        [accepted] = launch.suggestions("accepted")
        assert accepted["id"] == found["id"] and applied["Location"].endswith(
            f"/corrections/{accepted['correction_id']}/"
        )
        detail = text(get(launch, f"corrections/{accepted['correction_id']}/"))
        assert "suggested correction" in detail.lower() and found["reason"] in detail
        assert "No suggested corrections." in text(get(launch, "review/"))

    def test_correct_the_other_one_fills_in_the_older_claim(self, launch: Launch, found: dict[str, Any]) -> None:
        body = get(launch, f"claims/{found['by_claim_id']}/correct?suggestion={found['id']}")
        assert "Correcting the other one" in body
        assert 'value="The launch is in June."' in body and 'id="evidence-quote" value="The launch is in June."' in body

    def test_a_suggestion_of_another_claim_or_not_open_is_refused_in_words(
        self, launch: Launch, found: dict[str, Any]
    ) -> None:
        other = text(get(launch, f"claims/{launch.budget}/correct?suggestion={found['id']}", status=422))
        assert "about another claim" in other
        client_for(launch.trio.reviewer).post(
            f"/w/{launch.ws}/suggestions/{found['id']}/reject", {"verdict": "both_hold"}
        )
        closed = text(get(launch, f"claims/{launch.june}/correct?suggestion={found['id']}", status=409))
        assert "already turned down" in closed


class TurnDownTests:
    def test_both_hold_over_htmx_swaps_the_item_and_is_audited(
        self, launch: Launch, found: dict[str, Any], committed: Any
    ) -> None:
        response = client_for(launch.trio.reviewer).post(
            f"/w/{launch.ws}/suggestions/{found['id']}/reject",
            {"verdict": "both_hold", "reason": "Two launches."},
            headers=HTMX,
        )
        assert response.status_code == 200
        swapped = text(response.content.decode())
        assert "both claims hold" in swapped and "Two launches." in swapped and "<html" not in response.content.decode()
        [rejected] = launch.suggestions("rejected")
        assert rejected["both_hold"] is True and rejected["decision_reason"] == "Two launches."
        assert AuditEvent.objects.get(verb="suggestion.rejected").payload["both_hold"] is True
        # The same pair is never suggested again: the July claim once more finds nothing new.
        with committed(execute=True):
            launch.claim(launch.email, "The launch is in July.")
        assert launch.suggestions("open") == []
        again = client_for(launch.trio.reviewer).post(
            f"/w/{launch.ws}/suggestions/{found['id']}/reject", {"verdict": "both_hold"}, headers=HTMX
        )
        assert again.status_code == 409 and "already turned down" in text(again.content.decode())

    def test_not_a_contradiction_without_javascript(self, launch: Launch, found: dict[str, Any]) -> None:
        client = client_for(launch.trio.reviewer)
        response = client.post(f"/w/{launch.ws}/suggestions/{found['id']}/reject", {"verdict": "not_a_contradiction"})
        assert response.status_code == 302 and response["Location"].endswith(f"/w/{launch.ws}/review/")
        followed = text(client.get(response["Location"]).content.decode())
        assert "it is not a contradiction" in followed and "No suggested corrections." in followed
        assert launch.suggestions("rejected")[0]["both_hold"] is False
        viewer = client_for(launch.trio.viewer).post(
            f"/w/{launch.ws}/suggestions/{found['id']}/reject", {"verdict": "both_hold"}
        )
        assert viewer.status_code == 403
        bad = client.post(f"/w/{launch.ws}/suggestions/{found['id']}/reject", {"verdict": "maybe"})
        assert bad.status_code == 302 and AuditEvent.objects.filter(verb="suggestion.rejected").count() == 1


def open_then(launch: Launch, moment: str, column: str = "suggested") -> int:
    """The open suggestions the dashboard counts as of the moment (suggested corrections, or another column)."""
    then = dashboard_selectors.dashboard_as_of(workspace=launch.trio.workspace, as_of=moment).attention
    assert then is not None
    return int(getattr(then, column))


class CountTests:
    def test_the_dashboard_and_the_menu_count_open_suggestions_now_and_then(
        self, launch: Launch, committed: Any
    ) -> None:
        before = now_iso()
        dashboard = text(get(launch, ""))
        assert "suggested correction" not in dashboard.replace("0 suggested corrections", "")
        with committed(execute=True):
            launch.claim(launch.email, JULY)
        dashboard = text(get(launch, ""))
        assert "1 suggested correction" in dashboard
        review = get(launch, "review/")
        assert re.search(r"aria-label=\"Review, 1 needs? attention\"", review)
        found = now_iso()
        [suggestion] = launch.suggestions()
        client_for(launch.trio.reviewer).post(
            f"/w/{launch.ws}/suggestions/{suggestion['id']}/reject", {"verdict": "not_a_contradiction"}
        )
        assert [open_then(launch, moment) for moment in (before, found, now_iso())] == [0, 1, 0]
        assert "1 suggested correction" not in text(get(launch, ""))
        then = client_for(launch.trio.reviewer).get(f"/w/{launch.ws}/", {"as_of": found})
        assert then.status_code == 200 and "1 suggested correction open then" in text(then.content.decode())
