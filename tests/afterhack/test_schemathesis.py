"""The JSON API holds to its OpenAPI document: schemathesis reads the served /api/v1/openapi.json,
generates valid and invalid requests for every operation in all its phases (examples, coverage,
fuzzing, stateful) and runs all its checks on the answers.

It runs as `schemathesis run`, its documented command line, against a live server on the real stores,
with a real token of the workspace's admin and path ids that exist, so that requests reach each
operation's logic and not only its 404. (The in-process pytest integration of schemathesis 4.32 does
not run under pytest 9.2, which renamed the node attribute it rewrites.)
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Permission

from agents.services import decisions as decision_services
from agents.services import runs as run_services
from claims.services import claims as claims_services
from claims.services import sources as sources_services
from corrections.services import apply as apply_services
from corrections.services import preview as preview_services
from corrections.services import suggestions as suggestion_services
from corrections.statuses import FoundBy
from tests.conftest import Trio
from workspaces.services import tokens as token_services

pytestmark = [pytest.mark.schemathesis, pytest.mark.django_db(transaction=True)]

PLAN = "Launch plan\n\nThe launch is in June. Ana owns the checklist. Marketing starts in May.\n"
QUOTES = ["The launch is in June", "Ana owns the checklist", "Marketing starts in May"]

# Cases per operation and phase; bounded so that the whole run stays well under a minute here.
MAX_EXAMPLES = 10
SEED = 8

LISTS = ["/api/v1/workspaces", *(f"/api/v1/workspaces/{{ws_id}}/{name}" for name in (
    "members", "sources", "sources/{source_id}/rejected", "claims", "decisions", "actions", "runs", "corrections",
    "changes", "suggestions", "webhooks", "webhooks/{webhook_id}/deliveries",
))]  # fmt: skip

# Valid-looking input these operations can still refuse 422 for what it means, which no schema can
# say: a cursor the API did not give out, a user that does not exist, a quote that is not in the text,
# supports that are not current claims, a text that is the same as the current version, an idempotency
# key used for another correction, a corrected statement that is the claim's own, a PROV root that is
# not a claim or decision here, an `as_of` (or `from`, `to`) that is text but not a moment (docs/api.md, The past),
# "correct the other one" of a suggestion that was flagged (it has no other claim).
SEMANTIC_422 = [
    *(f"GET {path}" for path in LISTS),
    "POST /api/v1/workspaces/{ws_id}/members",
    "PATCH /api/v1/workspaces/{ws_id}/members/{username}",
    "DELETE /api/v1/workspaces/{ws_id}/members/{username}",
    "POST /api/v1/workspaces/{ws_id}/claims",
    "POST /api/v1/workspaces/{ws_id}/decisions",
    "POST /api/v1/workspaces/{ws_id}/decisions/{decision_id}/justifications",
    "POST /api/v1/workspaces/{ws_id}/decisions/{decision_id}/revise",
    "POST /api/v1/workspaces/{ws_id}/actions",
    "POST /api/v1/workspaces/{ws_id}/claims/{claim_id}/corrections",
    "POST /api/v1/workspaces/{ws_id}/claims/{claim_id}/correction-preview",
    "POST /api/v1/workspaces/{ws_id}/claims/{claim_id}/contradictions",
    "POST /api/v1/workspaces/{ws_id}/suggestions/{suggestion_id}/preview",
    "POST /api/v1/workspaces/{ws_id}/sources/{source_id}/versions",
    "GET /api/v1/workspaces/{ws_id}/prov",
    "GET /api/v1/workspaces/{ws_id}/claims/{claim_id}",
    "GET /api/v1/workspaces/{ws_id}/decisions/{decision_id}",
    "GET /api/v1/workspaces/{ws_id}/actions/{action_id}",
    # A cursor of the inbox it did not give out; a follow-up on decisions that do not hold, or no follow-up without a
    # reason in words.
    "GET /api/v1/notifications",
    "POST /api/v1/workspaces/{ws_id}/actions/{action_id}/follow-up",
    # A webhook's URL that is text but no http(s) address, or this app's own; an event kind the schema cannot list.
    "POST /api/v1/workspaces/{ws_id}/webhooks",
    "PATCH /api/v1/workspaces/{ws_id}/webhooks/{webhook_id}",
]
ACCEPTED = ["2XX", 401, 403, 404, 409, 429]


@dataclass
class Seeded:
    """What the seeded workspace holds, by the names the fuzzer's dictionaries use."""

    workspace: str
    source: str
    claims: list[str]
    decision: str
    action: str
    run: str
    to_retract: str
    to_revise: str
    suggestion: str


def seed_workspace(trio: Trio) -> Seeded:
    """A workspace with a bit of everything: a source, a current and a superseded claim, a decision,
    an action, a run, a correction and a suggestion."""
    workspace, reviewer = trio.workspace, trio.reviewer
    source = sources_services.source_add(workspace=workspace, title="Launch plan", text=PLAN, actor=reviewer).id
    june, ana = (
        claims_services.claim_add(
            workspace=workspace, source_id=source, statement=quote + ".", evidence_quote=quote, actor=reviewer
        ).id
        for quote in QUOTES[:2]
    )
    decision = decision_services.decision_add(
        workspace=workspace, title="Launch in June", rationale=None, justifications=[[june]], actor=reviewer
    ).id
    action = decision_services.action_add(
        workspace=workspace, title="Announce", decision_ids=[decision], actor=reviewer
    ).id
    run = run_services.ask(workspace=workspace, question="When is the launch?", actor=reviewer)
    preview = preview_services.preview(workspace=workspace, claim_id=ana, statement="Ana owns the budget.")
    apply_services.apply(
        workspace=workspace, claim_id=ana, statement="Ana owns the budget.", reason="She does.",
        revision=preview.fingerprint, idempotency_key="seed", actor=reviewer,
    )  # fmt: skip
    to_retract, to_revise = (
        sources_services.source_add(workspace=workspace, title=title, text=PLAN, actor=reviewer).id
        for title in ("To retract", "To revise")
    )
    suggestion, _ = suggestion_services.contradiction_flag(
        workspace=workspace, claim_id=june, source_id=source, quote=QUOTES[2], statement="The launch is in May.",
        found_by=FoundBy.PERSON, actor=reviewer,
    )  # fmt: skip
    return Seeded(str(workspace.id), source, [june, ana], decision, action, run, to_retract, to_revise, suggestion.id)


# The fuzzer's configuration. The workspace is the seeded one; other ids in paths and bodies, quotes
# and usernames are drawn from it most of the time (the rest is generated), so that requests reach each
# operation's logic (claims, decisions, actions and members are really created, not only refused) and
# malformed ids are still tried.
CONFIG = """
headers = {{ Authorization = {token} }}

[phases.coverage]
# Every path answers an unknown method alike (405 with Allow), so one such method is probed per path.
unexpected-methods = ["PUT"]

[dictionaries.sources]
values = {sources}
[dictionaries.claims]
values = {claims}
[dictionaries.decisions]
values = {decisions}
[dictionaries.actions]
values = {actions}
[dictionaries.runs]
values = {runs}
[dictionaries.suggestions]
values = {suggestions}
[dictionaries.quotes]
values = {quotes}
[dictionaries.members]
values = {members}
[dictionaries.people]
values = {people}

[parameters]
"path.ws_id" = {workspace}
"path.source_id" = {{ dictionary = "sources", probability = 0.75 }}
"path.claim_id" = {{ dictionary = "claims", probability = 0.75 }}
"path.decision_id" = {{ dictionary = "decisions", probability = 0.75 }}
"path.action_id" = {{ dictionary = "actions", probability = 0.75 }}
"path.run_id" = {{ dictionary = "runs", probability = 0.75 }}
"path.suggestion_id" = {{ dictionary = "suggestions", probability = 0.75 }}
"path.username" = {{ dictionary = "members", probability = 0.75 }}
"body.source_id" = {{ dictionary = "sources", probability = 0.5 }}
"body.evidence_quote" = {{ dictionary = "quotes", probability = 0.5 }}
"body.quote" = {{ dictionary = "quotes", probability = 0.5 }}
"body.derived_from[*]" = {{ dictionary = "claims", probability = 0.5 }}
"body.decision_ids[*]" = {{ dictionary = "decisions", probability = 0.5 }}
"body.username" = {{ dictionary = "people", probability = 0.5 }}
"query.root" = {{ dictionary = "claims", probability = 0.5 }}

# DELETE /auth/token revokes the token it is sent with, so it gets a token of its own.
[[operations]]
include-name = "DELETE /api/v1/auth/token"
headers = {{ Authorization = {spare_token} }}

# Retracting a source or giving it a new text changes what can be quoted from it: other sources for those.
[[operations]]
include-name = "POST /api/v1/workspaces/{{ws_id}}/sources/{{source_id}}/retract"
parameters = {{ "path.source_id" = {to_retract} }}
[[operations]]
include-name = "POST /api/v1/workspaces/{{ws_id}}/sources/{{source_id}}/versions"
parameters = {{ "path.source_id" = {to_revise} }}
"""


def config_file(directory: Path, trio: Trio, seeded: Seeded, token: str, spare_token: str) -> Path:
    """schemathesis.toml (its values are written as JSON, which TOML reads alike)."""
    values = {
        "token": f"Bearer {token}", "spare_token": f"Bearer {spare_token}", "workspace": seeded.workspace,
        "sources": [seeded.source], "claims": seeded.claims, "decisions": [seeded.decision],
        "actions": [seeded.action], "runs": [seeded.run], "suggestions": [seeded.suggestion], "quotes": QUOTES,
        "members": [trio.reviewer.get_username()],
        "people": [trio.outsider.get_username(), trio.viewer.get_username()],
        "to_retract": seeded.to_retract, "to_revise": seeded.to_revise,
    }  # fmt: skip
    text = CONFIG.format(**{name: json.dumps(value) for name, value in values.items()})
    for name in SEMANTIC_422:
        text += (
            f"\n[[operations]]\ninclude-name = {json.dumps(name)}\n"
            f"checks.positive_data_acceptance.expected-statuses = {json.dumps([*ACCEPTED, 422])}\n"
        )
    path = directory / "schemathesis.toml"
    path.write_text(text)
    return path


@pytest.fixture
def prompt_live_server(live_server: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The live server without the 40 ms that Nagle's algorithm and delayed ACKs add to each of its answers.

    Django's development server writes an answer's headers and body apart; gunicorn, which `make run`
    serves with, sets TCP_NODELAY itself. Without it here, the fuzzer's thousand requests wait 40 s.
    """
    from django.core.servers.basehttp import WSGIRequestHandler

    setup = WSGIRequestHandler.setup

    def setup_without_delay(handler: WSGIRequestHandler) -> None:
        setup(handler)
        connection: socket.socket = handler.connection  # type: ignore[assignment]
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    monkeypatch.setattr(WSGIRequestHandler, "setup", setup_without_delay)
    return live_server


def fuzz(url: str, config: Path) -> subprocess.CompletedProcess[str]:
    """`schemathesis run` with all its checks and phases, bounded, reproducible."""
    command = [
        sys.executable, "-m", "schemathesis.cli", "--config-file", str(config), "--no-color",
        "run", url, "--checks", "all", "--max-examples", str(MAX_EXAMPLES), "--seed", str(SEED),
        "--workers", "1", "--generation-database", "none",
    ]  # fmt: skip
    return subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=config.parent)


class SchemathesisTests:
    def test_the_api_holds_to_its_openapi_document(
        self, prompt_live_server: Any, trio: Trio, no_llm: None, tmp_path: Path
    ) -> None:
        seeded = seed_workspace(trio)
        # The workspace's admin, who may also create workspaces.
        trio.owner.user_permissions.add(Permission.objects.get(codename="add_workspace"))
        _, token = token_services.token_issue(user=trio.owner)
        _, spare_token = token_services.token_issue(user=trio.owner)
        config = config_file(tmp_path, trio, seeded, token, spare_token)
        started = time.monotonic()
        run = fuzz(f"{prompt_live_server.url}/api/v1/openapi.json", config)
        output = f"{run.stdout}\n{run.stderr}"
        assert run.returncode == 0, f"schemathesis found failures:\n{output}"
        # Every operation of the document was tested, and the run was not cut short.
        selected = re.search(r"Selected: (\d+)/(\d+)\s+Tested: (\d+)", run.stdout)
        assert selected is not None and len(set(selected.groups())) == 1 and int(selected.group(1)) >= 30, output
        cases = re.search(r"(\d+) generated, \1 passed", run.stdout)
        assert cases is not None and int(cases.group(1)) > 500, output
        print(
            f"schemathesis: {selected.group(1)} operations, {cases.group(1)} cases, {time.monotonic() - started:.0f} s"
        )
