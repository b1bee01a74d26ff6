"""Agent claims may need approval, on real stores: the workspace setting (admins only, audited), an agent's claim
stored `proposed` with its open agent_claim suggestion in the same write, searchable with its badge, never citable
(refused in words), not watched until approved; approve (one, many) makes it current, citable and watched; reject
makes it `rejected` for good; 409 once decided; nothing stored on any refusal."""

from __future__ import annotations

import json
from typing import Any

import pytest

from afterhack import graph
from afterhack.errors import Conflict
from benchmarks.llm_server import json_reply
from claims.services import claims as claims_services
from claims.services import sources as sources_services
from tests.conftest import Trio, api_for, client_for
from tests.corrections.test_suggestions_watch import Launch, committed, launch, suggestions_stored
from workspaces.models import AuditEvent, Workspace

pytestmark = pytest.mark.django_db

__all__ = ["committed", "launch"]  # fixtures

JULY = "The launch is in July."


def patch(user: Any, path: str, body: Any) -> Any:
    api = api_for(user)
    return api.client.patch(
        "/api/v1" + path, data=json.dumps(body), content_type="application/json", headers=api.headers
    )


def need_approval(launch: Launch, on: bool = True) -> None:
    """Turns the setting on (or off) as the workspace's admin does, over the API."""
    response = patch(launch.trio.owner, f"/workspaces/{launch.ws}", {"agent_claims_need_approval": on})
    assert response.status_code == 200, response.content
    assert response.json()["agent_claims_need_approval"] is on
    launch.trio.workspace = Workspace.objects.get(pk=launch.trio.workspace.pk)


def agent_claim(launch: Launch, quote: str = JULY, source_id: str = "", actor: Any = None) -> str:
    """A claim proposed by an agent (as MCP's propose_claim adds it), holding the admin's token unless `actor` is
    given: the reviewer (rita) approves it, as nobody approves a claim their own agent proposed."""
    return claims_services.claim_add(
        workspace=launch.trio.workspace, source_id=source_id or launch.email, statement=quote, evidence_quote=quote,
        actor=actor or launch.trio.owner, by_agent=True,
    ).id  # fmt: skip


def claim_status(launch: Launch, claim_id: str) -> str:
    return str(api_for(launch.trio.viewer).get(f"/workspaces/{launch.ws}/claims/{claim_id}").json()["status"])


def agent_suggestions(launch: Launch, status: str = "open") -> list[dict[str, Any]]:
    response = api_for(launch.trio.viewer).get(f"/workspaces/{launch.ws}/suggestions?status={status}&kind=agent_claim")
    assert response.status_code == 200, response.content
    return list(response.json()["results"])


def decide(launch: Launch, claim_id: str, user: Any = None) -> Any:
    body = {"title": "Plan the launch party for July", "justifications": [[claim_id]]}
    return api_for(user or launch.trio.reviewer).post(f"/workspaces/{launch.ws}/decisions", body)


def decisions_stored(launch: Launch) -> int:
    return int(graph.ro_query(launch.trio.workspace, "MATCH (d:Decision) RETURN count(d)")[0][0])


def approve(launch: Launch, suggestion_id: str, user: Any = None) -> Any:
    path = f"/workspaces/{launch.ws}/suggestions/{suggestion_id}/approve"
    return api_for(user or launch.trio.reviewer).post(path, {})


class SettingTests:
    def test_off_by_default_an_agents_claim_is_current_as_today(self, launch: Launch, committed: Any) -> None:
        assert launch.trio.workspace.agent_claims_need_approval is False
        with committed(execute=True):
            july = agent_claim(launch)
        assert claim_status(launch, july) == "current"
        assert agent_suggestions(launch) == []
        # Watched at once: the contradiction with June is suggested.
        assert [s["by_claim_id"] for s in launch.suggestions()] == [july]
        assert decide(launch, july).status_code == 201
        # And the review queue has no section for claims that never wait here.
        queue = client_for(launch.trio.viewer).get(f"/w/{launch.ws}/review/").content.decode()
        assert "Claims proposed by agents" not in queue and "Suggested corrections" in queue

    def test_only_admins_change_it_and_the_change_is_audited(self, launch: Launch) -> None:
        path = f"/workspaces/{launch.ws}"
        for user, code in ((launch.trio.reviewer, 403), (launch.trio.viewer, 403), (launch.trio.outsider, 404)):
            refused = patch(user, path, {"agent_claims_need_approval": True})
            assert refused.status_code == code, refused.content
            assert refused.json()["detail"]
        assert Workspace.objects.get(pk=launch.trio.workspace.pk).agent_claims_need_approval is False
        bad = patch(launch.trio.owner, path, {"agent_claims_need_approval": "yes"})
        assert bad.status_code == 422 and "true or false" in bad.json()["detail"]
        need_approval(launch)
        event = AuditEvent.objects.filter(workspace=launch.trio.workspace, verb="workspace.changed").get()
        assert event.payload == {
            "fields": ["agent_claims_need_approval"], "from": {"agent_claims_need_approval": False},
            "to": {"agent_claims_need_approval": True},
        }  # fmt: skip
        need_approval(launch)  # the same value again: no change, no event
        assert AuditEvent.objects.filter(verb="workspace.changed").count() == 1

    def test_admins_change_it_on_the_members_page(self, launch: Launch) -> None:
        page = client_for(launch.trio.owner).get(f"/w/{launch.ws}/members/")
        assert page.status_code == 200 and "agent_claims_need_approval" in page.content.decode()
        url = f"/w/{launch.ws}/settings"
        assert client_for(launch.trio.reviewer).post(url, {"agent_claims_need_approval": "on"}).status_code == 403
        assert Workspace.objects.get(pk=launch.trio.workspace.pk).agent_claims_need_approval is False
        changed = client_for(launch.trio.owner).post(url, {"agent_claims_need_approval": "on"})
        assert changed.status_code == 302
        assert Workspace.objects.get(pk=launch.trio.workspace.pk).agent_claims_need_approval is True
        client_for(launch.trio.owner).post(url, {})
        assert Workspace.objects.get(pk=launch.trio.workspace.pk).agent_claims_need_approval is False


class ProposedTests:
    def test_an_agents_claim_waits_proposed_with_its_suggestion_searchable_and_not_watched(
        self, launch: Launch, committed: Any
    ) -> None:
        need_approval(launch)
        with committed(execute=True):
            july = agent_claim(launch)
        assert claim_status(launch, july) == "proposed"
        [suggestion] = agent_suggestions(launch)
        start = claims_services.claim_required(launch.trio.workspace, july).start
        assert start is not None
        assert suggestion["claim_id"] == july and suggestion["by_claim_id"] is None
        assert suggestion["found_by"] == "agent" and suggestion["statement"] == JULY and suggestion["reason"]
        assert suggestion["evidence"] == {"source_id": launch.email, "quote": JULY, "start": start, "end": start + 22}
        # Not watched: no contradiction with June is suggested while it waits.
        assert launch.suggestions() == [suggestion]
        found = api_for(launch.trio.viewer).get(f"/workspaces/{launch.ws}/claims?q=launch+July").json()
        assert {(hit["id"], hit["status"]) for hit in found["results"]} >= {(july, "proposed")}
        page = client_for(launch.trio.viewer).get(f"/w/{launch.ws}/claims/?q=July").content.decode()
        assert 'class="badge st-proposed"' in page and "proposed (awaiting approval)" in page
        # Humans' claims are never held back.
        assert claim_status(launch, launch.claim(launch.email, "From Ana, on Monday")) == "current"
        # The same proposal again is the same claim, still waiting.
        assert agent_claim(launch) == july and len(agent_suggestions(launch)) == 1

    def test_a_proposed_claim_is_never_cited_and_the_refusal_says_why(self, launch: Launch) -> None:
        need_approval(launch)
        july = agent_claim(launch)
        refused = decide(launch, july)
        assert refused.status_code == 422, refused.content
        assert "not approved it yet" in refused.json()["detail"] and july in refused.json()["detail"]
        derived = api_for(launch.trio.reviewer).post(
            f"/workspaces/{launch.ws}/claims", {"statement": "The party is in July.", "derived_from": [july]}
        )
        assert derived.status_code == 422 and "not approved it yet" in derived.json()["detail"]
        assert decisions_stored(launch) == 0
        assert int(graph.ro_query(launch.trio.workspace, "MATCH (c:Claim) RETURN count(c)")[0][0]) == 3

    def test_a_models_extraction_waits_too(self, trio: Trio, committed: Any, llm: Any) -> None:
        Workspace.objects.filter(pk=trio.workspace.pk).update(agent_claims_need_approval=True)
        llm.script(
            json_reply({"claims": [{"statement": "The launch is in June.", "evidence_quote": "The launch is in June"}]})
        )
        source = sources_services.source_add(
            workspace=trio.workspace, title="Plan", text="The launch is in June. Ana owns it.\n", actor=trio.reviewer
        )
        client = api_for(trio.reviewer)
        with committed(execute=True):
            assert client.post(f"/workspaces/{trio.workspace.id}/sources/{source.id}/extract").status_code == 202
        [claim] = client.get(f"/workspaces/{trio.workspace.id}/sources/{source.id}").json()["claims"]
        assert claim["status"] == "proposed"
        listed = client.get(f"/workspaces/{trio.workspace.id}/suggestions?kind=agent_claim").json()["results"]
        assert [(s["claim_id"], s["found_by"]) for s in listed] == [(claim["id"], "agent")]


class ApproveTests:
    def test_approved_it_is_current_citable_and_watched(self, launch: Launch, committed: Any) -> None:
        need_approval(launch)
        july = agent_claim(launch)
        [waiting] = agent_suggestions(launch)
        assert approve(launch, waiting["id"], launch.trio.viewer).status_code == 403
        assert claim_status(launch, july) == "proposed"
        with committed(execute=True):
            approved = approve(launch, waiting["id"])
        assert approved.status_code == 200, approved.content
        assert approved.json()["status"] == "accepted" and approved.json()["decided_by"] == "rita"
        assert claim_status(launch, july) == "current"
        # Watched once approved: June is now suggested for correction, by July.
        [contradiction] = [s for s in launch.suggestions() if s["kind"] == "contradiction"]
        assert contradiction["claim_id"] == launch.june and contradiction["by_claim_id"] == july
        assert decide(launch, july).status_code == 201
        assert AuditEvent.objects.filter(verb="suggestion.approved", payload__claim_id=july).count() == 1
        # The history says who approved it and when: proposed → current, caused by the review.
        changes = graph.ro_query(
            launch.trio.workspace,
            "MATCH (x:Change {id: $id}) RETURN x.from_status, x.to_status, x.cause, x.cause_id, x.actor",
            {"id": july},
        )
        assert changes == [["proposed", "current", "claim_review", waiting["id"], "rita"]]
        again = approve(launch, waiting["id"])
        assert again.status_code == 409 and again.json()["error"] == "conflict" and "already" in again.json()["detail"]

    def test_rejected_it_never_becomes_current(self, launch: Launch, committed: Any) -> None:
        need_approval(launch)
        july = agent_claim(launch)
        [waiting] = agent_suggestions(launch)
        path = f"/workspaces/{launch.ws}/suggestions/{waiting['id']}/reject"
        with committed(execute=True):
            rejected = api_for(launch.trio.reviewer).post(path, {"reason": "The email is a draft."})
        assert rejected.status_code == 200 and rejected.json()["status"] == "rejected"
        assert claim_status(launch, july) == "rejected"
        assert launch.suggestions() == []  # never watched
        assert decide(launch, july).status_code == 422 and decisions_stored(launch) == 0
        assert approve(launch, waiting["id"]).status_code == 409
        assert api_for(launch.trio.reviewer).post(path, {}).status_code == 409
        with pytest.raises(Conflict, match="rejected"):
            agent_claim(launch)  # proposed again: refused, nothing new stored
        assert len(agent_suggestions(launch, "rejected")) == 1 and suggestions_stored(launch.trio) == 1
        [change] = graph.ro_query(
            launch.trio.workspace, "MATCH (x:Change {id: $id}) RETURN x.to_status, x.cause", {"id": july}
        )
        assert change == ["rejected", "claim_review"]

    def test_a_contradiction_is_not_approved(self, launch: Launch, committed: Any) -> None:
        with committed(execute=True):
            launch.claim(launch.email, JULY)
        [contradiction] = launch.suggestions()
        refused = approve(launch, contradiction["id"])
        assert refused.status_code == 409 and "corrected or turned down" in refused.json()["detail"]
        assert launch.suggestions() == [contradiction]
        missing = approve(launch, "00000000-0000-4000-8000-000000000000")
        assert missing.status_code == 404 and "suggestion" in missing.json()["detail"]

    def test_many_at_once_each_decided_or_said_why_not(self, launch: Launch, committed: Any) -> None:
        with committed(execute=True):
            launch.claim(launch.email, "From Ana, on Monday")
        need_approval(launch)
        july = agent_claim(launch)
        moved = agent_claim(launch, "the date moved")
        ids = {s["claim_id"]: s["id"] for s in agent_suggestions(launch)}
        approve(launch, ids[moved])
        unknown = "00000000-0000-4000-8000-000000000000"
        client = api_for(launch.trio.reviewer)
        path = f"/workspaces/{launch.ws}/suggestions/approve"
        assert api_for(launch.trio.viewer).post(path, {"ids": [ids[july]]}).status_code == 403
        assert client.post(path, {"ids": []}).status_code == 422
        with committed(execute=True):
            answer = client.post(path, {"ids": [ids[july], ids[moved], unknown, ids[july]]})
        assert answer.status_code == 200, answer.content
        body = answer.json()
        assert body["decided"] == 1
        assert [(r["id"], r["outcome"]) for r in body["results"]] == [
            (ids[july], "approved"), (ids[moved], "not_open"), (unknown, "not_found"),
        ]  # fmt: skip
        assert all(r["detail"] for r in body["results"]) and body["results"][0]["suggestion"]["status"] == "accepted"
        assert claim_status(launch, july) == "current" and claim_status(launch, moved) == "current"

    def test_a_decided_one_is_refused_in_words_that_say_what_it_is(self, launch: Launch) -> None:
        need_approval(launch)
        july, moved = agent_claim(launch), agent_claim(launch, "the date moved")
        ids = {s["claim_id"]: s["id"] for s in agent_suggestions(launch)}
        assert approve(launch, ids[july]).status_code == 200
        reject = api_for(launch.trio.reviewer).post(f"/workspaces/{launch.ws}/suggestions/{ids[moved]}/reject", {})
        assert reject.status_code == 200
        approved_again = approve(launch, ids[july])
        assert approved_again.status_code == 409 and approved_again.json()["detail"] == (
            "This suggestion is already approved (its claim is current); only an open suggestion can be approved "
            "(nothing was stored)."
        )
        rejected_then_approved = approve(launch, ids[moved])
        assert rejected_then_approved.status_code == 409 and rejected_then_approved.json()["detail"] == (
            "This suggestion is already rejected (its claim will never be current); only an open suggestion can be "
            "approved (nothing was stored)."
        )
        turned_down = api_for(launch.trio.reviewer).post(f"/workspaces/{launch.ws}/suggestions/reject",
                                                         {"ids": [ids[july], ids[moved]]})  # fmt: skip
        assert [r["detail"] for r in turned_down.json()["results"]] == [
            "This suggestion is already approved (its claim is current); only an open suggestion can be turned down "
            "(nothing was stored).",
            "This suggestion is already rejected (its claim will never be current); only an open suggestion can be "
            "turned down (nothing was stored).",
        ]
        assert claim_status(launch, july) == "current" and claim_status(launch, moved) == "rejected"

    def test_an_approved_agents_claim_is_no_suggestion_a_correction_used_in_the_prov_export(
        self, launch: Launch
    ) -> None:
        need_approval(launch)
        july = agent_claim(launch)
        [waiting] = agent_suggestions(launch)
        assert approve(launch, waiting["id"]).status_code == 200
        exported = api_for(launch.trio.viewer).get(f"/workspaces/{launch.ws}/prov?format=json")
        assert exported.status_code == 200, exported.content
        text = exported.content.decode()
        assert july in text and waiting["id"] not in text and "ah:Suggestion" not in text

    def test_many_rejected_at_once(self, launch: Launch) -> None:
        need_approval(launch)
        july, moved = agent_claim(launch), agent_claim(launch, "the date moved")
        ids = [s["id"] for s in agent_suggestions(launch)]
        answer = api_for(launch.trio.reviewer).post(f"/workspaces/{launch.ws}/suggestions/reject", {"ids": ids})
        assert answer.status_code == 200 and answer.json()["decided"] == 2
        assert {r["outcome"] for r in answer.json()["results"]} == {"rejected"}
        assert claim_status(launch, july) == claim_status(launch, moved) == "rejected"
        assert AuditEvent.objects.filter(verb="suggestion.claim_rejected").count() == 2


class QueuePageTests:
    def test_the_queue_lists_them_and_a_reviewer_approves_or_rejects_from_it(self, launch: Launch) -> None:
        need_approval(launch)
        july, moved, monday = (
            agent_claim(launch),
            agent_claim(launch, "the date moved"),
            agent_claim(launch, "on Monday"),
        )
        ids = {s["claim_id"]: s["id"] for s in agent_suggestions(launch)}
        queue = f"/w/{launch.ws}/review/"
        page = client_for(launch.trio.viewer).get(queue).content.decode()
        assert "Claims proposed by agents" in page and JULY in page and "Approve selected" not in page
        # They wait in their own section, not among the suggested corrections, nor in those's count.
        assert 'Suggested corrections <span class="count muted">(0)</span>' in page, page
        dashboard = client_for(launch.trio.viewer).get(f"/w/{launch.ws}/").content.decode()
        assert "<strong>0</strong> suggested corrections" in dashboard
        url = f"/w/{launch.ws}/proposed-claims"
        assert client_for(launch.trio.viewer).post(url, {"approve_one": ids[july]}).status_code == 403
        reviewer = client_for(launch.trio.reviewer)
        page = reviewer.get(queue).content.decode()
        assert "Approve selected" in page and f'value="{ids[july]}"' in page
        assert reviewer.post(url, {"approve_one": ids[july]}).status_code == 302
        assert claim_status(launch, july) == "current"
        nothing = reviewer.post(url, {"action": "approve"}, follow=True).content.decode()
        assert "Select at least one claim first." in nothing
        answered = reviewer.post(url, {"action": "reject", "ids": [ids[moved], ids[july]]}, follow=True)
        text = answered.content.decode()
        assert "1 claim rejected." in text and "1 left as they were" in text
        assert claim_status(launch, moved) == "rejected"
        reviewer.post(url, {"action": "approve_all", "listed": [ids[monday]]})
        assert claim_status(launch, monday) == "current"
        assert "No claims wait for approval." in reviewer.get(queue).content.decode()

    def test_the_queue_says_nothing_needs_review_only_while_no_agents_claim_waits(self, launch: Launch) -> None:
        queue = f"/w/{launch.ws}/review/"
        need_approval(launch)
        assert "Nothing needs review." in client_for(launch.trio.viewer).get(queue).content.decode()
        agent_claim(launch)
        page = client_for(launch.trio.viewer).get(queue).content.decode()
        assert 'Claims proposed by agents <span class="count muted">(1)</span>' in page
        assert "Nothing needs review." not in page
        # Approval turned off again: the claim proposed meanwhile still waits, and is still something to review.
        need_approval(launch, on=False)
        page = client_for(launch.trio.viewer).get(queue).content.decode()
        assert "proposed while it was on" in page and "Nothing needs review." not in page
        [waiting] = agent_suggestions(launch)
        api_for(launch.trio.reviewer).post(f"/workspaces/{launch.ws}/suggestions/{waiting['id']}/reject", {})
        page = client_for(launch.trio.viewer).get(queue).content.decode()
        assert "Claims proposed by agents" not in page and "Nothing needs review." in page


class PagesTests:
    def test_the_claim_and_source_pages_say_it_waits_or_was_rejected(self, launch: Launch) -> None:
        need_approval(launch)
        july = agent_claim(launch)
        browser = client_for(launch.trio.viewer)
        page = browser.get(f"/w/{launch.ws}/claims/{july}/").content.decode()
        assert "Proposed by an agent" in page and "#proposed" in page and "badge st-proposed" in page
        source = browser.get(f"/w/{launch.ws}/sources/{launch.email}/").content.decode()
        assert JULY in source and "st-proposed" in source
        [waiting] = agent_suggestions(launch)
        api_for(launch.trio.reviewer).post(f"/workspaces/{launch.ws}/suggestions/{waiting['id']}/reject", {})
        page = browser.get(f"/w/{launch.ws}/claims/{july}/").content.decode()
        assert "a reviewer turned it down" in page
