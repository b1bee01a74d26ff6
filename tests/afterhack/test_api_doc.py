"""docs/api.md covers the API as it is served: every operation of /api/v1/openapi.json (its method and path, written
`METHOD /api/v1/...` as the document names it), and every error code the app answers in a row of the doc's error
table, with its status."""

from __future__ import annotations

import re
from pathlib import Path

from django.test import Client

from afterhack.schemas import ERROR_ANSWERS
from config.middleware import FALLBACKS

API_DOC = Path(__file__).resolve().parents[2] / "docs" / "api.md"
# What the app answers besides the OpenAPI table's statuses: the web server's own refusals (afterhack/web_worker.py)
# and an unhandled error (config/middleware.py, afterhack/outages.py).
OTHER_ERRORS = {(408, "request_timeout"), (413, "too_large"), (500, "internal_error")}


def operations_served() -> list[str]:
    """`METHOD /path` of every operation in the served OpenAPI document."""
    response = Client().get("/api/v1/openapi.json")
    assert response.status_code == 200
    return [f"{method.upper()} {path}" for path, item in response.json()["paths"].items() for method in item]


def operations_missing(doc: str, operations: list[str]) -> list[str]:
    """The operations the doc does not name, each written in backticks."""
    return [operation for operation in operations if f"`{operation}`" not in doc]


def error_codes() -> set[tuple[int, str]]:
    """(status, code) of every error the app answers: the OpenAPI document's table, the API's fallbacks, the rest."""
    table = {(status, code) for status, words in ERROR_ANSWERS.items() for code in re.findall(r"`([a-z_]+)`", words)}
    return table | {(status, code) for status, (code, _) in FALLBACKS.items()} | OTHER_ERRORS


def errors_missing(doc: str, codes: set[tuple[int, str]]) -> list[str]:
    """'status code' for each error without its row in the doc's error table: | `code` | status | when |."""
    return sorted(f"{status} {code}" for status, code in codes if f"\n| `{code}` | {status} |" not in f"\n{doc}")


def test_every_served_operation_is_in_the_api_doc() -> None:
    operations = operations_served()
    assert len(operations) > 30
    assert operations_missing(API_DOC.read_text(), operations) == []


def test_every_error_code_is_in_the_api_doc_with_its_status() -> None:
    codes = error_codes()
    assert {(401, "unauthorized"), (409, "stale_correction_preview"), (422, "idempotency_key_reused")} <= codes
    assert errors_missing(API_DOC.read_text(), codes) == []


def test_the_checks_notice_what_the_doc_leaves_out() -> None:
    doc = "| `GET /api/v1/workspaces` | lists |\n| `unauthorized` | 401 | no token |\n| `not_found` | 404 | none |\n"
    doc += "`conflict` is 409's code, in words only\n"
    operations = ["GET /api/v1/workspaces", "POST /api/v1/workspaces"]
    assert operations_missing(doc, operations) == ["POST /api/v1/workspaces"]
    codes = {(401, "unauthorized"), (404, "not_found"), (409, "conflict"), (422, "unauthorized")}
    assert errors_missing(doc, codes) == ["409 conflict", "422 unauthorized"]
