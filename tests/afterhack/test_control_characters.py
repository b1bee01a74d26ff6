"""Control characters other than tab and line breaks are refused in words wherever text is stored (the API, the
pages' forms, the admin), naming the character and where it is; a source's page breaks become line breaks; what a
model says is stored with them removed.

(The MCP tools: tests/mcp_server/test_arguments.py.)"""

from __future__ import annotations

import html
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile

from agents.coordinator import verdict_from
from claims.services import claims as claims_services
from claims.services import sources as sources_services
from tests.conftest import Trio, api_for, client_for
from workspaces.models import AuditEvent, Membership, Workspace

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
PLAN = "Launch plan\n\nThe launch is in June.\n"


def refused_in_words(response: Any, words: str, code: str = "invalid_input") -> None:
    assert response.status_code == 422, response.content
    assert response.json() == {"error": code, "detail": words}


@pytest.fixture
def plan(trio: Trio) -> str:
    return sources_services.source_add(workspace=trio.workspace, title="Plan", text=PLAN, actor=trio.reviewer).id


class ApiTests:
    def test_a_sources_title_and_text_name_the_character_and_where_it_is(self, trio: Trio) -> None:
        api, url = api_for(trio.reviewer), f"/workspaces/{trio.workspace.id}/sources"
        refused_in_words(
            api.post(url, {"title": "Log \x1b[31mred", "text": "The board met."}),
            "'title': cannot contain control characters other than tab and line breaks: U+001B (escape) at "
            "character 5.",
            "invalid_source",
        )
        refused_in_words(
            api.post(url, {"title": "Log", "text": "First line.\nSecond\x07 line."}),
            "'text': cannot contain control characters other than tab, line breaks and page breaks: U+0007 (bell) on "
            "line 2, column 7.",
            "invalid_source",
        )
        assert api.get(url).json()["count"] == 0

    def test_del_and_c1_controls_are_refused_too(self, trio: Trio) -> None:
        api, url = api_for(trio.reviewer), f"/workspaces/{trio.workspace.id}/sources"
        for control, named in (("\x7f", "U+007F (delete)"), ("\x9b", "U+009B (control sequence introducer)"),
                               ("\x85", "U+0085")):  # fmt: skip
            answer = api.post(url, {"title": f"A{control}", "text": "The board met."})
            assert answer.status_code == 422 and f"{named} at character 2." in answer.json()["detail"]
        assert api.get(url).json()["count"] == 0

    def test_a_sources_page_breaks_become_line_breaks_and_its_claims_quote_them_so(self, trio: Trio) -> None:
        api, ws = api_for(trio.reviewer), trio.workspace.id
        text = "Page one ends here.\x0cPage two starts here.\x0bA line of its own.\r\n"
        added = api.post(f"/workspaces/{ws}/sources", {"title": "RFC", "text": text})
        assert added.status_code == 201 and added.json()["length"] == len(text) - 1
        stored = api.get(f"/workspaces/{ws}/sources/{added.json()['id']}").json()
        assert stored["text"] == "Page one ends here.\nPage two starts here.\nA line of its own.\n"
        # A quote copied from the original file, page break and all, is found where the break became a newline.
        claim = api.post(f"/workspaces/{ws}/claims", {"statement": "Page one ends, then page two starts.",
                                                      "source_id": added.json()["id"],
                                                      "evidence_quote": "ends here.\x0cPage two"})  # fmt: skip
        assert claim.status_code == 201 and claim.json()["evidence_quote"] == "ends here.\nPage two"

    def test_every_other_stored_text_names_it_too(self, trio: Trio, plan: str) -> None:
        ws = trio.workspace.id
        owner, reviewer = api_for(trio.owner), api_for(trio.reviewer)
        claim = reviewer.post(f"/workspaces/{ws}/claims", {"statement": "Launch\x08 in June.", "source_id": plan,
                                                            "evidence_quote": "The launch is in June"})  # fmt: skip
        decision = reviewer.post(f"/workspaces/{ws}/decisions", {"title": "Go\x1b", "justifications": []})
        workspace = owner.post("/workspaces", {"name": "Ops\x00"})
        member = owner.post(f"/workspaces/{ws}/members", {"username": "oscar\x1b", "role": "viewer"})
        question = reviewer.post(f"/workspaces/{ws}/ask", {"question": "When\x07 is the launch?"})
        answers = {"claim": claim, "decision": decision, "workspace": workspace, "member": member, "ask": question}
        assert {name: answer.status_code for name, answer in answers.items()} == dict.fromkeys(answers, 422)
        assert all(
            "cannot contain control characters other than tab and line breaks: U+" in answer.json()["detail"]
            for answer in answers.values()
        ), {name: answer.json() for name, answer in answers.items()}
        assert "U+0000 (NUL) at character 4" in workspace.json()["detail"]
        assert Workspace.objects.count() == 1 and not Membership.objects.filter(user=trio.outsider).exists()

    def test_a_correction_reason_names_it_and_nothing_is_written(self, trio: Trio, plan: str) -> None:
        ws, reviewer = trio.workspace.id, api_for(trio.reviewer)
        june = reviewer.post(f"/workspaces/{ws}/claims", {"statement": "The launch is in June.", "source_id": plan,
                                                           "evidence_quote": "The launch is in June"}).json()["id"]  # fmt: skip
        revision = reviewer.post(f"/workspaces/{ws}/claims/{june}/correction-preview",
                                 {"statement": "The launch is in July."}).json()["revision"]  # fmt: skip
        applied = reviewer.post(f"/workspaces/{ws}/claims/{june}/corrections", {
            "statement": "The launch is in July.", "reason": "The board\x1b moved it.", "revision": revision,
            "idempotency_key": "k",
        })  # fmt: skip
        refused_in_words(
            applied,
            "'reason': cannot contain control characters other than tab and line breaks: U+001B (escape) at "
            "character 10.",
        )
        assert not AuditEvent.objects.filter(verb="correction.applied").exists()


class PageFormTests:
    def test_a_sources_title_is_refused_in_place(self, trio: Trio) -> None:
        response = client_for(trio.reviewer).post(
            f"/w/{trio.workspace.id}/sources/new", {"title": "Notes\x1b[0m", "text": "The board met."}
        )
        body = html.unescape(response.content.decode())
        assert response.status_code == 422
        assert (
            "A title cannot contain control characters other than tab and line breaks: U+001B (escape) at character 6."
            in body
        )
        assert api_for(trio.viewer).get(f"/workspaces/{trio.workspace.id}/sources").json()["count"] == 0

    def test_an_uploaded_files_page_breaks_become_line_breaks(self, trio: Trio) -> None:
        upload = SimpleUploadedFile("rfc.txt", b"Status of This Memo\x0c\nPage 2: the protocol.\n")
        response = client_for(trio.reviewer).post(f"/w/{trio.workspace.id}/sources/new", {"file": upload})
        assert response.status_code == 302
        (source,) = api_for(trio.viewer).get(f"/workspaces/{trio.workspace.id}/sources").json()["results"]
        text = api_for(trio.viewer).get(f"/workspaces/{trio.workspace.id}/sources/{source['id']}").json()["text"]
        assert text == "Status of This Memo\n\nPage 2: the protocol.\n"

    def test_a_decisions_title_is_refused_in_place(self, trio: Trio, plan: str) -> None:
        june = claims_services.claim_add(workspace=trio.workspace, source_id=plan, statement="June.",
                                         evidence_quote="The launch is in June", actor=trio.reviewer)  # fmt: skip
        response = client_for(trio.reviewer).post(
            f"/w/{trio.workspace.id}/decisions/new", {"title": "Launch\x07", "rationale": "", "justifications": june.id}
        )
        body = html.unescape(response.content.decode())
        assert response.status_code == 422
        assert "A title cannot contain control characters other than tab and line breaks: U+0007 (bell)" in body
        assert api_for(trio.viewer).get(f"/workspaces/{trio.workspace.id}/decisions").json()["count"] == 0

    def test_a_username_typed_to_add_a_member_is_refused_in_place(self, trio: Trio) -> None:
        response = client_for(trio.owner).post(
            f"/w/{trio.workspace.id}/members/add", {"username": "oscar\x1b", "role": "viewer"}, headers=HTMX
        )
        body = html.unescape(response.content.decode())
        assert response.status_code == 422 and 'id="member-section"' in body
        assert "It cannot contain control characters other than tab and line breaks: U+001B (escape)" in body
        assert not Membership.objects.filter(user=trio.outsider).exists()

    def test_an_admin_form_field_is_refused_at_the_door(self, trio: Trio) -> None:
        trio.owner.is_staff = trio.owner.is_superuser = True
        trio.owner.save()
        response = client_for(trio.owner).post(
            f"/admin/auth/user/{trio.viewer.pk}/change/",
            {"username": "victor", "first_name": "Vic\x1b]0;pwned\x07", "last_name": "", "email": ""},
        )
        body = html.unescape(response.content.decode())
        assert response.status_code == 400
        assert (
            "The field “first_name” cannot contain control characters other than tab and line breaks: U+001B "
            "(escape) at character 4. Nothing was saved." in body
        )
        assert get_user_model().objects.get(pk=trio.viewer.pk).first_name == ""


class ModelOutputTests:
    def test_what_a_model_says_is_stored_without_control_characters(self) -> None:
        verdict = verdict_from({"title": "Launch\x1b[31m in July\x07", "rationale": "The board\x9b moved it.",
                                "claim_ids": [], "actions": [{"title": "Tell\x00 the team"}, {"title": "\x1b\x07"}]})  # fmt: skip
        assert (verdict.title, verdict.rationale) == ("Launch[31m in July", "The board moved it.")
        assert verdict.actions == ["Tell the team"]
