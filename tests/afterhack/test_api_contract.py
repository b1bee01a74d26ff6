"""The OpenAPI document is exact (typed bodies, status enums, error answers), and the API holds to it:
wrong types, bodies that are not JSON and unknown statuses are refused in words, never stored."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from afterhack import graph
from afterhack.errors import UserError
from agents.services import decisions as agents_services
from agents.statuses import ActionStatus, DecisionStatus
from claims.services import claims as claims_services
from claims.services import sources as sources_services
from claims.statuses import ClaimStatus, JobStatus
from tests.conftest import Trio, api_for
from workspaces.models import AuditEvent

pytestmark = pytest.mark.django_db

PLAN = "Launch plan\n\nThe launch is in June. Ana owns the checklist.\n"


# Bodies whose every field is optional, by the contract: a suggestion rejected with or without a reason, previewed
# with its own statement or another.
EVERY_FIELD_OPTIONAL = {
    ("post", "/api/v1/workspaces/{ws_id}/suggestions/{suggestion_id}/reject"),
    ("post", "/api/v1/workspaces/{ws_id}/suggestions/{suggestion_id}/preview"),
    # Either the ids to mark read or all of them (one of the two, said in words when neither or both come).
    ("post", "/api/v1/notifications/read"),
    ("patch", "/api/v1/workspaces/{ws_id}/webhooks/{webhook_id}"),
    # A follow-up's title, or "not needed" with its reason (one of the two, said in words when neither comes).
    ("post", "/api/v1/workspaces/{ws_id}/actions/{action_id}/follow-up"),
}


def openapi() -> dict[str, Any]:
    response = Client().get("/api/v1/openapi.json")
    assert response.status_code == 200
    return dict(response.json())


def operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(method, path, op) for path, item in document["paths"].items() for method, op in item.items()]


def resolve(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def untyped_objects(document: dict[str, Any], schema: Any, seen: set[str]) -> list[str]:
    """Places in a schema where an object is left without properties (a bare dict)."""
    if isinstance(schema, list):
        return [place for item in schema for place in untyped_objects(document, item, seen)]
    if not isinstance(schema, dict):
        return []
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        if name in seen:
            return []
        seen.add(name)
        return untyped_objects(document, document["components"]["schemas"][name], seen)
    bare = schema.get("type") == "object" and not schema.get("properties") and not schema.get("additionalProperties")
    return [str(schema)[:80]] * bare + [
        place for key, value in schema.items() if key != "examples" for place in untyped_objects(document, value, seen)
    ]


class OpenApiTests:
    def test_every_body_is_typed(self) -> None:
        document = openapi()
        for method, path, op in operations(document):
            for status, answer in op["responses"].items():
                if status == "204":
                    continue
                schema = answer["content"]["application/json"]["schema"]
                assert resolve(document, schema).get("properties"), f"{method} {path} {status} has no typed body"
                assert not untyped_objects(document, schema, set()), f"{method} {path} {status}"
            body = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            if body is not None:
                if (method, path) not in EVERY_FIELD_OPTIONAL:
                    assert resolve(document, body).get("required"), f"{method} {path} has no required fields"
                else:
                    assert resolve(document, body).get("properties"), f"{method} {path} takes no typed field"
                assert not untyped_objects(document, body, set()), f"{method} {path} request"

    def test_every_operation_lists_the_errors_it_can_answer_with_the_error_body(self) -> None:
        document = openapi()
        for method, path, op in operations(document):
            statuses = set(op["responses"])
            assert "503" in statuses, f"{method} {path}"
            if op.get("security") != []:
                assert "401" in statuses or (path.endswith("/auth/token") and method == "post"), f"{method} {path}"
            if "/workspaces/{ws_id}" in path:
                assert "404" in statuses, f"{method} {path}"
            if method != "get" and "/workspaces/{ws_id}" in path:
                assert "403" in statuses, f"{method} {path}"
            if "requestBody" in op:
                assert {"415", "422"} <= statuses, f"{method} {path}"
            for status in statuses - {"200", "201", "202", "204"}:
                error = resolve(document, op["responses"][status]["content"]["application/json"]["schema"])
                assert {"error", "detail"} <= set(error["required"]), f"{method} {path} {status}"

    def test_statuses_are_the_enums_the_code_uses(self) -> None:
        schemas = openapi()["components"]["schemas"]
        assert schemas["ClaimStatus"]["enum"] == [
            "current",
            "superseded",
            "retracted",
            "unsupported",
            "proposed",
            "rejected",
        ]
        assert schemas["DecisionStatus"]["enum"] == ["supported", "needs_review", "superseded"]
        assert schemas["DecisionKind"]["enum"] == ["manual", "agent", "unanswered"]
        assert schemas["ActionStatus"]["enum"] == ["pending", "held", "done", "cancelled"]
        assert schemas["JobStatus"]["enum"] == ["queued", "running", "done", "failed"]
        assert [*ClaimStatus] == schemas["ClaimStatus"]["enum"] and [*JobStatus] == schemas["JobStatus"]["enum"]
        assert [*DecisionStatus] == schemas["DecisionStatus"]["enum"]
        assert [*ActionStatus] == schemas["ActionStatus"]["enum"]

    def test_every_list_is_a_page(self) -> None:
        document = openapi()
        for method, path, op in operations(document):
            if method != "get" or "limit" not in {p["name"] for p in op.get("parameters", [])}:
                continue
            page = resolve(document, op["responses"]["200"]["content"]["application/json"]["schema"])
            assert {"results", "next", "count"} <= set(page["required"]), path
        listed = {
            path
            for method, path, op in operations(document)
            if any(p["name"] == "cursor" for p in op.get("parameters", []))
        }
        assert listed == {
            "/api/v1/workspaces", "/api/v1/workspaces/{ws_id}/members", "/api/v1/workspaces/{ws_id}/sources",
            "/api/v1/workspaces/{ws_id}/sources/{source_id}/rejected", "/api/v1/workspaces/{ws_id}/claims",
            "/api/v1/workspaces/{ws_id}/decisions", "/api/v1/workspaces/{ws_id}/actions",
            "/api/v1/workspaces/{ws_id}/runs", "/api/v1/workspaces/{ws_id}/corrections",
            "/api/v1/workspaces/{ws_id}/changes", "/api/v1/workspaces/{ws_id}/suggestions", "/api/v1/notifications",
            "/api/v1/workspaces/{ws_id}/webhooks", "/api/v1/workspaces/{ws_id}/webhooks/{webhook_id}/deliveries",
        }  # fmt: skip


@pytest.fixture
def source(trio: Trio) -> str:
    return sources_services.source_add(workspace=trio.workspace, title="Plan", text=PLAN, actor=trio.reviewer).id


@pytest.fixture
def claim(trio: Trio, source: str) -> str:
    return claims_services.claim_add(
        workspace=trio.workspace, source_id=source, statement="June.", evidence_quote="The launch is in June",
        actor=trio.reviewer,
    ).id  # fmt: skip


def decisions_in_graph(trio: Trio) -> int:
    return int(graph.ro_query(trio.workspace, "MATCH (d:Decision) RETURN count(d)")[0][0])


class RationaleTests:
    @pytest.mark.parametrize("rationale", [5, True, ["June"], {"why": "June"}, "x" * 4_001, "a\u0000b"])
    def test_a_rationale_that_is_not_text_is_refused_in_words(self, trio: Trio, claim: str, rationale: Any) -> None:
        body = {"title": "Launch", "rationale": rationale, "justifications": [[claim]]}
        response = api_for(trio.reviewer).post(f"/workspaces/{trio.workspace.id}/decisions", body)
        assert response.status_code == 422 and response.json()["error"] == "invalid_input"
        assert "rationale" in response.json()["detail"].lower()
        assert decisions_in_graph(trio) == 0 and not AuditEvent.objects.filter(verb="decision.created").exists()

    def test_the_service_refuses_it_too(self, trio: Trio, claim: str) -> None:
        with pytest.raises(UserError, match="rationale"):
            agents_services.decision_add(
                workspace=trio.workspace, title="Launch", rationale=42, justifications=[[claim]], actor=trio.reviewer
            )
        assert decisions_in_graph(trio) == 0

    @pytest.mark.parametrize(
        ("rationale", "stored"), [(None, ""), ("Because  the board\nsaid so.", "Because the board said so.")]
    )
    def test_a_rationale_left_out_or_given_as_text_is_kept(
        self, trio: Trio, claim: str, rationale: Any, stored: str
    ) -> None:
        body = {"title": "Launch", "rationale": rationale, "justifications": [[claim]]}
        response = api_for(trio.reviewer).post(f"/workspaces/{trio.workspace.id}/decisions", body)
        assert response.status_code == 201 and response.json()["rationale"] == stored


class MediaTypeTests:
    def post(self, trio: Trio, user: Any, path: str, body: str, content_type: str) -> Any:
        client = api_for(user)
        url = f"/api/v1/workspaces/{trio.workspace.id}{path}"
        return client.client.generic("POST", url, body.encode(), content_type=content_type, headers=client.headers)

    @pytest.mark.parametrize(
        "content_type",
        ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data", "application/xml", ""],
    )
    def test_json_sent_as_another_media_type_is_refused(self, trio: Trio, content_type: str) -> None:
        body = json.dumps({"title": "Plan", "text": PLAN})
        response = self.post(trio, trio.reviewer, "/sources", body, content_type)
        assert response.status_code == 415 and response.json()["error"] == "unsupported_media_type"
        assert "application/json" in response.json()["detail"]
        assert graph.ro_query(trio.workspace, "MATCH (s:Source) RETURN count(s)") == [[0]]

    def test_outsiders_and_viewers_learn_nothing_more_from_it(self, trio: Trio) -> None:
        body = json.dumps({"title": "Plan", "text": PLAN})
        assert self.post(trio, trio.outsider, "/sources", body, "text/plain").status_code == 404
        assert self.post(trio, trio.viewer, "/sources", body, "text/plain").status_code == 403

    @pytest.mark.parametrize("content_type", ["application/json; charset=utf-8", "application/vnd.afterhack+json"])
    def test_json_media_types_are_accepted(self, trio: Trio, content_type: str) -> None:
        response = self.post(trio, trio.reviewer, "/sources", json.dumps({"title": "Plan", "text": PLAN}), content_type)
        assert response.status_code == 201

    @pytest.mark.parametrize("content_type", ["", "application/x-www-form-urlencoded", "text/plain"])
    def test_a_post_without_a_body_needs_no_media_type(
        self, trio: Trio, source: str, claim: str, content_type: str
    ) -> None:
        response = self.post(trio, trio.reviewer, f"/sources/{source}/retract", "", content_type)
        assert response.status_code == 200 and response.json()["retracted"] == [claim]


class StatusFilterTests:
    @pytest.mark.parametrize("listing", ["decisions", "actions"])
    @pytest.mark.parametrize("status", ["%00", "bogus", "current", "SUPPORTED", ""])
    def test_an_unknown_status_is_refused_in_words(self, trio: Trio, listing: str, status: str) -> None:
        response = api_for(trio.viewer).get(f"/workspaces/{trio.workspace.id}/{listing}?status={status}")
        assert response.status_code == 422 and response.json()["error"] == "invalid_input"
        assert response.json()["detail"]

    def test_a_known_status_filters(self, trio: Trio, claim: str) -> None:
        agents_services.decision_add(
            workspace=trio.workspace, title="Launch", rationale=None, justifications=[[claim]], actor=trio.reviewer
        )
        client = api_for(trio.viewer)
        supported = client.get(f"/workspaces/{trio.workspace.id}/decisions?status=supported").json()
        assert [d["title"] for d in supported["results"]] == ["Launch"] and supported["count"] == 1
        assert client.get(f"/workspaces/{trio.workspace.id}/decisions?status=needs_review").json()["count"] == 0


class ExactTypeTests:
    @pytest.mark.parametrize(
        ("body", "code", "words"),
        [
            ({"statement": "x", "evidence_quote": "June", "start": "5"}, "invalid_input", "start"),
            ({"statement": "x", "evidence_quote": "June", "start": 5.0}, "invalid_input", "start"),
            ({"statement": "x", "evidence_quote": "June", "start": True}, "invalid_input", "start"),
            ({"statement": "x", "evidence_quote": 5}, "invalid_input", "evidence_quote"),
            ({"statement": "x", "evidence_quote": "June", "source_id": 5}, "invalid_input", "source_id"),
            ({"statement": "x", "derived_from": "not-a-list"}, "invalid_support", "derived_from"),
            ({"statement": 5, "derived_from": []}, "invalid_input", "statement"),
        ],
    )
    def test_a_claim_field_of_the_wrong_type_is_refused_with_its_code(
        self, trio: Trio, source: str, body: dict[str, Any], code: str, words: str
    ) -> None:
        body = {"source_id": source, **body} if "evidence_quote" in body else body
        response = api_for(trio.reviewer).post(f"/workspaces/{trio.workspace.id}/claims", body)
        assert response.status_code == 422 and response.json()["error"] == code
        assert words in response.json()["detail"]

    @pytest.mark.parametrize("body", [[], "text", 5, None])
    def test_a_body_that_is_not_an_object_is_refused(self, trio: Trio, body: Any) -> None:
        response = api_for(trio.reviewer).post(f"/workspaces/{trio.workspace.id}/ask", raw=json.dumps(body))
        assert response.status_code == 422 and "JSON object" in response.json()["detail"]

    @pytest.mark.parametrize("role", ["Admin", "owner", 1, None])
    def test_a_role_outside_the_enum_is_refused_in_words(self, trio: Trio, role: Any) -> None:
        response = api_for(trio.owner).post(
            f"/workspaces/{trio.workspace.id}/members", {"username": "oscar", "role": role}
        )
        assert response.status_code == 422 and "choose viewer, reviewer or admin" in response.json()["detail"]

    @pytest.mark.parametrize("method", ["delete", "patch"])
    def test_a_member_name_with_nul_is_refused_in_words(self, trio: Trio, method: str) -> None:
        client = api_for(trio.owner)
        url = f"/api/v1/workspaces/{trio.workspace.id}/members/a%00b"
        response = getattr(client.client, method)(
            url, data=json.dumps({"role": "viewer"}), content_type="application/json", headers=client.headers
        )
        assert response.status_code == 422 and "NUL" in response.json()["detail"]

    @pytest.mark.parametrize("revision", [2**53, 2**63, 2**64, 10**30, -1, 1.0])
    def test_a_revision_no_preview_gives_is_refused_in_words(self, trio: Trio, claim: str, revision: Any) -> None:
        body = {"statement": "July.", "reason": "Moved.", "revision": revision, "idempotency_key": "k"}
        response = api_for(trio.reviewer).post(f"/workspaces/{trio.workspace.id}/claims/{claim}/corrections", body)
        assert response.status_code == 422 and "revision" in response.json()["detail"]
