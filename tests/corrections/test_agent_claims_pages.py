"""The pages of agents' proposed claims, as a reviewer uses them (found trying it in a browser): a row's Reject takes
an optional reason, recorded on the suggestion, audited and shown in the claim's history; the queue's opening words say
that claims wait, and the queue names the agent that proposed each."""

from __future__ import annotations

from typing import Any

import pytest

from afterhack.text import MAX_REASON_CHARS
from tests.conftest import client_for
from tests.corrections.test_agent_claims import JULY, agent_claim, agent_suggestions, claim_status, need_approval
from tests.corrections.test_suggestions_watch import Launch, launch
from workspaces.models import AuditEvent

pytestmark = pytest.mark.django_db

__all__ = ["launch"]  # fixtures

WHY = "The email is a draft; Ana has not sent it."


def queue(launch: Launch, user: Any = None) -> str:
    return str(client_for(user or launch.trio.reviewer).get(f"/w/{launch.ws}/review/").content.decode())


class RejectWithReasonTests:
    def test_a_rows_reject_records_its_reason_audits_it_and_the_claim_page_shows_it(self, launch: Launch) -> None:
        need_approval(launch)
        july = agent_claim(launch)
        [waiting] = agent_suggestions(launch)
        page = queue(launch)
        # The row's reason and its button belong to a form of their own (Enter in the reason rejects this claim).
        assert f'form="reject-{waiting["id"]}"' in page and f'id="reject-{waiting["id"]}"' in page
        url = f"/w/{launch.ws}/proposed-claims"
        answered = client_for(launch.trio.reviewer).post(
            url, {"reject_one": waiting["id"], "reason": f"  {WHY}  "}, follow=True
        )
        assert "1 claim rejected." in answered.content.decode()
        assert claim_status(launch, july) == "rejected"
        [rejected] = agent_suggestions(launch, "rejected")
        assert rejected["decision_reason"] == WHY
        event = AuditEvent.objects.get(verb="suggestion.claim_rejected", payload__claim_id=july)
        assert event.payload["reason"] == WHY
        claim_page = client_for(launch.trio.viewer).get(f"/w/{launch.ws}/claims/{july}/").content.decode()
        assert f"saying why: “{WHY}”" in claim_page
        # It reads as an agent's claim rejected, not as a suggested correction turned down.
        assert "rejected the agent’s claim" in claim_page.replace("&#x27;", "’").replace("'", "’")
        assert "turned down the suggestion" not in claim_page

    def test_a_reason_too_long_is_refused_in_words_and_nothing_is_decided(self, launch: Launch) -> None:
        need_approval(launch)
        july = agent_claim(launch)
        [waiting] = agent_suggestions(launch)
        url = f"/w/{launch.ws}/proposed-claims"
        answered = client_for(launch.trio.reviewer).post(
            url, {"reject_one": waiting["id"], "reason": "x" * (MAX_REASON_CHARS + 1)}, follow=True
        )
        assert f"at most {MAX_REASON_CHARS:,} characters" in answered.content.decode()
        assert claim_status(launch, july) == "proposed" and agent_suggestions(launch) == [waiting]
        assert not AuditEvent.objects.filter(verb="suggestion.claim_rejected").exists()


class QueueWordsTests:
    def test_the_queue_says_above_that_claims_wait_and_names_the_agent_of_each(self, launch: Launch) -> None:
        assert "Claims that agents proposed" not in queue(launch)
        need_approval(launch)
        # On, nothing waiting yet: the queue's opening words point to the (empty) section.
        assert '<a href="#proposed">Claims proposed by agents</a> (0)' in queue(launch)
        agent_claim(launch)
        for user in (launch.trio.reviewer, launch.trio.viewer):
            page = queue(launch, user)
            assert '<a href="#proposed">Claims proposed by agents</a> (1)' in page and JULY in page
        # Who proposed it: the account whose token the agent holds.
        assert f"by {launch.trio.owner.username}," in queue(launch)
