"""The one rule of what an audit event shows to staff who may not read its workspace (workspaces/disclosure.py),
verb by verb, without stores: every verb is decided, content is withheld in words, ids and figures are kept (and,
with PostgreSQL, its query form selects exactly the events the rule shows whole)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from corrections.disclosure import CORRECTION, impact_columns
from workspaces.disclosure import (
    ACCESS_NAMESPACES,
    WITHHELD,
    WITHHELD_WORDS,
    event_shown,
    is_whole,
    shown_whole,
)
from workspaces.models import EVENT_WORDS, AuditEvent, Workspace

WS = uuid.uuid4()
ID, OTHER = str(uuid.uuid4()), str(uuid.uuid4())
# A correction's recorded impact: what it touched, and what it left untouched (whose words are withheld).
IMPACT = {
    "decisions_needing_review": [{"id": ID, "title": "Launch in June"}],
    "decisions_still_supported": [{"id": OTHER, "title": "Secret words", "by": [{"id": ID, "title": "x"}]}],
    "actions_held": [{"id": OTHER, "title": "Send it"}],
    "claims_unsupported": [],
    "actions_already_done": [{"id": ID, "title": "Send the announcement"}],
    "restating": [{"id": ID, "title": "Secret words"}],
}


def event(verb: str, target: str = "Secret words", workspace: Any = WS, **payload: Any) -> AuditEvent:
    return AuditEvent(verb=verb, target=target, workspace_id=workspace, actor_name="rita", payload=payload)


class DisclosureTests:
    def test_every_verb_the_audit_knows_is_decided(self) -> None:
        # A new verb must be placed: whole (it names no workspace content), the correction, or withheld in words.
        undecided = [v for v in EVENT_WORDS if not (is_whole(v) or v == CORRECTION or v in WITHHELD_WORDS)]
        assert undecided == []
        assert not any(is_whole(verb) for verb in WITHHELD_WORDS)

    def test_it_withholds_content_in_words_and_keeps_ids_figures_and_vocabulary(self) -> None:
        shown = event_shown(
            event("source.versioned", source_id=ID, version=2, moved=3, retracted=[OTHER], sha256="ab" * 32),
            reads_workspace=False,
        )
        assert shown.summary == "added a new version of a source (title withheld: not a member)"
        assert shown.target == f"({WITHHELD})" and shown.withheld
        assert shown.payload == {"source_id": ID, "version": 2, "moved": 3, "retracted": [OTHER], "sha256": WITHHELD}
        asked = event_shown(event("agent.asked", run_id=ID, agent="offline"), reads_workspace=False)
        assert asked.payload == {"run_id": ID, "agent": "offline"} and "question withheld" in asked.summary
        dropped = [{"claim_id": ID, "why": "Secret words"}]
        decided = event_shown(event("decision.created", decision_id=ID, dropped=dropped), reads_workspace=False)
        assert decided.payload["dropped"] == [{"claim_id": ID, "why": WITHHELD}]

    def test_a_verb_keeps_only_the_vocabulary_its_app_registered(self) -> None:
        # `agent` is agent.asked's vocabulary (agents/registration.py), not the text of any other verb's payload.
        asked = event_shown(event("agent.asked", run_id=ID, agent="offline"), reads_workspace=False)
        versioned = event_shown(event("source.versioned", source_id=ID, agent="Secret words"), reads_workspace=False)
        extracted = event_shown(event("extraction.requested", source_id=ID, extractor="rule"), reads_workspace=False)
        assert asked.payload["agent"] == "offline" and extracted.payload["extractor"] == "rule"
        assert versioned.payload == {"source_id": ID, "agent": WITHHELD}

    def test_an_unknown_verb_in_a_workspace_is_withheld_until_it_is_placed(self) -> None:
        shown = event_shown(event("note.pinned", text="Secret words"), reads_workspace=False)
        assert "Secret words" not in shown.summary + shown.target + str(shown.payload)
        assert shown.summary == "did “note.pinned” (what it names is withheld: not a member)"

    def test_people_roles_tokens_and_workspaces_stay_whole(self) -> None:
        for verb, payload in (
            ("member.role_changed", {"from": "viewer", "to": "admin"}),
            ("workspace.created", {}),
            ("token.revoked", {}),
            ("claims.embedded", {"model": "m"}),
        ):
            shown = event_shown(event(verb, "rita", **payload), reads_workspace=False)
            assert (shown.target, shown.payload, shown.withheld) == ("rita", payload, False), verb
        account = event_shown(event("mcp.session_opened", "session 1", workspace=None), reads_workspace=False)
        assert account.target == "session 1"

    def test_every_event_about_who_may_do_what_is_whole_for_the_person_affected_filter_to_read(self) -> None:
        # The audit's "person affected" filter matches a name in what these events name: they must all be whole.
        access = [verb for verb in EVENT_WORDS if verb.split(".", 1)[0] in ACCESS_NAMESPACES]
        given = {"user.deactivated", "user.permission_added", "group.permission_added", "token.issued", "member.added"}
        assert given <= set(access)
        assert [verb for verb in access if not is_whole(verb)] == []

    @pytest.mark.django_db
    def test_its_query_selects_exactly_the_events_it_shows_whole(self) -> None:
        # What a search may match by its words (shown_whole) and what a row shows whole (is_whole) are one rule.
        workspace = Workspace.objects.create(name="Launch planning")
        AuditEvent.objects.bulk_create(
            AuditEvent(verb=verb, target="Secret words", workspace=workspace, actor_name="rita") for verb in EVENT_WORDS
        )
        matched = set(AuditEvent.objects.filter(shown_whole(readable=[])).values_list("verb", flat=True))
        assert matched == {verb for verb in EVENT_WORDS if is_whole(verb) or verb == CORRECTION}
        assert set(
            AuditEvent.objects.filter(shown_whole(readable=[workspace.id])).values_list("verb", flat=True)
        ) == set(EVENT_WORDS)

    def test_a_correction_keeps_from_to_why_and_what_it_changed(self) -> None:
        evidence = {"source_id": ID, "version_id": OTHER, "version": 1, "quote": "Secret words", "start": 0, "end": 5}
        correction = event(
            CORRECTION, "In July.", claim_id=ID, statement="In July.", reason="Moved.", impact=IMPACT, evidence=evidence
        )
        shown = event_shown(correction, reads_workspace=False, corrected_from="In June.")
        assert shown.summary == "corrected “In June.” to “In July.” (why: “Moved.”)"
        assert "Secret words" not in str(shown.payload)
        assert shown.payload["impact"]["decisions_needing_review"] == IMPACT["decisions_needing_review"]
        assert shown.payload["impact"]["actions_held"] == IMPACT["actions_held"]
        assert shown.payload["impact"]["decisions_still_supported"][0]["by"] == [{"id": ID, "title": WITHHELD}]
        assert shown.payload["evidence"] == {**evidence, "quote": WITHHELD}
        assert (shown.payload["statement"], shown.payload["reason"]) == ("In July.", "Moved.")
        member = event_shown(correction, reads_workspace=True)
        assert member.payload == correction.payload and member.summary == "corrected a claim to “In July.”"

    @pytest.mark.django_db
    def test_a_correction_impact_is_read_with_the_titles_of_what_it_touched_alone(self) -> None:
        workspace = Workspace.objects.create(name="Launch planning")
        evidence = {"quote": "Secret words"}
        for payload in ({"impact": IMPACT, "evidence": evidence}, {"evidence": evidence}, {"impact": "Secret words"}):
            AuditEvent.objects.create(verb=CORRECTION, workspace=workspace, actor_name="rita", payload=payload)
        read = [dict(row) for row in AuditEvent.objects.order_by("id").values(**impact_columns())]
        assert "Secret words" not in str(read)
        assert read[0] == {
            "impact_type": "object",
            **{
                key: IMPACT[key]
                for key in ("decisions_needing_review", "actions_held", "claims_unsupported", "actions_already_done")
            },
            "decisions_still_supported": [OTHER],
            "restating": [ID],
        }
        assert [row["impact_type"] for row in read[1:]] == [None, "string"]

    def test_a_reader_of_the_workspace_reads_every_event_whole(self) -> None:
        shown = event_shown(event("claim.added", claim_id=ID), reads_workspace=True)
        assert shown.summary == "added the claim “Secret words”" and shown.target == "Secret words"
        assert shown.payload == {"claim_id": ID} and not shown.withheld
