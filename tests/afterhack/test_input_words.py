"""What the API says of a missing field or a field of the wrong kind: the field by its name in the input (whatever
the name), and true or false never taken for a number. (The MCP tools: tests/mcp_server/test_arguments.py.)"""

from __future__ import annotations

import pytest

from afterhack.http import in_the_input
from afterhack.schemas import NOT_AN_OBJECT, describe_validation_errors
from claims.services import claims as claims_services
from claims.services import sources as sources_services
from tests.conftest import Trio, api_for

pytestmark = pytest.mark.django_db


class LocationTests:
    @pytest.mark.parametrize("name", ["query", "body", "payload", "path", "title"])
    def test_a_missing_field_is_named_whatever_its_name(self, name: str) -> None:
        assert describe_validation_errors([{"type": "missing", "loc": (name,), "msg": "Field required"}]) == (
            f"'{name}' is required."
        )

    def test_django_ninjas_location_is_stripped_to_the_pathin_the_input(self) -> None:
        body = {"type": "missing", "loc": ("body", "payload", "query"), "msg": "Field required"}
        query = {"type": "int_parsing", "loc": ("query", "limit"), "msg": "Input should be a valid integer"}
        no_body = {"type": "missing", "loc": ("body", "payload"), "msg": "Field required"}
        assert [in_the_input(error)["loc"] for error in (body, query, no_body)] == [("query",), ("limit",), ()]
        assert describe_validation_errors([in_the_input(no_body)]) == NOT_AN_OBJECT

    def test_the_api_still_names_a_missing_field_and_a_body_that_is_no_object(self, trio: Trio) -> None:
        api, ws = api_for(trio.reviewer), trio.workspace.id
        source = sources_services.source_add(workspace=trio.workspace, title="Plan", text="The launch is in June.",
                                            actor=trio.reviewer)  # fmt: skip
        claim = claims_services.claim_add(workspace=trio.workspace, source_id=source.id, statement="June.",
                                          evidence_quote="The launch is in June", actor=trio.reviewer)  # fmt: skip
        missing = api.post(f"/workspaces/{ws}/claims/{claim.id}/correction-preview", {})
        assert missing.json() == {"error": "invalid_input", "detail": "'statement' is required."}
        for raw in ("[]", "null", '"x"'):
            not_an_object = api.post(f"/workspaces/{ws}/claims/{claim.id}/correction-preview", raw=raw)
            assert not_an_object.json() == {"error": "invalid_input", "detail": NOT_AN_OBJECT}, raw


class NumberTests:
    def test_true_and_false_are_not_numbers_in_a_body_or_a_query(self, trio: Trio) -> None:
        api, ws = api_for(trio.reviewer), trio.workspace.id
        source = sources_services.source_add(workspace=trio.workspace, title="Plan", text="The launch is in June.",
                                            actor=trio.reviewer)  # fmt: skip
        for value in (True, False):
            claim = api.post(f"/workspaces/{ws}/claims", {"statement": "June.", "source_id": source.id,
                                                          "evidence_quote": "The launch is in June", "start": value})  # fmt: skip
            assert claim.status_code == 422
            assert claim.json()["detail"] == "“start” must be a whole number: the offset where the quote begins."
        for text in ("true", "false", "True"):
            listed = api.get(f"/workspaces/{ws}/sources?limit={text}")
            assert (
                listed.status_code == 422 and listed.json()["detail"] == "“limit” must be a whole number from 1 to 200."
            )
        assert api.get(f"/workspaces/{ws}/claims").json()["count"] == 0
