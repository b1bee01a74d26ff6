"""Corrections through the API on the real stores: preview, apply, propagation, idempotency, staleness."""

from __future__ import annotations

import pytest

from afterhack import graph
from corrections.graph.subgraph import MAX_REVISION
from corrections.models import CorrectionIntent
from tests.conftest import MakeUser, api_for, client_for
from tests.corrections.conftest import World
from workspaces.models import AuditEvent

pytestmark = pytest.mark.django_db


def claim(world: World, claim_id: str) -> dict:
    return dict(api_for(world.trio.viewer).get(f"/workspaces/{world.ws}/claims/{claim_id}").json())


def decision(world: World, decision_id: str) -> dict:
    return dict(api_for(world.trio.viewer).get(f"/workspaces/{world.ws}/decisions/{decision_id}").json())


def action(world: World, action_id: str) -> dict:
    return dict(api_for(world.trio.viewer).get(f"/workspaces/{world.ws}/actions/{action_id}").json())


class JuneToJulyTests:
    def test_the_story_end_to_end(self, world: World) -> None:
        launch = world.decision("Launch in June", [world.june])
        announce = world.action("Send the launch announcement", launch)
        preview = world.preview(world.june)
        assert preview.status_code == 200
        body = preview.json()
        assert body["claim_id"] == world.june and isinstance(body["revision"], int)
        assert body["affected"] == {
            "decisions_needing_review": [launch],
            "decisions_still_supported": [],
            "actions_held": [announce],
            "claims_unsupported": [],
            "actions_already_done": [],
        }

        applied = world.apply(world.june, body["revision"])
        assert applied.status_code == 201, applied.content
        result = applied.json()
        assert result["status"] == "applied" and result["affected"] == body["affected"]

        old, new = claim(world, world.june), claim(world, result["replacement_claim_id"])
        assert old["status"] == "superseded" and old["superseded_by"] == new["id"]
        assert old["evidence_quote"] == "The launch is in June"  # kept, never edited
        assert new["status"] == "current" and new["supersedes"] == world.june
        assert new["confidence"] == 0.0 and new["confidence_kind"] == "human_correction"
        assert (
            new["fragment"]["origin_type"] == "human_correction" and new["fragment"]["text"] == "The launch is in July."
        )
        # The replacement never points at the fragment that says June.
        june_fragments = {f["id"] for f in old["fragments"]}
        assert {f["id"] for f in new["fragments"]}.isdisjoint(june_fragments)
        assert "June" not in new["fragment"]["text"] and new["evidence_quote"] == new["fragment"]["text"]
        rows = graph.ro_query(
            world.trio.workspace,
            "MATCH (c:Claim {id: $id})-[r:SUPPORTED_BY]->(f) RETURN r.role, f.origin_type",
            {"id": new["id"]},
        )
        assert rows == [["reviewer_correction", "human_correction"]]
        origin = graph.ro_query(
            world.trio.workspace,
            "MATCH (x:Correction)-[:HAS_FRAGMENT]->(f:SourceFragment {id: $id}) RETURN f.origin_name",
            {"id": new["fragment"]["id"]},
        )
        assert origin == [["Workspace reviewer correction"]]

        assert (
            decision(world, launch)["status"] == "needs_review" and "July" in decision(world, launch)["review_reason"]
        )
        assert action(world, announce)["status"] == "held"
        history = api_for(world.trio.viewer).get(f"/workspaces/{world.ws}/corrections").json()["results"]
        assert [(h["claim_id"], h["replacement_claim_id"], h["actor"]) for h in history] == [
            (world.june, new["id"], "rita")
        ]
        assert history[0]["affected"] == body["affected"]
        event = AuditEvent.objects.get(verb="correction.applied")
        assert event.payload["affected"] == body["affected"] and event.payload["revision"] == body["revision"]
        assert CorrectionIntent.objects.get().state == "applied"


class SupportSemanticsTests:
    def test_three_independent_supports_keep_the_decision(self, world: World) -> None:
        launch = world.decision("Launch in June", [world.june], [world.northwind], [world.board])
        announce = world.action("Announce", launch)
        body = world.preview(world.june).json()
        assert (
            body["affected"]["decisions_still_supported"] == [launch]
            and body["affected"]["decisions_needing_review"] == []
        )
        assert body["still_supported_by"][launch] in ([world.northwind], [world.board])
        world.apply(world.june, body["revision"])
        assert decision(world, launch)["status"] == "supported" and action(world, announce)["status"] == "pending"

    def test_an_and_justification_is_lost_with_one_member(self, world: World) -> None:
        both = world.decision("Ana launches in June", [world.june, world.ana])
        body = world.preview(world.ana, "Bo owns the checklist.").json()
        assert body["affected"]["decisions_needing_review"] == [both]

    def test_a_chain_of_depth_four(self, world: World) -> None:
        d1 = world.derived("Campaign must be ready by May.", world.june, world.may)
        d2 = world.derived("Agency must be booked in April.", d1)
        top = world.decision("Book the agency", [d2])
        over = world.decision("Approve agency budget", [top])
        body = world.preview(world.may, "Marketing starts in June.").json()
        assert body["affected"]["claims_unsupported"] == sorted([d1, d2])
        assert body["affected"]["decisions_needing_review"] == sorted([top, over])
        world.apply(world.may, body["revision"])
        assert claim(world, d1)["status"] == claim(world, d2)["status"] == "unsupported"
        assert decision(world, over)["status"] == "needs_review"

    def test_decisions_resting_on_decisions_and_a_cycle(self, world: World) -> None:
        base = world.decision("Launch in June", [world.june])
        top = world.decision("Hire in May", [base])
        # A cycle: top also rests on a decision that rests on top (made possible by re-justifying later).
        graph.query(
            world.trio.workspace,
            "MATCH (t:Decision {id: $top}), (b:Decision {id: $base}) CREATE (t)-[:SUPPORTS {justification: 1}]->(b)",
            {"top": top, "base": base},
        )
        body = world.preview(world.june).json()
        assert body["affected"]["decisions_needing_review"] == sorted([base, top])

    def test_the_independent_source_policy_both_ways(self, world: World) -> None:
        same = world.decision("Launch in June (plan)", [world.june], [world.ana])
        other = world.decision("Launch in June (customer)", [world.june], [world.northwind])
        off = world.preview(world.june).json()["affected"]
        assert off["decisions_needing_review"] == [] and off["decisions_still_supported"] == sorted([same, other])
        world.trio.workspace.independent_sources = True
        world.trio.workspace.save()
        on = world.preview(world.june).json()
        assert on["affected"]["decisions_needing_review"] == [same] and on["affected"]["decisions_still_supported"] == [
            other
        ]
        assert on["still_supported_by"] == {other: [world.northwind]}
        applied = world.apply(world.june, on["revision"])
        assert applied.json()["affected"] == on["affected"] and decision(world, same)["status"] == "needs_review"

    def test_switching_the_policy_makes_a_preview_stale(self, world: World, make_user: MakeUser) -> None:
        world.decision("Launch in June (plan)", [world.june], [world.ana])
        revision = world.preview(world.june).json()["revision"]
        root = make_user("root", is_staff=True, is_superuser=True)
        form = {
            "name": world.trio.workspace.name,
            "independent_sources": "on",
            "memberships-TOTAL_FORMS": "0",
            "memberships-INITIAL_FORMS": "0",
        }
        from workspaces.models import Membership

        rows = list(Membership.objects.filter(workspace=world.trio.workspace).order_by("pk"))
        form.update({"memberships-TOTAL_FORMS": str(len(rows)), "memberships-INITIAL_FORMS": str(len(rows))})
        for i, m in enumerate(rows):
            form.update(
                {
                    f"memberships-{i}-id": str(m.pk),
                    f"memberships-{i}-user": str(m.user_id),
                    f"memberships-{i}-role": m.role,
                    f"memberships-{i}-workspace": str(m.workspace_id),
                }
            )
        assert client_for(root).post(f"/admin/workspaces/workspace/{world.ws}/change/", form).status_code == 302
        refused = world.apply(world.june, revision)
        assert refused.status_code == 409 and refused.json()["error"] == "stale_correction_preview"


class ConflictTests:
    def test_a_stale_preview_is_refused_and_writes_nothing(self, world: World) -> None:
        launch = world.decision("Launch in June", [world.june])
        body = world.preview(world.june).json()
        world.action("Something new", launch)  # the world changes after the preview
        refused = world.apply(world.june, body["revision"])
        assert refused.status_code == 409 and refused.json()["error"] == "stale_correction_preview"
        assert refused.json()["revision"] != body["revision"]
        assert claim(world, world.june)["status"] == "current" and decision(world, launch)["status"] == "supported"
        assert graph.ro_query(world.trio.workspace, "MATCH (x:Correction) RETURN count(x)") == [[0]]
        assert not AuditEvent.objects.filter(verb="correction.applied").exists()

    def test_a_statement_other_than_the_previewed_one_is_stale_and_writes_nothing(self, world: World) -> None:
        body = world.preview(world.june, "The launch starts in June.").json()
        assert body["statement"] == "The launch starts in June."
        refused = world.apply(world.june, body["revision"], statement="The launch starts on 2 June.")
        assert refused.status_code == 409 and refused.json()["error"] == "stale_correction_preview"
        assert claim(world, world.june)["status"] == "current"
        assert graph.ro_query(world.trio.workspace, "MATCH (x:Correction) RETURN count(x)") == [[0]]
        # The same statement, only spaced differently, is what was previewed.
        applied = world.apply(world.june, body["revision"], key="key-2", statement="  The launch starts   in June. ")
        assert applied.status_code == 201, applied.json()

    def test_an_unrelated_change_does_not_make_a_preview_stale(self, world: World) -> None:
        launch = world.decision("Launch in June", [world.june])
        body = world.preview(world.june).json()
        world.decision("Unrelated", [world.board])  # elsewhere in the workspace
        world.action("Also unrelated", world.decision("Another", [world.northwind]))
        applied = world.apply(world.june, body["revision"])
        assert applied.status_code == 201 and applied.json()["affected"] == body["affected"]
        assert decision(world, launch)["status"] == "needs_review"

    def test_the_same_key_again_is_already_applied_with_the_same_replacement(self, world: World) -> None:
        world.decision("Launch in June", [world.june])
        revision = world.preview(world.june).json()["revision"]
        first = world.apply(world.june, revision).json()
        again = world.apply(world.june, revision)
        assert again.status_code == 200 and again.json()["status"] == "already_applied"
        assert (
            again.json()["replacement_claim_id"] == first["replacement_claim_id"]
            and again.json()["affected"] == first["affected"]
        )
        assert graph.ro_query(world.trio.workspace, "MATCH (x:Correction) RETURN count(x)") == [[1]]
        assert AuditEvent.objects.filter(verb="correction.applied").count() == 1

    def test_a_claim_superseded_by_another_correction_is_not_current(self, world: World) -> None:
        revision = world.preview(world.june).json()["revision"]
        world.apply(world.june, revision, key="first")
        other = world.apply(world.june, revision, key="second")
        assert other.status_code == 409 and other.json()["error"] == "claim_not_current"
        preview = world.preview(world.june)
        assert preview.status_code == 409 and preview.json()["error"] == "claim_not_current"

    def test_a_key_reused_for_another_correction_is_refused(self, world: World) -> None:
        revision = world.preview(world.june).json()["revision"]
        world.apply(world.june, revision)
        response = world.apply(world.ana, revision)
        assert response.status_code == 422 and "different correction" in response.json()["detail"]


class AccessAndInputTests:
    def test_viewers_and_outsiders(self, world: World) -> None:
        assert world.preview(world.june, user=world.trio.viewer).status_code == 403
        assert world.preview(world.june, user=world.trio.outsider).status_code == 404
        assert world.apply(world.june, 0, user=world.trio.viewer).status_code == 403
        assert api_for(world.trio.outsider).get(f"/workspaces/{world.ws}/corrections").status_code == 404

    @pytest.mark.parametrize(
        ("body", "words"),
        [
            ({"statement": "", "reason": "r", "revision": 1, "idempotency_key": "k"}, "empty"),
            ({"statement": "x", "reason": "", "revision": 1, "idempotency_key": "k"}, "reason"),
            ({"statement": "x", "reason": "r", "revision": "1", "idempotency_key": "k"}, "revision"),
            ({"statement": "x", "reason": "r", "revision": 1, "idempotency_key": ""}, "idempotency_key"),
        ],
    )
    def test_bad_input_is_refused_in_words(self, world: World, body: dict, words: str) -> None:
        response = api_for(world.trio.reviewer).post(f"/workspaces/{world.ws}/claims/{world.june}/corrections", body)
        assert response.status_code == 422 and words in response.json()["detail"]
        assert claim(world, world.june)["status"] == "current" and not CorrectionIntent.objects.exists()

    @pytest.mark.parametrize("revision", [2**63, 2**64, 10**30, MAX_REVISION + 1, -1, 1.5, 1.0, "7", True, None, [1]])
    def test_a_revision_no_preview_hands_out_is_invalid_input(self, world: World, revision: object) -> None:
        body = {"statement": "July.", "reason": "r", "revision": revision, "idempotency_key": "k"}
        response = api_for(world.trio.reviewer).post(f"/workspaces/{world.ws}/claims/{world.june}/corrections", body)
        assert response.status_code == 422 and response.json()["error"] == "invalid_input"
        assert "revision" in response.json()["detail"]
        assert claim(world, world.june)["status"] == "current" and not CorrectionIntent.objects.exists()

    def test_a_well_formed_revision_that_is_not_the_current_one_is_stale(self, world: World) -> None:
        # Within the range a preview hands out, a wrong revision is simply out of date.
        response = world.apply(world.june, MAX_REVISION)
        assert response.status_code == 409 and response.json()["error"] == "stale_correction_preview"
        assert response.json()["revision"] == world.preview(world.june).json()["revision"]

    def test_unknown_claims_are_not_found(self, world: World) -> None:
        assert world.preview("not-a-claim").status_code == 404
        assert world.apply("00000000-0000-0000-0000-000000000000", 0).status_code == 404


class AfterTheFlagTests:
    def flagged(self, world: World) -> tuple[str, str, str]:
        launch = world.decision("Launch in June", [world.june])
        announce = world.action("Announce", launch)
        revision = world.preview(world.june).json()["revision"]
        replacement = world.apply(world.june, revision).json()["replacement_claim_id"]
        return launch, announce, replacement

    def test_rejustifying_with_the_replacement_brings_the_action_back(self, world: World) -> None:
        launch, announce, replacement = self.flagged(world)
        response = api_for(world.trio.reviewer).post(
            f"/workspaces/{world.ws}/decisions/{launch}/justifications", {"justifications": [[replacement]]}
        )
        assert response.status_code == 200 and response.json()["status"] == "supported"
        assert [replacement] in response.json()["justifications"]
        assert action(world, announce)["status"] == "pending"
        assert AuditEvent.objects.filter(verb="decision.rejustified").exists()

    def test_dismissing_cancels_the_actions_and_leaves_the_queue(self, world: World) -> None:
        launch, announce, _ = self.flagged(world)
        response = api_for(world.trio.reviewer).post(f"/workspaces/{world.ws}/decisions/{launch}/dismiss")
        assert response.status_code == 200 and action(world, announce)["status"] == "cancelled"
        again = api_for(world.trio.reviewer).post(f"/workspaces/{world.ws}/decisions/{launch}/dismiss")
        assert again.status_code == 409
        assert decision(world, launch)["dismissed"] is True
        late = api_for(world.trio.reviewer).post(
            f"/workspaces/{world.ws}/actions", {"title": "Late", "decision_ids": [launch]}
        )
        assert late.status_code == 409 and "dismissed" in late.json()["detail"]
        # Nor can it quietly become supported again: re-justifying it is refused in words, nothing written.
        rejustified = api_for(world.trio.reviewer).post(
            f"/workspaces/{world.ws}/decisions/{launch}/justifications", {"justifications": [[world.board]]}
        )
        assert rejustified.status_code == 409 and "dismissed" in rejustified.json()["detail"]
        assert decision(world, launch)["status"] == "needs_review"

    def test_a_decision_cannot_be_rejustified_by_one_that_rests_on_it(self, world: World) -> None:
        launch, _, _ = self.flagged(world)
        graph.query(world.trio.workspace, "MATCH (d:Decision {id: $id}) SET d.status = 'supported'", {"id": launch})
        on_top = world.decision("Hire in May", [launch])
        graph.query(world.trio.workspace, "MATCH (d:Decision {id: $id}) SET d.status = 'needs_review'", {"id": launch})
        response = api_for(world.trio.reviewer).post(
            f"/workspaces/{world.ws}/decisions/{launch}/justifications", {"justifications": [[on_top]]}
        )
        assert response.status_code == 422 and "rests on it" in response.json()["detail"]
        assert decision(world, launch)["status"] == "needs_review"

    def test_the_superseded_claim_cannot_justify_again(self, world: World) -> None:
        launch, _, _ = self.flagged(world)
        response = api_for(world.trio.reviewer).post(
            f"/workspaces/{world.ws}/decisions/{launch}/justifications", {"justifications": [[world.june]]}
        )
        assert response.status_code == 422 and "superseded" in response.json()["detail"]
